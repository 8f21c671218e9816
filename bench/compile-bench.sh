#!/usr/bin/env bash
# JMH: compile time per kernel for each target (host, gfx1100, sm_90) and size (1,000 / 5,000 / 20,000 instructions).
# ms per 1,000 PTX lines = score / (instructions / 1000). Usage: bench/compile-bench.sh [JMH options]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mvn -B -q -pl zluda-ptx test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test >/dev/null
cp="zluda-ptx/target/test-classes:zluda-ptx/target/classes:$(cat zluda-ptx/target/bench.cp)"
java -cp "$cp" org.openjdk.jmh.Main org.zludaj.ptx.bench.CompileBenchmark "$@"
