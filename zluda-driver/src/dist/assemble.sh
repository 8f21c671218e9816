#!/usr/bin/env bash
# Assembles the ZLUDA-J distribution (run by Maven in zluda-driver's package phase; jars were copied already).
# Usage: assemble.sh DIST DRIVER_JAR REPO_ROOT JAVA_HOME
set -euo pipefail
dist=$1 jar=$2 root=$3 java_home=$4
mkdir -p "$dist/lib" "$dist/bin" "$dist/conf"
cp "$jar" "$dist/lib/"
cp "$root/zluda-native/target/native/libcuda.so.1" "$root/zluda-native/target/native/libzluda_rt.so" \
   "$root/zluda-native/target/native/libzluda_nvfwd.so" "$dist/lib/"
ln -sf libcuda.so.1 "$dist/lib/libcuda.so"
# our cuBLAS and cuBLASLt, for CUDA 13 and CUDA 12 applications (the LD_AUDIT library redirects them like libcuda)
for so in libcublas.so.13 libcublas.so.12 libcublasLt.so.13 libcublasLt.so.12; do
    cp "$root/zluda-native/target/native/$so" "$dist/lib/"
done
ln -sf libcublas.so.13 "$dist/lib/libcublas.so"
ln -sf libcublasLt.so.13 "$dist/lib/libcublasLt.so"
cp "$root/zluda-ld/target/libzluda_ld.so" "$dist/lib/"
cp "$root/zluda-driver/src/dist/zluda" "$dist/bin/zluda"
chmod +x "$dist/bin/zluda"
rm -f "$dist/conf/logback.xml"  # logging is set up in code (org.zludaj.driver.LogConfigurator)
# start-up archive (issue 21): the classes the driver's start and first calls load, archived by a training run for
# the JDK that built the shim (its java.home, recorded in conf/java-home for 'zluda archive'); the shim maps it where
# it exists and is valid for the JVM it starts (else the JVM goes on without)
echo "$java_home" > "$dist/conf/java-home"
rm -f "$dist/lib/zluda.jsa" "$dist/lib/zluda.aot"
ZLUDA_BACKEND=host ZLUDA_JAVA_HOME="$java_home" "$dist/bin/zluda" archive || true
echo "ZLUDA-J distribution: $dist"
