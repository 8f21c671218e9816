#!/usr/bin/env bash
# The whole differential corpus (issue 19) on the host backend: tools/gpu-check/fuzz_ptx.py's 20,000 kernels of
# seed 1 through ZLUDA-J, compared with NVIDIA's results (ptx-tests/src/test/fuzz, recorded on an H100).
# Usage: bench/fuzz-corpus.sh [COUNT]   (after mvn package; about 20 minutes on 2 cores for all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=${1:-20000}
python3 "$root/tools/gpu-check/fuzz_ptx.py" "$work/k" "$n" 1 > /dev/null
gcc -O1 -o "$work/ptxrun" "$root/ptx-tests/src/test/c/ptxrun.c" -ldl
start=$(date +%s)
# 1,000 kernels a process (ptxrun names each one in its output)
(cd "$work/k" && ls | xargs -n 1000 sh -c 'p=$1; shift; LD_LIBRARY_PATH="$0" "$p" "$@" 2>/dev/null || true' "$root/dist/lib" "$work/ptxrun" > "$work/out")
echo "fuzz corpus on the host: $n kernels in $(( $(date +%s) - start )) s"
python3 "$root/tools/gpu-check/fuzz_corpus.py" check "$root/ptx-tests/src/test/fuzz/nvidia-h100.tsv.gz" \
  "$root/ptx-tests/src/test/fuzz/nvidia-h100-values.txt.gz" "$work/k" "$work/out" | head -20
