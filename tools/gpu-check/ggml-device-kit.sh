#!/usr/bin/env bash
# ggml's whole test-backend-ops on the GPU machine in two or three device calls, every kernel compiled there (ZLUDA-J's
# NVPTX of the GPU build's own PTX; a cache made here from the host build's PTX missed some kernels there).
#   here:   tools/gpu-check/gpu-check.sh sm_90 device          (.device-carry: run.sh, the Java runtime, ggml's source)
#           tools/gpu-check/ggml-device-kit.sh make            (.device-kit: LLVM and the jars, ggml's source, this script)
#   call 1: bash .device-kit/ggml-device-kit.sh there          (carry .device-kit: LLVM unpacked, ggml built;
#           GGML_DEFAULT_BUILD=1: llama.cpp's default build too, for run.sh's GGML_BUILD=default; =only: that one alone)
#   call 2: bash .device-carry/run.sh ggml-prep; bash .device-carry/run.sh ggml-suite [GROUPS]   (carry .device-carry,
#           on the same warm machine, within 30 s: every kernel compiled, then the suite both ways)
# The two carries do not fit one call (64 MiB).
set -u
case "${1:-}" in
  make)
    root=$(cd "$(dirname "$0")/../.." && pwd); kit=$root/.device-kit
    [ -f "$root/.device-carry/ggml/build.sh" ] || { echo "run tools/gpu-check/gpu-check.sh sm_90 device first" >&2; exit 2; }
    rm -rf "$kit" && mkdir -p "$kit"
    tmp=$(mktemp -d); JRE_TAR_XZ= "$root/bench/ggml-compile-kit.sh" make "$tmp" > /dev/null && mv "$tmp/kit1" "$kit/kit1"; rm -rf "$tmp"
    cp "$root/.device-carry/ggml/build.sh" "$root/.device-carry/ggml/ggml-src.tar.xz" "$0" "$kit/"
    du -sh "$kit" ;;
  there)
    s=${TMPDIR:-/tmp}/zluda-gpu-check; k=${ZLUDA_KIT_DIR:-/tmp/zluda-kit}; mkdir -p "$s" "$k/lib"; out=${OUT:-/tmp/out}; mkdir -p "$out"
    here=$(cd "$(dirname "$0")" && pwd)
    cp "$here"/kit1/lib/*.jar "$k/lib/" && xz -T0 -dc "$here/kit1/llvm.jar.xz" > "$k/lib/llvm-20.1.7-1.5.12-linux-x86_64.jar" &
    # built as run.sh's ggml modes build it (same folder, same options: they use this build)
    cublasdir=$(dirname "$(ls /usr/local/cuda*/targets/x86_64-linux/lib/libcublas.so.13 /usr/local/cuda/lib64/libcublas.so.13 2>/dev/null | head -1)")
    cl=$(ls "$cublasdir"/libcublas.so.13.* | head -1); cll=$(ls "$cublasdir"/libcublasLt.so.13.* | head -1)
    t0=$(date +%s)
    if [ "${GGML_DEFAULT_BUILD:-}" != only ]; then  # only: the default build alone (run.sh's GGML_BUILD=default modes)
      GGML_CMAKE_ARGS="-DCUDA_cublas_LIBRARY=$cl -DCUDA_cublasLt_LIBRARY=$cll -DGGML_CUDA_GRAPHS=${GGML_CUDA_GRAPHS:-ON}" \
        bash "$here/build.sh" "$here/ggml-src.tar.xz" "$s/ggml-build" > "$out/ggml-build.log" 2>&1
      echo "ggml build: exit $? in $(( $(date +%s) - t0 )) s; $(nvcc --version | tail -2 | head -1)"
    fi
    if [ -n "${GGML_DEFAULT_BUILD:-}" ]; then  # and llama.cpp's default build (MMQ on), for run.sh's GGML_BUILD=default
      t0=$(date +%s)
      GGML_CMAKE_ARGS="-DCUDA_cublas_LIBRARY=$cl -DCUDA_cublasLt_LIBRARY=$cll -DGGML_CUDA_GRAPHS=${GGML_CUDA_GRAPHS:-ON}" \
        bash "$here/build.sh" "$here/ggml-src.tar.xz" "$s/ggml-build-default" default > "$out/ggml-build-default.log" 2>&1
      echo "ggml default build: exit $? in $(( $(date +%s) - t0 )) s"
    fi
    wait; ls -la "$k/lib" | tail -3
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader ;;
  *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
