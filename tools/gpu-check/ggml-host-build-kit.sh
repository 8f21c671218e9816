#!/usr/bin/env bash
# ggml's perf mode for llama.cpp's default build's MMQ on the GPU machine in one device call, without building ggml
# there: ../shared/ggml's host build (its glibc is older than the GPU machine's), the ggml_use_mmq preload (the
# default build's choice of kernels, docs/llama-cpp.md) and ZLUDA-J's NVPTX of the MMQ and quantize modules compiled
# here for sm_90 by this distribution (.device-carry's has no LLVM: its cache must come from the same build).
#   here:  tools/gpu-check/gpu-check.sh sm_90 device; tools/gpu-check/ggml-host-build-kit.sh make
#          (.device-mmq 28 MB, .device-carry less its ptx-test cache, programs and ggml source 23 MB, set aside in
#          .device-carry.aside: with the checkout they fit the 64 MiB carry; carry [".device-carry", ".device-mmq"])
#   there: bash .device-mmq/ggml-host-build-kit.sh there (it prints the preload's path, in run.sh's scratch folder);
#          LD_PRELOAD=THAT_PATH GGML_PERF="MUL_MAT:120:n=512" bash .device-carry/run.sh ggml-perf
set -eu
case "${1:-}" in
  make)
    root=$(cd "$(dirname "$0")/../.." && pwd); kit=$root/.device-mmq
    ggml=${ZLUDA_GGML_DIR:-$root/../shared/ggml}/host
    [ -x "$root/dist/bin/zluda" ] && [ -f "$ggml/lib/libggml-cuda.so.0" ] || { echo "needs dist/ (mvn package) and $ggml" >&2; exit 2; }
    for j in "$root"/dist/lib/zluda-*.jar; do  # the cache's keys are this build's: the carried one must be the same
      cmp -s "$j" "$root/.device-carry/dist/lib/$(basename "$j")" || { echo "$(basename "$j") differs from .device-carry's: run gpu-check.sh sm_90 device again" >&2; exit 2; }
    done
    rm -rf "$kit" && mkdir -p "$kit"; tmp=$(mktemp -d)
    "$root/dist/bin/zluda" extract "$ggml/lib/libggml-cuda.so.0" -o "$tmp/ptx" > /dev/null
    # the modules MMQ's products launch: mul_mat_q instances, quantize_mmq_q8_1 and quantize_q8_1
    mkdir -p "$tmp/mmq" && cp $(grep -l 'mul_mat_q\|quantize_mmq\|mmq_ids_helper\|quantize_q8_1' "$tmp"/ptx/*.ptx) "$tmp/mmq/"
    "$root/dist/bin/zluda" precompile "$tmp/mmq" --target sm_90 --cache "$tmp/cache" | tail -1
    tar -C "$tmp" -cf - cache | xz -T0 -6 > "$kit/cache.tar.xz"
    tar -C "$ggml/.." -cf - host | xz -T0 -6 > "$kit/host.tar.xz"
    cp "$root/ptx-tests/src/test/c/ggml_use_mmq.c" "$0" "$kit/"
    rm -rf "$tmp"; du -sh "$kit"
    # the carry: .device-carry without what the ggml modes do not use (kept aside in .device-carry.aside)
    mkdir -p "$root/.device-carry.aside"
    for f in cache.tar.xz bin ptx c cptx cublas ggml/ggml-src.tar.xz; do
      [ -e "$root/.device-carry/$f" ] && mkdir -p "$(dirname "$root/.device-carry.aside/$f")" && mv "$root/.device-carry/$f" "$root/.device-carry.aside/$f"
    done
    du -sh "$root/.device-carry" ;;
  there)
    s=${TMPDIR:-/tmp}/zluda-gpu-check; here=$(cd "$(dirname "$0")" && pwd)
    mkdir -p "$s/ggml-build/bin" "$s/ggml-build/src/ggml-cuda" "$s/cache" "$s/host-build"
    tar -C "$s/host-build" -xJf "$here/host.tar.xz"
    cp "$s"/host-build/host/bin/* "$s/ggml-build/bin/"; cp "$s"/host-build/host/lib/* "$s/ggml-build/src/"
    tar -C "$s" -xJf "$here/cache.tar.xz"
    gcc -O2 -shared -fPIC -o "$s/libggml_use_mmq.so" "$here/ggml_use_mmq.c"
    echo "ggml's host build in $s/ggml-build (run.sh's ggml modes use it), the preload $s/libggml_use_mmq.so" ;;
  *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
