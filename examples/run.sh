#!/usr/bin/env bash
# Builds and runs the ZLUDA-J example through dist/ (after `mvn package`): a vector add built by nvcc as an
# unmodified CUDA program (PTX only, static cudart) where nvcc is installed; otherwise a CUDA driver-API program in
# plain C with embedded PTX (gcc only). Both check their results and print PASS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist=$root/dist
[ -x "$dist/bin/zluda" ] || { echo "no distribution in $dist: run 'mvn -B package -DskipTests' first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if command -v nvcc >/dev/null; then
    echo "== nvcc -arch=compute_75 vectoradd.cu, run on ZLUDA-J's libcuda.so.1"
    nvcc -arch=compute_75 -o "$work/vectoradd" "$root/ptx-tests/src/test/cuda/vectoradd.cu"
    "$dist/bin/zluda" run -- "$work/vectoradd"
else
    echo "== nvcc not found: gcc driver_vectoradd.c (CUDA driver API, embedded PTX), run on ZLUDA-J's libcuda.so.1"
fi
gcc -O1 -o "$work/driver_vectoradd" "$root/ptx-tests/src/test/c/driver_vectoradd.c" -L"$dist/lib" -lcuda
"$dist/bin/zluda" run -- "$work/driver_vectoradd"
