# Thin wrapper: the build is CMake (+ Ninja). `make run` and `make test` do all set-up themselves.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local

.PHONY: docs test-fresh-machine all deps deps-test deps-bench build-types configure configure-test build build-test run test format install package clean bench bench-lsp test-sanitize fuzz-smoke fuzz sanitize-build \
	update-settings update-slurm-options update-nemo-recipes update-bridge-recipes update-knowledge update-link-order tsan-build test-tsan corpus-triage corpus-fix

all: build

# Set-up installs only what the target needs: building parlint (deps), or that plus the test suite's
# programs (deps-test) or the benchmark's (deps-bench). See scripts/setup-deps.sh.
deps:
	@scripts/setup-deps.sh build
deps-test:
	@scripts/setup-deps.sh test
deps-bench:
	@scripts/setup-deps.sh bench

# A first configure leaves the test suite out (it needs GoogleTest); `make test` turns it on.
$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_INSTALL_PREFIX="$(PREFIX)" -DPARLINT_BUILD_TESTS=OFF

# The standard CMake builds a user or packager makes (Release, RelWithDebInfo; GCC and clang), each with
# warnings as errors, so that no warning reaches a user's build first: CI runs this. The binary only:
# the tests' own code is compiled with warnings as errors by make test (GCC) and make test-sanitize (clang).
BUILD_TYPES_DIR ?= build-types
build-types: deps-test
	cmake -S . -B $(BUILD_TYPES_DIR)/gcc-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARLINT_WERROR=ON \
	  -DPARLINT_BUILD_TESTS=OFF >/dev/null
	cmake --build $(BUILD_TYPES_DIR)/gcc-release --target parlint -j $(JOBS)
	CC=clang CXX=clang++ cmake -S . -B $(BUILD_TYPES_DIR)/clang-relwithdebinfo -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPARLINT_WERROR=ON -DPARLINT_BUILD_TESTS=OFF >/dev/null
	cmake --build $(BUILD_TYPES_DIR)/clang-relwithdebinfo --target parlint -j $(JOBS)

configure: deps $(BUILD)/build.ninja

# The parlint binary only: what `make run`, `make install` and `make package` need.
build: configure
	cmake --build $(BUILD) --target parlint -j $(JOBS)

run: build
	$(BUILD)/parlint check fixtures/examples || test $$? -eq 1

# The test suite is the developers' and CI's build: warnings are errors there (PARLINT_WERROR), not in
# the build `make run` makes for a user.
configure-test: deps-test $(BUILD)/build.ninja
	cmake -S . -B $(BUILD) -DPARLINT_BUILD_TESTS=ON -DPARLINT_WERROR=ON >/dev/null

build-test: configure-test
	cmake --build $(BUILD) -j $(JOBS)

test: build-test
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The generated documentation: the rule reference, and docs/found-in-the-wild.md, which needs the
# repositories (WILD holds scripts/corpus_triage.py's arguments for them: --corpus DIR --bridge DIR --set
# NAME=DIR:FOLDERS ..., see tests/corpus/tuned.tsv and untuned.tsv; MIRRORS, the fetched mirrors, adds
# what upstream has done since). The page is not written when a finding it lists is no longer reported.
docs: build
	$(BUILD)/parlint rules --format markdown > docs/rules.md
	@if [ -n "$(WILD)" ]; then \
	  python3 scripts/found_in_the_wild.py --parlint $(BUILD)/parlint $(WILD) $(if $(MIRRORS),--mirrors $(MIRRORS)); \
	else \
	  echo "make docs: docs/found-in-the-wild.md kept as it is (WILD=... names the repositories)"; \
	fi

# The README's set-up on a fresh Debian 12 root (debootstrap + chroot; needs root and a Debian mirror,
# about 20 minutes on two cores): make run and make test as a new user runs them. Not part of make test.
test-fresh-machine:
	tests/fresh_machine.sh

# AddressSanitizer + UndefinedBehaviorSanitizer build with clang and libFuzzer coverage: the unit,
# fixture and command-line suites run in it, and so do the fuzz targets.
# The clang builds (sanitizers, ThreadSanitizer) leave precompiled headers off: they were measured and
# tuned with GCC only, and these builds check the code rather than what users wait for. The sanitizer
# build keeps the unity build (it compiles every target, the longest step of CI); the ThreadSanitizer
# build compiles parlint's files one by one, which proves that each includes what it uses.
SAN_BUILD ?= build-sanitize
FUZZ_SECONDS ?= 600

sanitize-build: deps-test
	CC=clang CXX=clang++ cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g1" \
	  -DCMAKE_C_FLAGS="-O1 -g1" \
	  -DPARLINT_FUZZ=ON -DPARLINT_INTEGRATION_TESTS=OFF -DPARLINT_WERROR=OFF -DPARLINT_PCH=OFF
	cmake --build $(SAN_BUILD) -j $(JOBS)

test-sanitize: sanitize-build
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(SAN_BUILD) --output-on-failure -j $(JOBS)

fuzz-smoke: sanitize-build
	scripts/fuzz.sh $(SAN_BUILD) 30

