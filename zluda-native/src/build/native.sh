#!/usr/bin/env bash
# Builds zluda-native's C libraries (run by Maven in the compile phase; needs only gcc and the JDK's headers).
#   libcuda.so.1   the shim: exports of the CUDA driver API, JVM start, cuGetProcAddress, export tables
#   libzluda_rt.so the host runtime (JNI natives of org.zludaj.nativ.HostRuntime, HostBlas ...)
#   libzluda_nvfwd.so  libcuda.so.1 for NVIDIA's cuBLAS under the cuda backend (forwards to NVIDIA's driver)
#   libcublas.so.13/.12, libcublasLt.so.13/.12  our cuBLAS and cuBLASLt (generated exports)
# Usage: native.sh JAVA_HOME GENERATED_C_DIR OUT_DIR
set -euo pipefail
java_home=$1 gen=$2 out=$3
src=$(cd "$(dirname "$0")/../main/c" && pwd)
mkdir -p "$out"
cflags=(-O2 -g -fPIC -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation -Werror=implicit-function-declaration
        -I"$java_home/include" -I"$java_home/include/linux" -I"$gen" -I"$src/shim" -I"$src/rt")
gcc "${cflags[@]}" -fvisibility=hidden -DZLUDA_BUILD_JAVA_HOME="\"$java_home\"" -shared \
    -Wl,-soname,libcuda.so.1 -Wl,--no-undefined -Wl,-z,now -o "$out/libcuda.so.1" \
    "$src"/shim/*.c "$gen"/zluda_exports.c "$gen"/zluda_procaddr.c -ldl -lpthread
ln -sf libcuda.so.1 "$out/libcuda.so"
gcc "${cflags[@]}" -shared -Wl,--no-undefined -o "$out/libzluda_rt.so" "$src"/rt/*.c -lpthread -ldl -lm
# the libcuda.so.1 of the namespace where the cuda backend opens NVIDIA's cuBLAS: forwards to NVIDIA's driver
# (every function NVIDIA's driver exports, each a jump through a table filled from NVIDIA's driver at run time)
awk '$1 == "F" { print $2 }' "$src/../api/exports-580.txt" > "$gen/nvfwd.names"
awk '{ printf "NAME(%s)\n", $1 }' "$gen/nvfwd.names" > "$gen/nvfwd_names.h"
awk 'BEGIN { print ".text" } { printf ".globl %s\n.type %s,@function\n%s:\n\tjmp *zluda_nvfwd_table+%d(%%rip)\n.size %s,.-%s\n", $1, $1, $1, 8 * (NR - 1), $1, $1 }
     END { print ".section .note.GNU-stack,\"\",@progbits" }' "$gen/nvfwd.names" > "$gen/nvfwd_jumps.S"
gcc "${cflags[@]}" -fvisibility=hidden -shared -Wl,-soname,libcuda.so.1 -Wl,--no-undefined -o "$out/libzluda_nvfwd.so" \
    "$src"/nvfwd/nvfwd.c "$gen/nvfwd_jumps.S" -ldl
echo "zluda-native: built $(nm -D --defined-only "$out/libcuda.so.1" | grep -c ' T cu') driver exports"
# the CUDA libraries we replace (cuBLAS, cuBLASLt): one file per soname, each export versioned with the soname's
# node as NVIDIA's are; they reach the JVM through libcuda.so.1 (found beside them: RUNPATH $ORIGIN)
while read -r so id needs; do
    deps=()
    [ "$needs" = - ] || deps=("$out/$needs")
    gcc "${cflags[@]}" -fvisibility=hidden -shared -Wl,-soname,"$so" -Wl,--version-script,"$gen/$so.map" \
        -Wl,--no-undefined -Wl,-z,now -Wl,-rpath,'$ORIGIN' -Wl,--no-as-needed -o "$out/$so" "$gen/zluda_$id.c" "${deps[@]}" "$out/libcuda.so.1"
    echo "zluda-native: built $so ($(nm -D --defined-only "$out/$so" | grep -c ' T ') exports)"
done < <(cat "$gen"/zluda_cublasLt.libs "$gen"/zluda_cublas.libs)
