#!/bin/sh
# Regenerates testdata/java/*.metadata.json with Iceberg Java 1.10.1 (jars from ~/.m2; run
# `mvn dependency:get -Dartifact=org.apache.iceberg:iceberg-core:1.10.1` once if missing).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
m2=${M2_REPO:-$HOME/.m2/repository}
cp="$m2/org/apache/iceberg/iceberg-core/1.10.1/iceberg-core-1.10.1.jar"
cp="$cp:$m2/org/apache/iceberg/iceberg-api/1.10.1/iceberg-api-1.10.1.jar"
cp="$cp:$m2/org/apache/iceberg/iceberg-common/1.10.1/iceberg-common-1.10.1.jar"
cp="$cp:$m2/org/apache/iceberg/iceberg-bundled-guava/1.10.1/iceberg-bundled-guava-1.10.1.jar"
for j in jackson-core jackson-databind; do
  cp="$cp:$m2/com/fasterxml/jackson/core/$j/2.19.2/$j-2.19.2.jar"
done
cp="$cp:$m2/com/fasterxml/jackson/core/jackson-annotations/2.19.2/jackson-annotations-2.19.2.jar"
cp="$cp:$m2/org/slf4j/slf4j-api/2.0.17/slf4j-api-2.0.17.jar"
cp="$cp:$m2/com/github/ben-manes/caffeine/caffeine/2.9.3/caffeine-2.9.3.jar"
cp="$cp:$m2/org/roaringbitmap/RoaringBitmap/1.3.0/RoaringBitmap-1.3.0.jar"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
javac -d "$tmp" -cp "$cp" "$here/java/GenFloeMetadata.java"
java -cp "$tmp:$cp" org.apache.iceberg.GenFloeMetadata "$here/java"
