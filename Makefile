# Thin wrapper: the build is CMake (+ Ninja). `make run` and `make test` do all set-up themselves.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local

.PHONY: all deps configure build run test format install clean bench-lsp

all: build

deps:
	@scripts/setup-deps.sh

$(BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_INSTALL_PREFIX="$(PREFIX)"

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/parlint check fixtures/examples || test $$? -eq 1

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Benchmarks are not part of `make test` (DESIGN §7): each prints its figures.
bench-lsp: build
	PARLINT=$(BUILD)/parlint NODE_PATH=$(BUILD)/test-tools/node_modules node tests/bench/lsp_latency.js

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

install: build
	cmake --install "$(BUILD)" --prefix "$(PREFIX)" --strip

clean:
	rm -rf $(BUILD)
