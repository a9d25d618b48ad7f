# The commands of the README and of CI, and the steps they share.
#   make demo   install missing Debian packages, build the CLI, run the main job on the CPU
#   make test   the same set-up, build everything, then every test
#   make tsan   the concurrency and SQLite store tests under ThreadSanitizer (tests/tsan)
#   make install   the build under PREFIX (default /usr/local; cmake --install)
#   make package   a .deb of the same (cpack -G DEB), in the build folder
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local

.PHONY: all deps configure build demo test tsan install package bench clean

all: build

deps:
	@scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The demo needs the CLI alone; `make test` builds the tests and benchmarks too (in a fresh
# clone they are a sixth of the compile time: bench/results/2026-11-25-build-time.md).
demo: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target gemmtune_cli
	@$(BUILD_DIR)/bin/gemmtune demo --device cpu

test: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# Builds the library once more with -fsanitize=thread (around the kernel objects `make build`
# already compiled) and runs the two tests that look for data races.
tsan: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target tsan_tests

install: build
	@cmake --install $(BUILD_DIR) --prefix $(PREFIX)

package: build
	@cd $(BUILD_DIR) && cpack -G DEB

clean:
	rm -rf $(BUILD_DIR)
