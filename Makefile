# Thin wrapper over CMake. `make test` and `make demo` install missing build
# dependencies first (apt-get, when run as root on Debian/Ubuntu).
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
# make fuzz: seconds per target, a fresh random seed each run. make test
# runs each for TEST_FUZZ_RUNS inputs from seed TEST_FUZZ_SEED (the same
# inputs on every machine), TEST_FUZZ_SECONDS at most.
FUZZ_SECONDS      ?= 300
TEST_FUZZ_SECONDS ?= 180
TEST_FUZZ_RUNS    ?= 20000
TEST_FUZZ_SEED    ?= 1
FUZZ_TARGETS      ?= parse compile exe cache
CLANG      ?= clang
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
GENERATOR  := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

.PHONY: all build deps configure test test-fast test-asan test-tsan test-tsan-if-clang fuzz-build \
        fuzz test-fuzz test-fuzz-if-clang demo bench install golden-update clean format

all: build

deps:
	@sh tools/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite, then the whole suite again under ASan+UBSan, then (where
# clang and its sanitizer runtimes are installed) the threaded tests under
# TSan and every fuzz target for TEST_FUZZ_RUNS inputs (docs/fuzzing.md).
test: deps
	$(MAKE) test-fast
	$(MAKE) test-asan
	$(MAKE) test-tsan-if-clang
	$(MAKE) test-fuzz-if-clang

test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan:
	cmake -S . -B $(ASAN_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DTIRX_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)

# The threaded tests (tests/threads) built with clang -fsanitize=thread;
# a TSan report fails them.
test-tsan:
	cmake -S . -B $(TSAN_BUILD) $(GENERATOR) -DCMAKE_C_COMPILER=$(CLANG) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTIRX_TSAN=ON
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target test_threads fake_cuda
	cd $(TSAN_BUILD) && ctest --output-on-failure -L threads

test-tsan-if-clang:
	@if sh tools/clang-sanitizers.sh $(CLANG) thread; then $(MAKE) test-tsan; \
	else echo "test-tsan: skipped: no clang with ThreadSanitizer (install clang, libclang-rt-14-dev)"; fi

# The libFuzzer targets of tests/fuzz against a library built with coverage,
# ASan and UBSan; make fuzz runs each FUZZ_SECONDS (FUZZ_TARGETS to choose).
fuzz-build:
	cmake -S . -B $(FUZZ_BUILD) $(GENERATOR) -DCMAKE_C_COMPILER=$(CLANG) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTIRX_FUZZ=ON -DTIRX_BUILD_TESTS=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_all

fuzz: fuzz-build
	sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

test-fuzz: fuzz-build
	FUZZ_RUNS=$(TEST_FUZZ_RUNS) FUZZ_SEED=$(TEST_FUZZ_SEED) \
	  sh tests/fuzz/run.sh $(FUZZ_BUILD) $(TEST_FUZZ_SECONDS) $(FUZZ_TARGETS)

test-fuzz-if-clang:
	@if sh tools/clang-sanitizers.sh $(CLANG) fuzzer; then $(MAKE) test-fuzz; \
	else echo "test-fuzz: skipped: no clang/libFuzzer (install clang, libclang-rt-14-dev)"; fi

demo: deps build
	@sh tools/demo.sh $(BUILD)/bin/tirxc

bench: deps build
	@sh bench/run.sh $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# Rewrite every golden expectation from the current compiler; review the diff.
golden-update: build
	$(BUILD)/bin/tirxc golden --update tests/golden/parse
	$(BUILD)/bin/tirxc golden --update tests/golden/errors
	$(BUILD)/bin/tirxc golden --update tests/golden/diagnostics

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
