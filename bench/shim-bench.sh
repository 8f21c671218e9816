#!/usr/bin/env bash
# Builds bench/shim_bench.c against dist/ and runs it: JVM start time and the cost of a call through the shim.
# Usage: bench/shim-bench.sh [calls]     (after mvn -B package -DskipTests)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/shim_bench" "$root/bench/shim_bench.c" -L"$root/dist/lib" -lcuda -lpthread
LD_LIBRARY_PATH="$root/dist/lib" "$work/shim_bench" "$@"
