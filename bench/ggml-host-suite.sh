#!/usr/bin/env bash
# ggml's whole test-backend-ops `test` mode through ZLUDA-J's host backend (issue 18: the benchmark of pass count and
# time): one process per op, so an op that aborts loses only its own cases, then a table: cases passed, failed, not
# run (a process that ended early), seconds, per op, and the totals.
# Usage: bench/ggml-host-suite.sh OUT_DIR [--only OP,OP..] [--skip OP,OP..] [--timeout S]
#   uses ../shared/ggml/host (GGML_HOST overrides: a folder with bin/test-backend-ops and lib/) and this build's dist;
#   the environment passes through (ZLUDA_HOST_WMMA for the AMD lowering's emulation, LD_PRELOAD of
#   ptx-tests/src/test/c/ggml_use_mmq.c for llama.cpp's default build, ZLUDA_CACHE_DIR).
# OUT_DIR/OP.log: each op's output; OUT_DIR/summary.md: the table. Run from a copy of dist (cp -r dist /tmp/d;
# ZLUDA_DIST=/tmp/d) when the tree may be rebuilt meanwhile: the whole run takes hours on 2 cores.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: bench/ggml-host-suite.sh OUT_DIR [--only OPS] [--skip OPS] [--timeout S]}; shift
only="" skip="" limit=3600
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=$2; shift 2 ;;
    --skip) skip=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dist=${ZLUDA_DIST:-$root/dist}
ggml=${GGML_HOST:-$root/../shared/ggml/host}
[ -x "$dist/bin/zluda" ] || { echo "build first: mvn -B install -DskipTests" >&2; exit 2; }
[ -x "$ggml/bin/test-backend-ops" ] || { echo "no ggml host build at $ggml (../shared/ggml/README.md)" >&2; exit 2; }
cudart=$(dirname "$(ls /usr/local/cuda*/targets/x86_64-linux/lib/libcudart.so.13 /usr/local/cuda/lib64/libcudart.so.13 2>/dev/null | head -1)")
export LD_LIBRARY_PATH=$ggml/lib:$cudart:$dist/lib
mkdir -p "$out"
run() { timeout -k 5 "$limit" "$dist/bin/zluda" run -- "$ggml/bin/test-backend-ops" "$@"; }
if [ -n "$only" ]; then ops=${only//,/ }
else ops=$(run --list-ops 2>/dev/null | sed -n 's/^  \([A-Z0-9_]*\)$/\1/p'); fi
[ -n "$ops" ] || { echo "test-backend-ops --list-ops listed no op" >&2; exit 1; }
t0=$(date +%s) n_ok=0 n_fail=0 n_ops=0 bad_ops=""
{ echo "test-backend-ops test -b CUDA0, host backend, ZLUDA_HOST_WMMA=${ZLUDA_HOST_WMMA:-} LD_PRELOAD=${LD_PRELOAD:-}, $(date -u +%F), $(nproc) cores"
  echo
  echo "| op | passed | failed | of | s | ended |"
  echo "| --- | --- | --- | --- | --- | --- |"; } > "$out/summary.md"
for op in $ops; do
  case ",$skip," in *",$op,"*) continue ;; esac
  a=$(date +%s)
  run test -b CUDA0 -o "$op" > "$out/$op.log" 2>&1
  rc=$?
  ok=$(grep -ac '^  [A-Z0-9_]*(.*): .*OK' "$out/$op.log")
  fail=$(grep -ac '^  [A-Z0-9_]*(.*): .*FAIL' "$out/$op.log")
  of=$(grep -ao '[0-9]*/[0-9]* tests passed' "$out/$op.log" | head -1 | sed 's|.*/||; s| .*||')
  if [ -n "$of" ]; then ended="exit $rc"; else ended="**early, exit $rc**"; of="?"; bad_ops="$bad_ops $op"; fi
  [ "$fail" -eq 0 ] || bad_ops="$bad_ops $op"
  n_ok=$((n_ok + ok)) n_fail=$((n_fail + fail)) n_ops=$((n_ops + 1))
  echo "| $op | $ok | $fail | $of | $(( $(date +%s) - a )) | $ended |" >> "$out/summary.md"
done
{ echo
  echo "$n_ops ops: $n_ok cases passed, $n_fail failed, in $(( $(date +%s) - t0 )) s.${bad_ops:+ Failed or ended early:$bad_ops}"; } >> "$out/summary.md"
tail -1 "$out/summary.md"
[ -z "$bad_ops" ]
