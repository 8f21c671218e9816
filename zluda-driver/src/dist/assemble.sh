#!/usr/bin/env bash
# Assembles the ZLUDA-J distribution (run by Maven in zluda-driver's package phase; jars were copied already).
# Usage: assemble.sh DIST DRIVER_JAR REPO_ROOT
set -euo pipefail
dist=$1 jar=$2 root=$3
mkdir -p "$dist/lib" "$dist/bin" "$dist/conf"
cp "$jar" "$dist/lib/"
cp "$root/zluda-native/target/native/libcuda.so.1" "$root/zluda-native/target/native/libzluda_rt.so" "$dist/lib/"
ln -sf libcuda.so.1 "$dist/lib/libcuda.so"
cp "$root/zluda-ld/target/libzluda_ld.so" "$dist/lib/"
cp "$root/zluda-driver/src/dist/zluda" "$dist/bin/zluda"
chmod +x "$dist/bin/zluda"
cp "$root/zluda-driver/src/dist/logback.xml" "$dist/conf/logback.xml"
echo "ZLUDA-J distribution: $dist"
