# The two set-up commands of the README:
#   make run    installs what is missing, builds, runs the main job
#   make test   installs what is missing, builds, runs every suite that fits in CI
# Other targets: lint, build, build-all, java-deps, java-peers, test-unit, test-asan, test-interop-ci, test-fuzz, test-interop,
# test-web, demo, heavy-deps, bench, clean.

JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 20
VENV := .venv
PY := $(VENV)/bin/python
FLOE := build/release/src/floe/exe/floe

.PHONY: run test deps java-deps java-peers venv heavy-deps build build-all build-asan build-fuzz test-unit test-asan \
        test-interop-ci test-fuzz test-interop test-web demo bench clean lint

deps:
	@scripts/install-deps.sh

java-deps:
	@scripts/install-java.sh

venv: deps
	@scripts/python-env.sh

# The Java peers tests/interop drives (Iceberg Java harness, REST client peer, RCK classpath),
# built into their caches; a no-op when they hold builds of the current sources.
java-peers: venv java-deps
	@$(PY) scripts/build-java-peers.py

# What only the heavy suites need: pyspark (PyPI), the Iceberg Spark runtime jar and Iceberg's
# AWS bundle for Spark on S3 (Maven Central, into the interop cache).
heavy-deps: deps java-deps
	@scripts/python-env.sh tests/interop_heavy/requirements.txt
	@scripts/fetch-spark-runtime.sh >/dev/null
	@scripts/fetch-spark-runtime.sh aws-bundle >/dev/null

build/release/build.ninja: CMakeLists.txt CMakePresets.json | deps
	cmake --preset release >/dev/null

# The product and what the interop suites drive; build-all adds the release unit tests.
build: deps build/release/build.ninja
	cmake --build --preset release -j $(JOBS) --target floe_product

build-all: deps build/release/build.ninja
	cmake --build --preset release -j $(JOBS)

build/asan/build.ninja: CMakeLists.txt CMakePresets.json | deps
	cmake --preset asan >/dev/null

# The asan preset (clang, ASan+UBSan) builds the unit tests and the libFuzzer targets in
# one tree, so CI compiles the code twice (release and sanitized), not three times.
build-asan: deps build/asan/build.ninja
	cmake --build --preset asan -j $(JOBS) --target floe_unit_tests floe_fuzz_targets

build/fuzz/build.ninja: CMakeLists.txt CMakePresets.json | deps
	cmake --preset fuzz >/dev/null

build-fuzz: deps build/fuzz/build.ninja
	cmake --build --preset fuzz -j $(JOBS)

# The checks that need no build: formatting (the tree's .clang-format), the module
# dependencies docs/ARCHITECTURE.md allows (includes and CMake links), and the module READMEs
# (one per module, naming every header and no header that does not exist).
lint: deps
	@scripts/check-format.sh
	@python3 scripts/check-layers.py
	@python3 scripts/check-readmes.py

run: build
	@scripts/run-main.sh $(FLOE)

test-unit: build-all
	cd build/release && ctest --output-on-failure -j $(JOBS)

test-asan: build-asan
	cd build/asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

test-interop-ci: build venv java-peers
	FLOE_BIN=$(abspath $(FLOE)) $(PY) -m pytest -q -n $(JOBS) tests/interop tests/corrupt tests/security

# The dashboard alone: static files, its API routes and the Playwright browser test (also part
# of test-interop-ci). Screenshots: tests/artifacts/screenshots/.
test-web: build venv
	FLOE_BIN=$(abspath $(FLOE)) $(PY) -m pytest -q tests/interop/test_dashboard.py

# Demo tables for the dashboard, loaded into the server `make run` started (FLOE_URL to change).
demo: venv
	$(PY) scripts/demo-data.py

test-fuzz: build-asan
	@scripts/run-fuzz.sh build/asan/tests/fuzz $(FUZZ_SECONDS)

# The unit tests run once, in the sanitizer tree (ASan + UBSan, -O0): the same assertions
# as the release tree's, which `make test-unit` runs; the -O3 binary is exercised by the
# interop suites. The stages overlap what waits with what computes, for CI's 2 cores: the
# downloads (pip, Maven, apt) and the Java peers' builds run beside the sanitizer compile,
# and the unit tests (which leave a core idle much of the time) beside the release compile.
test:
	@$(MAKE) --no-print-directory lint
	@$(MAKE) --no-print-directory -j 3 build-asan java-peers
	@$(MAKE) --no-print-directory -j 2 test-asan build
	@$(MAKE) --no-print-directory test-interop-ci test-fuzz
	@echo "make test: all suites passed"

# Heavier peer suites (Java/Spark, Kafka brokers): not part of CI's `make test`.
test-interop: build venv java-peers heavy-deps
	FLOE_BIN=$(abspath $(FLOE)) $(PY) -m pytest -q -n $(JOBS) tests/interop tests/corrupt tests/security tests/interop_heavy

bench: build venv java-deps heavy-deps
	FLOE_BIN=$(abspath $(FLOE)) $(PY) bench/run.py
	FLOE_BIN=$(abspath $(FLOE)) $(PY) bench/scan.py
	FLOE_BIN=$(abspath $(FLOE)) $(PY) bench/rest.py
	FLOE_BIN=$(abspath $(FLOE)) $(PY) bench/dashboard.py --browser
	FLOE_BIN=$(abspath $(FLOE)) $(PY) bench/kafka.py
	FLOE_BIN=$(abspath $(FLOE)) $(PY) bench/kafka_group_commit.py
	FLOE_BIN=$(abspath $(FLOE)) $(PY) bench/compaction.py
	FLOE_BIN=$(abspath $(FLOE)) $(PY) bench/s3.py
	FLOE_BIN=$(abspath $(FLOE)) $(PY) bench/scale.py --tables 200 --minutes 15
	FLOE_BIN=$(abspath $(FLOE)) $(PY) bench/scale.py --tables 1000 --minutes 30
	FLOE_BIN=$(abspath $(FLOE)) $(PY) bench/scale.py --tables 1000 --registered 9000 --minutes 10 --no-check

clean:
	rm -rf build
