#!/usr/bin/env bash
# Runs ZLUDA-J's NVPTX output of every ptx-tests kernel on an NVIDIA GPU (before the cuda backend exists):
#   1. here:  ptx-tests/nvptx-check.sh prepare      compiles each test for sm_90 into .device-carry/nv/
#   2. GPU:   bash .device-carry/run.sh              (device tool, carry .device-carry) writes $OUT/r/nvptx_results.txt
#   3. here:  ptx-tests/nvptx-check.sh compare FILE  compares those results with NVIDIA's expected.txt
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tests=$root/ptx-tests/src/test/ptx
case "${1:-}" in
  prepare)
    carry=$root/.device-carry
    rm -rf "$carry" && mkdir -p "$carry/nv"
    names=$(cd "$tests" && ls -d */ | tr -d /)
    (cd "$tests" && "$root/dist/bin/zluda" compile $(for n in $names; do echo "$n/kernel.ptx"; done) --target sm_90 --suffix .sm_90.ptx) || true
    for n in $names; do
      if [ -f "$tests/$n/kernel.ptx.sm_90.ptx" ]; then
        mkdir -p "$carry/nv/$n"
        mv "$tests/$n/kernel.ptx.sm_90.ptx" "$carry/nv/$n/kernel.ptx"
        cp "$tests/$n/test.txt" "$carry/nv/$n/"
      fi
    done
    cp "$root/ptx-tests/src/test/c/ptxrun.c" "$carry/"
    printf '%s\n' 'set -e; cd "$(dirname "$0")"; gcc -O1 -o /tmp/ptxrun ptxrun.c -ldl; mkdir -p $OUT/r' \
      'for d in nv/*; do echo "== $d"; timeout 60 /tmp/ptxrun "$d" 2>&1; done > $OUT/r/nvptx_results.txt || true' > "$carry/run.sh"
    echo "prepared $(ls "$carry/nv" | wc -l) tests in $carry"
    ;;
  compare)
    python3 "$root/ptx-tests/compare-results.py" "$tests" "$2"
    ;;
  *) sed -n '2,5p' "$0"; exit 2 ;;
esac
