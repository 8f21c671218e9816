#!/usr/bin/env bash
# JMH: PTX front-end throughput (lines/s = JMH ops/s) on one core and on all cores.
# Usage: bench/parse-bench.sh [JMH options]        (builds zluda-ptx's test classes first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mvn -B -q -pl zluda-ptx test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test >/dev/null
cp="zluda-ptx/target/test-classes:zluda-ptx/target/classes:$(cat zluda-ptx/target/bench.cp)"
java -cp "$cp" org.openjdk.jmh.Main org.zludaj.ptx.bench.ParseBenchmark "$@"
echo "one PTX line = 25.5 bytes on average in this corpus: MB/s = lines/s x 25.5 / 1e6"
