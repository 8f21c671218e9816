#!/usr/bin/env bash
# ggml's test-backend-ops through ZLUDA-J's host backend on a lent many-core machine (64 or 128 cores, no Java there):
# the runs that take 2 cores most of a day, as FLASH_ATTN_EXT under the AMD lowering's emulation (ZLUDA_HOST_WMMA).
#   here:   tools/gpu-check/ggml-host-kit.sh make KIT      KIT/kit1: our jars and a stripped LLVM jar (as
#                                                          bench/ggml-compile-kit.sh makes them); KIT/kit2: the Java
#                                                          runtime JRE_TAR_XZ (top folder jre/), ../shared/ggml's host
#                                                          build, our native libraries and launcher, and the OpenBLAS
#                                                          jars (our cuBLAS on the host backend; kit1 leaves them out)
#   call 1: bash tools/gpu-check/ggml-host-kit.sh unpack KIT/kit1                 (carry KIT/kit1)
#   call 2: bash tools/gpu-check/ggml-host-kit.sh run KIT/kit2 OUT OP [REGEX...]  (carry KIT/kit2, the same warm machine,
#           within 30 s): compiles the kernels GGML_HOST_KERNELS names (a regex, or @FILE: a ZLUDA_KERNELS_USED list
#           carried in KIT/kit2; unset: none) into the cache in parallel
#           on every core, bounded by GGML_HOST_PRECOMPILE_S (default 300), then test-backend-ops test -o OP, one
#           process per REGEX (-p: a regex of the cases' parameters; none: one process), bounded by GGML_HOST_S
#           (default 240; OP "-": none); ZLUDA_HOST_WMMA passes through. A later call may leave KIT/kit2 out: what was unpacked,
#           the cache and the compiled kernels stay on the warm machine, and a cut precompile goes on from there.
#           OUT/host-ops.md: cases passed per process, the failures; OUT/host-logs.tgz: the logs. LD_PRELOAD passes
#           through too: llama.cpp's default build is ptx-tests/src/test/c/ggml_use_mmq.c built and preloaded (docs/llama-cpp.md).
set -u
there=${ZLUDA_KIT_DIR:-${TMPDIR:-/tmp}/zluda-kit}  # as bench/ggml-compile-kit.sh: kept between calls
root=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:-}" in
  make)
    kit=$2; rm -rf "$kit" && mkdir -p "$kit/kit2/dist/bin" "$kit/kit2/dist/lib"
    [ -n "${JRE_TAR_XZ:-}" ] || { echo "JRE_TAR_XZ: a Java runtime's tar.xz whose top folder is jre/ (gpu-check.sh makes .device-carry/jre.tar.xz)" >&2; exit 2; }
    tmp=$(mktemp -d); JRE_TAR_XZ= GGML_LIB=none "$root/bench/ggml-compile-kit.sh" make "$tmp" > /dev/null
    mv "$tmp/kit1" "$kit/kit1"; rm -rf "$tmp"
    cp "$JRE_TAR_XZ" "$kit/kit2/jre.tar.xz"
    cp -P "$root"/dist/lib/*.so* "$kit/kit2/dist/lib/" && cp "$root/dist/bin/zluda" "$kit/kit2/dist/bin/"
    for j in "$root"/dist/lib/openblas-*.jar; do  # the native one stored, then xz: 8.7 MB instead of 19.7 (the carry's 64 MiB)
      case "$j" in
        *linux-x86_64.jar) tmp=$(mktemp -d); (cd "$tmp" && unzip -q "$j" && zip -q -0 -r "$tmp/s.jar" META-INF org)
                           xz -T0 -9 -c "$tmp/s.jar" > "$kit/kit2/$(basename "$j").xz"; rm -rf "$tmp" ;;
        *) cp "$j" "$kit/kit2/dist/lib/" ;;
      esac
    done
    tar -C "$root/../shared/ggml/host" -cf - lib bin | xz -T0 -6 > "$kit/kit2/ggml-host.tar.xz"
    du -sh "$kit"/kit1 "$kit"/kit2 ;;
  unpack)
    mkdir -p "$there/lib" && cp "$2"/lib/*.jar "$there/lib/"
    xz -T0 -dc "$2/llvm.jar.xz" > "$there/lib/llvm-20.1.7-1.5.12-linux-x86_64.jar"
    ls -la "$there/lib" | tail -3; nproc; free -g | head -2 ;;
  run)
    k2=$2 out=$3 op=$4; shift 4
    [ -f "$there/lib/llvm-20.1.7-1.5.12-linux-x86_64.jar" ] || { echo "unpack kit1 first (same warm machine)" >&2; exit 3; }
    mkdir -p "$out"; h=$there/host; logs=$h/logs; mkdir -p "$logs"
    if [ ! -x "$h/dist/bin/zluda" ]; then  # the first run call: the runtime, ggml and a distribution of our jars
      [ -f "$k2/jre.tar.xz" ] || { echo "carry kit2 on the first run call" >&2; exit 3; }
      mkdir -p "$h/ggml" && tar -C "$there" -xJf "$k2/jre.tar.xz" & tar -C "$h/ggml" -xJf "$k2/ggml-host.tar.xz" & wait
      cp -r "$k2/dist" "$h/" && ln -sf "$there"/lib/*.jar "$h/dist/lib/"
      for x in "$k2"/openblas-*.jar.xz; do [ -f "$x" ] && xz -dc "$x" > "$h/dist/lib/$(basename "$x" .xz)"; done
    fi
    cudart=$(dirname "$(ls /usr/local/cuda*/targets/x86_64-linux/lib/libcudart.so.13 /usr/local/cuda/lib64/libcudart.so.13 2>/dev/null | head -1)")
    export ZLUDA_JAVA_HOME=$there/jre ZLUDA_BACKEND=host ZLUDA_CACHE_DIR=$h/cache
    unset ZLUDA_NVIDIA_LIB
    t0=$(date +%s)
    if [ -n "${GGML_HOST_KERNELS:-}" ]; then
      timeout -k 10 "${GGML_HOST_PRECOMPILE_S:-300}" "$h/dist/bin/zluda" precompile "$h/ggml/lib/libggml-cuda.so.0" --target host \
        --kernels "$GGML_HOST_KERNELS" > "$logs/precompile.log" 2>&1
      echo "precompile (ZLUDA_HOST_WMMA=${ZLUDA_HOST_WMMA:-}): exit $? after $(( $(date +%s) - t0 )) s on $(nproc) cores; $(tail -1 "$logs/precompile.log")" | tee "$out/host-ops.md"
    fi
    [ "$op" != - ] || exit 0  # OP "-": only the precompile
    [ $# -gt 0 ] || set -- ""
    t1=$(date +%s) i=0
    for p in "$@"; do
      i=$((i + 1)); pa=(); [ -n "$p" ] && pa=(-p "$p")
      ( a=$(date +%s); LD_LIBRARY_PATH="$h/ggml/lib:$cudart" timeout -k 5 "${GGML_HOST_S:-240}" "$h/dist/bin/zluda" run -- \
          "$h/ggml/bin/test-backend-ops" test -b CUDA0 -o "$op" "${pa[@]}" > "$logs/ops.$i" 2>&1
        echo "exit $? after $(( $(date +%s) - a )) s" >> "$logs/ops.$i" ) &
    done
    wait
    { echo "test-backend-ops test -b CUDA0 -o $op, host backend, ZLUDA_HOST_WMMA=${ZLUDA_HOST_WMMA:-}, $i processes, $(( $(date +%s) - t1 )) s"
      i=0 ok=0 bad=0
      for p in "$@"; do
        i=$((i + 1)); f=$logs/ops.$i
        o=$(grep -ac '^  [A-Z0-9_]*(.*): .*OK' "$f"); b=$(grep -ac '^  [A-Z0-9_]*(.*): .*FAIL' "$f"); ok=$((ok + o)); bad=$((bad + b))
        printf '%-60s %5d OK %3d FAIL  %s | %s\n' "${p:-(all)}" "$o" "$b" "$(grep -ao '[0-9]*/[0-9]* tests passed' "$f" | tail -1)" "$(tail -1 "$f")"
      done
      echo "all: $ok OK, $bad FAIL"
      i=0; for p in "$@"; do i=$((i + 1)); f=$logs/ops.$i
        grep -a '^  [A-Z0-9_]*(.*): .*FAIL' "$f" | sed 's/\x1b\[[0-9;]*m//g' | head -5 | cut -c1-240
        grep -aq ' tests passed' "$f" || { echo "--- ${p:-(all)} ended early:"; grep -av '^  [A-Z0-9_]*(.*): ' "$f" | tail -3 | cut -c1-240; }
      done; } 2>&1 | tee -a "$out/host-ops.md"
    tar -C "$logs" -czf "$out/host-logs.tgz" . 2>/dev/null || true ;;
  *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
