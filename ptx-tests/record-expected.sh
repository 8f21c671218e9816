#!/usr/bin/env bash
# Records NVIDIA's results for every ptx-tests folder: runs src/test/c/ptxrun.c against NVIDIA's libcuda.so.1 on a
# machine with an NVIDIA GPU and writes OUT_DIR/expected.tgz (one NAME/expected.txt per test). Unpack it into
# src/test/ptx/ and commit. Usage: ptx-tests/record-expected.sh OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
work=$(mktemp -d)
gcc -O1 -o "$work/ptxrun" "$here/src/test/c/ptxrun.c" -ldl
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$work/gpu.txt" || true
mkdir -p "$work/expected"
ok=0 bad=0
for d in "$here"/src/test/ptx/*/; do
    name=$(basename "$d")
    mkdir -p "$work/expected/$name"
    if "$work/ptxrun" "$d" > "$work/expected/$name/expected.txt" 2> "$work/expected/$name/stderr.txt"; then
        ok=$((ok + 1))
    else
        bad=$((bad + 1)); echo "FAILED on NVIDIA: $name: $(head -c 400 "$work/expected/$name/expected.txt")"
    fi
    rm -f "$work/expected/$name/stderr.txt"
done
cp "$work/gpu.txt" "$work/expected/GPU.txt"
tar czf "$out/expected.tgz" -C "$work/expected" .
echo "recorded on $(cat "$work/gpu.txt"): $ok ok, $bad failed"