fuzz: sanitize-build
	scripts/fuzz.sh $(SAN_BUILD) $(FUZZ_SECONDS)

# ThreadSanitizer build with clang: only the parlint binary, and only the language server's tests run
# in it (the one part of parlint with threads). A reported race stops the server, so the test fails.
# The client test takes its npm libraries from the main build's folder.
TSAN_BUILD ?= build-tsan
TSAN_OPTIONS ?= halt_on_error=1 second_deadlock_stack=1

tsan-build: deps-test
	CC=clang CXX=clang++ cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g1" \
	  -DCMAKE_C_FLAGS="-O1 -g1" \
	  -DPARLINT_TSAN=ON -DPARLINT_BUILD_TESTS=OFF -DPARLINT_WERROR=OFF -DPARLINT_PCH=OFF -DPARLINT_UNITY=OFF
	cmake --build $(TSAN_BUILD) --target parlint -j $(JOBS)

test-tsan: build-test tsan-build
	TSAN_OPTIONS="$(TSAN_OPTIONS)" PARLINT=$(TSAN_BUILD)/parlint python3 tests/lsp/stress_test.py
	TSAN_OPTIONS="$(TSAN_OPTIONS)" PARLINT=$(TSAN_BUILD)/parlint NODE_PATH=$(BUILD)/test-tools/node_modules \
	  node --test --test-force-exit tests/lsp/client_test.js

# Benchmarks are not part of `make test` (DESIGN §7): each prints its figures.
BENCH_CORPUS ?= $(BUILD)/bench-corpus
BENCH_FILES ?= 2000

$(BENCH_CORPUS)/.done: tests/bench/gen_corpus.py
	rm -rf $(BENCH_CORPUS)
	python3 tests/bench/gen_corpus.py $(BENCH_CORPUS) --files $(BENCH_FILES) --seed 1
	touch $@

# The real-world corpus the comparisons also run on, read where it is (its files belong to their authors:
# never copied into the repository); ../shared/corpus/build writes it. Empty: compare.py's default,
# ~/.cache/parlint-corpus-public, skipped with a note on how to build it when it does not exist.
REAL_CORPUS ?=
bench: deps-bench build $(BENCH_CORPUS)/.done
	cmake -S . -B $(BUILD) >/dev/null  # finds Google Benchmark if deps-bench just installed it
	cmake --build $(BUILD) --target parlint_bench parlint_parse_floor -j $(JOBS)
	PARLINT_BENCH_CORPUS=$(BENCH_CORPUS) $(BUILD)/parlint_bench --benchmark_min_time=1
	python3 tests/bench/compare.py --parlint $(BUILD)/parlint --floor $(BUILD)/parlint_parse_floor \
	  --corpus $(BENCH_CORPUS) $(if $(REAL_CORPUS),--real-corpus $(REAL_CORPUS))
# cmake/link_order.txt, the functions a typical run executes, which the static link places together
# (PARLINT_LINK_ORDER): from callgrind runs of the binary. Committed; a stale list costs start-up time only.
update-link-order: deps-bench build
	python3 scripts/gen_link_order.py --parlint $(BUILD)/parlint

bench-lsp: build-test
	PARLINT=$(BUILD)/parlint NODE_PATH=$(BUILD)/test-tools/node_modules node tests/bench/lsp_latency.js

# PL801's catalogue of real setting names (rules/data/settings_catalogue.tsv), regenerated from the framework
# sources; the TSV is committed, so this runs only when a framework is re-pinned. Each path is a bare git
# mirror (read at its HEAD) or a checkout (its work tree and HEAD commit). Override any of them, e.g.
#   make update-settings MEGATRON_LM=~/src/Megatron-LM
# MIRRORS is the folder of the workplace mirrors (<owner>+<name>/repo) the defaults point into.
MIRRORS ?= /work/.mirror
MEGATRON_LM ?= $(MIRRORS)/NVIDIA+Megatron-LM/repo
MEGATRON_BRIDGE ?= $(MIRRORS)/NVIDIA-NeMo+Megatron-Bridge/repo
NEMO ?= $(MIRRORS)/NVIDIA+NeMo/repo
NEMO_LAUNCHER ?= $(MIRRORS)/NVIDIA+NeMo-Framework-Launcher/repo
MEGATRON_DEEPSPEED ?= $(MIRRORS)/microsoft+Megatron-DeepSpeed/repo
GPT_NEOX ?= $(MIRRORS)/EleutherAI+gpt-neox/repo
VERL ?= $(MIRRORS)/volcengine+verl/repo
NEMO_RL ?= $(MIRRORS)/NVIDIA-NeMo+RL/repo
FLAGSCALE ?= $(MIRRORS)/FlagOpen+FlagScale/repo
SETTINGS_CATALOGUE ?= rules/data/settings_catalogue.tsv

