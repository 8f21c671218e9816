#!/usr/bin/env bash
# Compile speed (issue 20): compiles every kernel of ggml's CUDA backend (libggml-cuda.so from ../shared/ggml, or
# the files/folders given) for gfx1100, gfx1030, sm_90 and host, without the compile cache, all modules at once on all
# cores, and prints per module and in total the CPU seconds and the slowest kernel beside NVIDIA's `ptxas -arch=sm_90 -O3`
# CPU seconds on the same PTX (run alongside), the whole run's wall time, the time of each
# stage, the slowest kernels and (--time-passes N) LLVM's per-pass code-generation time of the N slowest per target.
# Usage: bench/ggml-compile-bench.sh [FILES|DIRS...] [--targets gfx1100,sm_90] [--modules REGEX] [--kernels REGEX]
#        [--threads N] [--top N] [--time-passes N] [--ptxas PATH|off] [--llvm "-time-passes"]
# The whole of ggml takes hours on 2 cores today; --modules narrows it (e.g. --modules 'so.0.97.0$' with extracted PTX).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -d dist/lib ] || { echo "build first: mvn -B install -DskipTests" >&2; exit 2; }
args=("$@")
if [ $# -eq 0 ] || [[ "$1" == --* ]]; then
  lib=../shared/ggml/host/lib/libggml-cuda.so.0
  [ -f "$lib" ] || { echo "ggml-compile-bench: no $lib (../shared/ggml) and no input given" >&2; exit 2; }
  args=("$lib" "$@")
fi
java_bin=${ZLUDA_JAVA_HOME:-${JAVA_HOME:-}}
java_bin=${java_bin:+$java_bin/bin/}java
exec "$java_bin" -Xss8m -cp "dist/lib/*" -Dzluda.native.dir="$root/dist/lib" \
  org.zludaj.driver.CompileBenchMain "${args[@]}"
