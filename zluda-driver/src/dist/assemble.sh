#!/usr/bin/env bash
# Assembles the ZLUDA-J distribution (run by Maven in zluda-driver's package phase; jars were copied already).
# Usage: assemble.sh DIST DRIVER_JAR REPO_ROOT
set -euo pipefail
dist=$1 jar=$2 root=$3
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
cp "$root/zluda-driver/src/dist/logback.xml" "$dist/conf/logback.xml"
# class-data sharing (issue 21): the classes the driver's start and first calls load, archived by a training run
# with the class path exactly as the shim builds it (every jar of lib/, sorted, by its real path), for the JDK that
# built the shim; the shim maps it where it exists and is valid for the JVM it starts (else the JVM goes on without)
rm -f "$dist/lib/zluda.jsa"
java_bin=${JAVA_HOME:+$JAVA_HOME/bin/}java
lib=$(readlink -f "$dist/lib")
cp=$(ls "$lib"/*.jar | LC_ALL=C sort | tr '\n' ':' | sed 's/:$//')
if ZLUDA_BACKEND=host "$java_bin" -XX:ArchiveClassesAtExit="$lib/zluda.jsa" -XX:+UseSerialGC -Xlog:cds=off -Xlog:cds+dynamic=off \
     -Dzluda.native.dir="$lib" -Dlogback.configurationFile="$dist/conf/logback.xml" -cp "$cp" org.zludaj.driver.CdsTrainMain \
     > /dev/null 2>&1; then
  echo "ZLUDA-J: class-data sharing archive $(du -h "$lib/zluda.jsa" | cut -f1)"
else
  rm -f "$lib/zluda.jsa"; echo "ZLUDA-J: no class-data sharing archive (the training run failed)"
fi
echo "ZLUDA-J distribution: $dist"
