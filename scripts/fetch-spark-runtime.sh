#!/usr/bin/env bash
# Puts a jar the Spark suites of tests/interop_heavy run pyspark with into the interop cache
# ($FLOE_INTEROP_CACHE, default ~/.cache/floe-interop/spark/) and prints its path:
#   scripts/fetch-spark-runtime.sh              Iceberg's Spark runtime (test_spark_rest.py)
#   scripts/fetch-spark-runtime.sh aws-bundle   Iceberg's AWS bundle (the AWS SDK v2 that the
#                                               runtime's S3FileIO needs; test_s3_spark.py)
# Maven resolves it from Maven Central (checksums verified, ~/.m2 reused). Idempotent: a jar
# already in the cache is not fetched again. Needs mvn (scripts/install-java.sh).
set -euo pipefail

ICEBERG_VERSION="${ICEBERG_SPARK_VERSION:-1.12.0}"
case "${1:-runtime}" in
  runtime) ARTIFACT="iceberg-spark-runtime-3.5_2.12" ;;
  # Same version as the runtime: the runtime's iceberg-aws classes call into the bundle.
  aws-bundle) ARTIFACT="iceberg-aws-bundle" ;;
  *) echo "usage: $0 [runtime|aws-bundle]" >&2; exit 2 ;;
esac

cache="${FLOE_INTEROP_CACHE:-$HOME/.cache/floe-interop}/spark"
jar="$cache/$ARTIFACT-$ICEBERG_VERSION.jar"
if [ -s "$jar" ]; then
  echo "$jar"
  exit 0
fi
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ ! -s "$jar" ]; then
  tmp="$(mktemp -d "$cache/.fetch.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact="org.apache.iceberg:$ARTIFACT:$ICEBERG_VERSION:jar" \
    -DoutputDirectory="$tmp" -Dmdep.overWriteIfNewer=true >&2
  mv "$tmp/$ARTIFACT-$ICEBERG_VERSION.jar" "$jar"
fi
echo "$jar"
