#!/usr/bin/env bash
# Host-backend benchmark through ZLUDA-J's libcuda.so.1 (needs nvcc; after mvn package).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc -O2 -arch=compute_75 -o "$work/host_bench" "$root/bench/host_bench.cu"
LD_LIBRARY_PATH="$root/dist/lib" "$work/host_bench"
