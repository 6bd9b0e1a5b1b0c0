# The README's two commands: `make repro` rebuilds every figure and table
# (PROFILE=smoke|quick|full, default quick); `make test` runs the C++ and
# Python test suites. Both set up what they need on a fresh machine.
PROFILE ?= quick
CORES ?= all
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
PY_BUILD := build/py
# Parallel test processes (ctest -j, pytest -n): one per core.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SNAKEMAKE_BASE := $(BIN)/snakemake --cores $(CORES) --resources timed=1 --printshellcmds --rerun-incomplete
SNAKEMAKE := $(SNAKEMAKE_BASE) --configfile config/$(PROFILE).yaml
# One folder per run: results/<profile>, or for a variation of it
# (VARY='key_cache.threads=[1,8] key_cache.rows=4000000') results/<profile>+<settings>;
# results/latest points at the last one. TARGET: one study's name to run it alone.
VARY ?=
TARGET ?=
# The run's config laid over the profile (written when a recipe needs it, after setup).
RUN_CONFIG = $(shell $(PY) workflows/scripts/variation.py file $(PROFILE) "$(VARY)")
# Last on the line: --configfile takes every word after it.
RUN_CONFIGS = --configfile config/$(PROFILE).yaml $(RUN_CONFIG)

.PHONY: help setup build repro dryrun test test-cpp test-python test-fast bench clean notebook

help:
	@echo "make repro [PROFILE=smoke|quick|full]  rebuild figures and tables into results/<profile>/, the report, what came out"
	@echo "make repro VARY='key_cache.threads=[1,8]' [TARGET=key_cache]   a variation, in results/<profile>+<settings>/"
	@echo "make test                              C++ (GoogleTest) and Python (pytest) suites"
	@echo "make build                             rebuild the engine and the Python extension"
	@echo "make bench                             TPC-C throughput, instructions/txn, E1 ladder counts"
	@echo "make dryrun [PROFILE=...]              what the workflow would run (snakemake -n)"
	@echo "make paper [PROFILE=...]               the workflow, then results/<run>/paper/paper.pdf (latexmk)"
	@echo "make report [PROFILE=...] [VARY=...]   results/<run>/report.html: every figure of that run, captioned"
	@echo "make notebook                          JupyterLab on notebooks/ (installs the notebook extra)"
	@echo "make docker-repro [PROFILE=...]        build the pinned image, run workflow and paper inside it"
	@echo "make test-asan / make test-tsan        C++ tests under ASan+UBSan / TSan (build/asan, build/tsan)"
	@echo "make fuzz [FUZZ_SECONDS=30]            each libFuzzer target in engine/fuzz for FUZZ_SECONDS (clang)"

# System packages, then a virtual environment with the build tools, then the
# package itself (editable; its C++ build lives in build/py and is incremental).
$(VENV)/.system-deps: env/install-system-deps.sh
	env/install-system-deps.sh
	@mkdir -p $(VENV) && touch $@

# The pinned environment: every package at the version env/requirements.lock names, each
# file checked against its hashes (env/lock.sh writes the lock; docs/developing.md, "The
# pinned environment"), then the package itself with no dependencies of its own. The lock is
# installed by uv (pinned by hash in env/bootstrap.lock, installed by pip), which compiles the
# packages to bytecode across the cores where pip compiled them one file at a time. Compiled
# ahead, not at first import: where bytecode is not written (PYTHONDONTWRITEBYTECODE) every
# process of the tests and the workflow would compile pandas, snakemake and the rest again.
$(VENV)/.installed: pyproject.toml env/requirements.lock env/bootstrap.lock $(VENV)/.system-deps
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes --no-deps -r env/bootstrap.lock
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(PY) --require-hashes --no-deps -r env/requirements.lock
	$(PY) -m pip install --quiet --no-build-isolation --no-deps -e .
	touch $@

setup: $(VENV)/.installed

build: setup
	$(PY) -m pip install --quiet --no-build-isolation --no-deps -e .

# The workflow, then its HTML report (every figure, captioned, the summary first),
# then what came out: the findings table and where the summary, report and paper are.
# First of all (preflight) how long the run should take on this kind of machine.
repro: preflight build
	$(PY) workflows/scripts/progress.py --profile $(PROFILE) --log $(dir $(RUN_CONFIG))logs/workflow-$(shell date +%Y%m%dT%H%M%S).log -- \
	  $(SNAKEMAKE_BASE) $(TARGET) $(RUN_CONFIGS)
	$(SNAKEMAKE_BASE) $(TARGET) --report $(dir $(RUN_CONFIG))report.html $(RUN_CONFIGS)
	ln -sfn $(notdir $(patsubst %/,%,$(dir $(RUN_CONFIG)))) results/latest
	$(PY) workflows/scripts/run_outcome.py $(dir $(RUN_CONFIG))

