# The commands of the README and of CI, and the steps they share.
#   make demo   install missing Debian packages, build the CLI, run the main job on the CPU
#   make test   the same set-up, build everything, then every test
#   make tsan   the concurrency and SQLite store tests under ThreadSanitizer (tests/tsan)
#   make install   the build under PREFIX (default /usr/local; cmake --install): for this
#                  machine; CPU_ISAS=all for any x86-64
#   make package   a .deb (cpack -G DEB) in the build folder, with the kernels of every ISA level
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# The ISA levels of the own CPU kernels (cmake/cpu_isas.cmake): native compiles those this
# machine runs, from AVX2 up where it has AVX2 (bench/results/2026-11-28-build-time.md); a
# package for other machines compiles all of them.
CPU_ISAS ?= native
PREFIX ?= /usr/local
# CUTLASS (backend 'cutlass'), which Debian does not package: pass your checkout as CUTLASS_DIR.
# Without one, the headers archive beside the repository (development and CI machines have it)
# is unpacked into the build folder; where there is neither, the family is absent.
CUTLASS_ARCHIVE ?= $(CURDIR)/../shared/third_party/cutlass-4.7.0-headers.tar.xz
CUTLASS_DIR ?= $(if $(wildcard $(CUTLASS_ARCHIVE)),$(abspath $(BUILD_DIR))/_deps/cutlass)

.PHONY: all deps configure build demo test tsan install package bench clean

all: build

deps:
	@scripts/install-deps

configure: deps
	@if [ -n "$(CUTLASS_DIR)" ] && [ ! -f "$(CUTLASS_DIR)/include/cutlass/version.h" ] && [ -f "$(CUTLASS_ARCHIVE)" ]; then \
	  mkdir -p "$(CUTLASS_DIR)" && tar -xJf "$(CUTLASS_ARCHIVE)" -C "$(CUTLASS_DIR)"; fi
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DGEMMTUNE_CUTLASS_DIR=$(CUTLASS_DIR) \
	  -DGEMMTUNE_CPU_ISAS=$(CPU_ISAS) $(CMAKE_FLAGS)

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

package: CPU_ISAS = all
package: build
	@cd $(BUILD_DIR) && cpack -G DEB

clean:
	rm -rf $(BUILD_DIR)