update-settings:
	python3 scripts/gen_settings_catalogue.py --megatron-lm "$(MEGATRON_LM)" --megatron-bridge "$(MEGATRON_BRIDGE)" \
	  --nemo "$(NEMO)" --nemo-launcher "$(NEMO_LAUNCHER)" --megatron-deepspeed "$(MEGATRON_DEEPSPEED)" \
	  --gpt-neox "$(GPT_NEOX)" --verl "$(VERL)" --nemo-rl "$(NEMO_RL)" --flagscale "$(FLAGSCALE)" \
	  --out "$(SETTINGS_CATALOGUE)"
	PARLINT_SETTINGS_CATALOGUE="$(SETTINGS_CATALOGUE)" python3 -m unittest tests/test_settings_catalogue.py

# The srun/sbatch/salloc option table (which options take a value), from the man pages of Debian's
# slurm-client: downloaded (no root needed), read, and thrown away.
# The NeMo 2 recipe table, read from a NeMo checkout by parlint itself (so build first).
# Twice: recipes built on other library recipes are read through the table of the previous pass.
update-nemo-recipes:
	for pass in 1 2; do \
	  $(MAKE) build && \
	  python3 scripts/gen_nemo_recipes.py --nemo "$(NEMO)" --parlint "$(BUILD)/parlint" \
	    > rules/data/nemo_recipes.yaml.new && \
	  mv rules/data/nemo_recipes.yaml.new rules/data/nemo_recipes.yaml || exit 1; \
	done

# The Megatron-Bridge recipe table (every library and perf recipe), read the same way. Recipes built on
# other library recipes are read through the previous pass's table: passes repeat until the table stops
# changing (a fixed point in three at most), so a rerun on the same commit reproduces it byte for byte.
update-bridge-recipes:
	for pass in 1 2 3; do \
	  $(MAKE) build && \
	  python3 scripts/gen_bridge_recipes.py --bridge "$(MEGATRON_BRIDGE)" --parlint "$(BUILD)/parlint" \
	    > rules/data/bridge_recipes.yaml.new || exit 1; \
	  if cmp -s rules/data/bridge_recipes.yaml.new rules/data/bridge_recipes.yaml; then \
	    rm rules/data/bridge_recipes.yaml.new; exit 0; fi; \
	  mv rules/data/bridge_recipes.yaml.new rules/data/bridge_recipes.yaml; \
	done; echo "update-bridge-recipes: the table still changes after 3 passes" >&2; exit 1

# Everything parlint knows from the frameworks' sources, regenerated when they are re-pinned:
#   make update-knowledge MEGATRON_BRIDGE=~/src/Megatron-Bridge MEGATRON_LM=~/src/Megatron-LM NEMO=~/src/NeMo
# (the other framework paths of update-settings keep their defaults). Each table cites file:line@commit;
# a rerun on the same commits reproduces them byte for byte.
update-knowledge: update-settings update-nemo-recipes update-bridge-recipes

update-slurm-options:
	rm -rf "$(BUILD)/slurm-client" && mkdir -p "$(BUILD)/slurm-client"
	cd "$(BUILD)/slurm-client" && apt-get download slurm-client && dpkg-deb -x slurm-client_*.deb root
	python3 scripts/gen_slurm_options.py "$(BUILD)/slurm-client/root/usr/share/man/man1" \
	  "$$(cd "$(BUILD)/slurm-client" && ls slurm-client_*.deb | sed 's/_amd64.deb//; s/_/ /')" \
	  > parsers/args/slurm_option_table.inc

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

install: build
	cmake --install "$(BUILD)" --prefix "$(PREFIX)" --strip

# The release artifacts in $(BUILD)/dist: parlint_X.Y.Z_amd64.deb (CPack), the wheel, the tarball and
# SHA256SUMS (scripts/package.py). Builds the parlint binary and its generated man page and completions,
# not the tests. PACKAGE_TAG (the release workflow passes the git tag) must then be v<version>.
package: configure
	cmake --build $(BUILD) -j $(JOBS) --target parlint parlint_cli_docs parlint_deb_files
	python3 scripts/package.py --build-dir $(BUILD) --out-dir $(BUILD)/dist $(if $(PACKAGE_TAG),--tag "$(PACKAGE_TAG)")

clean:
	rm -rf $(BUILD)

# Real-repository triage (not part of make test: it needs the corpus, built from mirrors by
# ../shared/corpus/build, and optionally a Megatron-Bridge checkout):
#   make corpus-triage CORPUS=/work/corpus BRIDGE=/path/to/Megatron-Bridge TRIAGE_SETS="slime=/tmp/slime:scripts,examples"
# (each extra set a `git archive` of a repository at the commit the triage's header names)
CORPUS ?= ../corpus
BRIDGE ?=
TRIAGE_SETS ?=
corpus-triage: build
	python3 scripts/corpus_triage.py --parlint $(BUILD)/parlint --corpus "$(CORPUS)" $(if $(BRIDGE),--bridge "$(BRIDGE)") \
	  $(foreach s,$(TRIAGE_SETS),--set "$(s)")

# --fix (and --fix --unsafe-fixes) on a copy of the corpus: every changed file must still parse.
corpus-fix: build
	python3 scripts/corpus_fix.py --parlint $(BUILD)/parlint --corpus "$(CORPUS)"
	python3 scripts/corpus_fix.py --parlint $(BUILD)/parlint --corpus "$(CORPUS)" --unsafe-fixes
