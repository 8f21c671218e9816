#!/usr/bin/env bash
# SGEMM/HGEMM GFLOP/s through ZLUDA-J's cuBLAS on the host backend against OpenBLAS called directly (the library under
# it, from JavaCPP's cache, extracted at ZLUDA-J's first cuBLAS use). Usage: bench/cublas-bench.sh (after mvn package)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/cublas_bench" "$root/bench/cublas_bench.c" -L"$root/dist/lib" -l:libcublas.so.13 -lcuda -ldl
openblas=$(find "${HOME}/.javacpp/cache" -name 'libopenblas*.so.0' 2>/dev/null | head -n 1 || true)
"$root/dist/bin/zluda" run -- "$work/cublas_bench" ${openblas:+"$openblas"}