# make repro's first line: the run's expected minutes on this machine's kind, from committed
# runs (dbrepro.run_times); for the full profile each study's time, disk and memory, refused in
# one line where this machine cannot hold them. The system's python3 and the source tree: it
# runs before the setup.
.PHONY: preflight
preflight:
	@PYTHONPATH=bindings python3 -m dbrepro.run_times --profile $(PROFILE) --target "$(TARGET)" \
	  $(if $(filter full,$(PROFILE)),--preflight --results results)

# The notebooks, charts inline: JupyterLab from the `notebook` extra, on the built engine.
notebook: build
	$(PY) -m pip install --quiet -e ".[notebook]"
	$(VENV)/bin/jupyter lab notebooks/

dryrun: setup
	$(SNAKEMAKE) -n

test: test-cpp test-python

# The GoogleTest suite is built in the extension's tree (build/py, the engine
# compiled once for both; pip's build leaves the test binary out) and run by
# ctest across the cores; pytest runs across the cores too (pytest-xdist).
test-cpp: build
	$(BIN)/cmake -S . -B $(PY_BUILD) -DDBREPRO_BUILD_TESTS=ON > /dev/null
	$(BIN)/cmake --build $(PY_BUILD) --target engine_tests
	$(BIN)/ctest --test-dir $(PY_BUILD) --output-on-failure -j $(TEST_JOBS)

PYTEST := $(PY) -m pytest -q -n $(TEST_JOBS) --dist loadscope --durations=10

test-python: build
	$(PYTEST)

test-fast: build
	$(PYTEST) -m "not slow"

bench: build
	$(PY) benchmarks/tpcc_single_thread.py
	$(PY) benchmarks/looking_glass_ladder.py
	$(PY) benchmarks/openedge.py
	$(PY) benchmarks/fifo_cache.py --transactions 3000 --repeats 2

# Sanitizer builds of the C++ tests, each in a build directory of its own.
# Debug keeps assertions on; cmake/Sanitizers.cmake adds -O1 and the flags.
# test-asan also replays the fuzz corpora (gcc has no libFuzzer: replay only).
# TSan runs the multi-threaded suites (TSAN_FILTER, a gtest filter): the whole
# suite under TSan costs more CI time than the single-threaded tests are worth.
SAN_CMAKE = $(BIN)/cmake -S . -G Ninja -DCMAKE_MAKE_PROGRAM=$(abspath $(BIN))/ninja -DCMAKE_BUILD_TYPE=Debug \
  -DDBREPRO_BUILD_TESTS=ON -DDBREPRO_BUILD_PYTHON=OFF
SAN_JOBS ?= 2
TSAN_FILTER ?= NetAcceptor*:PageCache*:SpinNapLatch*:AdaptiveMutex*:SpinLatch*:RwLatch*:NullLatches*:LockManager*:KeyCache*:Sched*:ConcurrentBTree*:WriteAheadLog*:DiskPool*:Concurrency*:Recovery*:OpenEdgeServer*:*/OpenEdgeServerModes*:OpenEdgeLadder*
FUZZ_SECONDS ?= 30

.PHONY: test-asan test-tsan fuzz

test-asan: setup
	$(SAN_CMAKE) -B build/asan -DDBREPRO_SANITIZER=address -DDBREPRO_BUILD_FUZZ=ON > /dev/null
	$(BIN)/cmake --build build/asan -j $(SAN_JOBS)
	cd build/asan && ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $(abspath $(BIN))/ctest --output-on-failure -j $(SAN_JOBS)

test-tsan: setup
	$(SAN_CMAKE) -B build/tsan -DDBREPRO_SANITIZER=thread > /dev/null
	$(BIN)/cmake --build build/tsan --target engine_tests -j $(SAN_JOBS)
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 build/tsan/engine/engine_tests --gtest_filter='$(TSAN_FILTER)'

fuzz: setup
	engine/fuzz/run.sh $(FUZZ_SECONDS)

# The reproducible envelope: the paper, the report, the pinned image.
# docker-repro builds the image (env/build-image.sh; no registry needed) and
# runs the workflow and the paper inside it, results/ mounted, as your uid.
DBREPRO_IMAGE ?= dbrepro:local

.PHONY: paper report docker-image docker-repro

# After a run: the paper and the report leave every file of the run as it is. Only a missing
# file is made (--rerun-triggers mtime): with the looks' checkpoints re-evaluated, Snakemake
# would otherwise take the claims for "updated by another job" and write the summary again.
AFTER_RUN := --rerun-triggers mtime

paper: build
	env/install-system-deps.sh --paper
	$(SNAKEMAKE_BASE) paper $(AFTER_RUN) $(RUN_CONFIGS)

report: build
	$(SNAKEMAKE_BASE) --report $(dir $(RUN_CONFIG))report.html $(AFTER_RUN) $(RUN_CONFIGS)

docker-image:
	DBREPRO_IMAGE=$(DBREPRO_IMAGE) env/build-image.sh

docker-repro: docker-image
	DBREPRO_IMAGE=$(DBREPRO_IMAGE) env/docker-repro.sh $(PROFILE)

clean:
	rm -rf build
