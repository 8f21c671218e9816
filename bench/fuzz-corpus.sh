#!/usr/bin/env bash
# The whole differential corpus (issue 19) on the host backend: tools/gpu-check/fuzz_ptx.py's 20,000 kernels of
# seed 1 through ZLUDA-J, compared with NVIDIA's results (ptx-tests/src/test/fuzz, recorded on an H100).
# Usage: bench/fuzz-corpus.sh [COUNT]   (after mvn package; about 40 minutes on 2 cores for all, uncached)
# ZLUDA_DIST: the distribution to run (default: dist/ of this checkout; a copy lets a long run go on while dist/ is
# rebuilt); FUZZ_CORPUS_KEEP: a file that receives every kernel's output; FUZZ_CORPUS_DIFFERING: one that receives
# the names of the kernels that differ from NVIDIA's (to run natively and classify: fuzz_corpus.py classify).
# 1,000 kernels a process. A process that ends before its last kernel (a fault, or anything that ends the process)
# is counted, its last words kept, and a new one goes on after the kernel it last named.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist=${ZLUDA_DIST:-$root/dist}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=${1:-20000}
python3 "$root/tools/gpu-check/fuzz_ptx.py" "$work/k" "$n" 1 > /dev/null
gcc -O1 -o "$work/ptxrun" "$root/ptx-tests/src/test/c/ptxrun.c" -ldl
start=$(date +%s)
cd "$work/k"
ls > "$work/all"
split -l 1000 "$work/all" "$work/chunk."
: > "$work/out"; : > "$work/ended"
for chunk in "$work"/chunk.*; do
  mapfile -t rest < "$chunk"
  while [ ${#rest[@]} -gt 0 ]; do
    : > "$work/part"
    [ ${#rest[@]} -eq 1 ] && echo "== ${rest[0]}" > "$work/part"  # ptxrun names its tests only when given several
    LD_LIBRARY_PATH="$dist/lib" "$work/ptxrun" "${rest[@]}" >> "$work/part" 2> "$work/err" || true
    cat "$work/part" >> "$work/out"
    last=$(grep '^== ' "$work/part" | tail -1 | cut -c4-)
    [ "$last" = "${rest[-1]}" ] && break
    [ -n "$last" ] || last=${rest[0]}  # ended before naming one: skip the first
    { echo "after $last:"; tail -5 "$work/err"; } >> "$work/ended"
    next=(); seen=0
    for d in "${rest[@]}"; do [ $seen = 1 ] && next+=("$d"); [ "$d" = "$last" ] && seen=1; done
    rest=("${next[@]}")
  done
done
echo "fuzz corpus on the host: $n kernels in $(( $(date +%s) - start )) s; processes that ended early: $(grep -c '^after ' "$work/ended" || true)"
head -40 "$work/ended"
cp "$work/out" "${FUZZ_CORPUS_KEEP:-/dev/null}"
python3 "$root/tools/gpu-check/fuzz_corpus.py" check "$root/ptx-tests/src/test/fuzz/nvidia-h100.tsv.gz" \
  "$root/ptx-tests/src/test/fuzz/nvidia-h100-values.txt.gz" "$work/k" "$work/out" > "$work/check" || true
grep -v '^differing: ' "$work/check" | head -60; grep '^differing: ' "$work/check" | cut -c12- | tr ' ' '\n' > "${FUZZ_CORPUS_DIFFERING:-/dev/null}"
