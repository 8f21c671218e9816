#!/usr/bin/env bash
# Module load time on the host, cold vs warm compile cache, whole module vs compiled on demand, for the largest PTX
# module found under the given folders (default: the PTX that nvcc makes of ptx-tests' CUDA programs, else the
# ptx-tests PTX folders). Prints a table. Usage: bench/module-load-bench.sh [DIR...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mvn -B -q -pl zluda-ptx test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test >/dev/null
cp="zluda-ptx/target/test-classes:zluda-ptx/target/classes:$(cat zluda-ptx/target/bench.cp)"
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  if command -v nvcc >/dev/null; then
    out=$(mktemp -d)
    for cu in ptx-tests/src/test/cuda/*.cu; do nvcc -arch=compute_86 -ptx -o "$out/$(basename "$cu" .cu).ptx" "$cu" 2>/dev/null || true; done
    dirs=("$out")
  else
    dirs=(ptx-tests/src/test/ptx)
  fi
fi
java -cp "$cp" org.zludaj.ptx.bench.ModuleLoadBench "${dirs[@]}"
