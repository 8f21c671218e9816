#!/usr/bin/env bash
# The compile benchmark (ggml-compile-bench.sh) on a machine with many cores and no Java (the lent GPU machines: 64
# or 128 cores), where ggml's whole PTX compiles for one AMD target in minutes instead of hours on 2 cores.
# Here:        bench/ggml-compile-kit.sh make KIT            (KIT/kit1: the jars and a stripped LLVM jar, xz; KIT/kit2:
#                                                             the Java runtime given as JRE_TAR_XZ and ggml's PTX, xz)
# There:       bench/ggml-compile-kit.sh unpack KIT/kit1      (first call: a carry holds 64 MiB, so two calls)
#              bench/ggml-compile-kit.sh run KIT/kit2 OUT [bench options...]   (second call, on the same warm machine)
# The LLVM jar keeps libLLVM, its JNI library, libLTO/libRemarks and lld, stripped of symbols: 36 MB compressed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
there=${ZLUDA_KIT_DIR:-${TMPDIR:-/tmp}/zluda-kit}  # where the kit is unpacked on the lent machine (kept between calls)
case "${1:-}" in
  make)
    kit=$2; mkdir -p "$kit/kit1/lib" "$kit/kit2"
    jar=$(ls "$root"/dist/lib/llvm-*-linux-x86_64.jar)
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && unzip -q "$jar" 'META-INF/MANIFEST.MF' 'META-INF/maven/*' \
        'org/bytedeco/llvm/linux-x86_64/libLLVM.so' 'org/bytedeco/llvm/linux-x86_64/libjniLLVM.so' \
        'org/bytedeco/llvm/linux-x86_64/libLTO.so' 'org/bytedeco/llvm/linux-x86_64/libRemarks.so' 'org/bytedeco/llvm/linux-x86_64/lld' 'org/bytedeco/llvm/linux-x86_64/llc' \
      && strip --strip-unneeded org/bytedeco/llvm/linux-x86_64/*.so org/bytedeco/llvm/linux-x86_64/lld \
      && zip -q -0 -r "$tmp/$(basename "$jar")" META-INF org)
    xz -T0 -9 -c "$tmp/$(basename "$jar")" > "$kit/kit1/llvm.jar.xz"
    for j in "$root"/dist/lib/*.jar; do case "$j" in *linux-x86_64.jar|*openblas*) ;; *) cp "$j" "$kit/kit1/lib/" ;; esac; done
    [ -n "${JRE_TAR_XZ:-}" ] && cp "$JRE_TAR_XZ" "$kit/kit2/jre.tar.xz"  # a runtime whose top folder is jre/
    if [ "${GGML_LIB:-}" != none ]; then  # none: no PTX (tools/gpu-check/ggml-host-kit.sh carries the library itself)
      ptx=$(mktemp -d); "$root/dist/bin/zluda" extract "${GGML_LIB:-$root/../shared/ggml/host/lib/libggml-cuda.so.0}" -o "$ptx/gptx" > /dev/null
      tar -C "$ptx" -cf - gptx | xz -T0 -6 > "$kit/kit2/gptx.tar.xz"; rm -rf "$ptx"
    fi
    du -sh "$kit"/kit1 "$kit"/kit2 ;;
  unpack)
    mkdir -p "$there/lib" && cp "$2"/lib/*.jar "$there/lib/"
    xz -T0 -dc "$2/llvm.jar.xz" > "$there/lib/llvm-20.1.7-1.5.12-linux-x86_64.jar" ;;
  run)
    k2=$2 out=$3; shift 3
    [ -f "$there/lib/llvm-20.1.7-1.5.12-linux-x86_64.jar" ] || { echo "unpack kit1 first (same warm machine)" >&2; exit 3; }
    tar -C "$there" -xJf "$k2/jre.tar.xz" & tar -C "$there" -xJf "$k2/gptx.tar.xz" & wait
    export PATH=/usr/local/cuda/bin:$PATH
    "$there/jre/bin/java" -Xss8m -Xmx200g -cp "$there/lib/*" org.zludaj.driver.CompileBenchMain "$there/gptx" "$@" 2>&1 | grep -v WARNING > "$out" ;;
  *) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
