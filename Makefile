# DLAS: the two commands of the README, and a few helpers.
#   make demo   installs what is missing, builds, compiles and runs the bundled
#               example blocks, and checks them against PyTorch
#   make test   installs what is missing, builds, and runs every test
#   make test-models  every other torchvision classification and
#               segmentation model against PyTorch (MODEL_JOBS at once)
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c

BUILD ?= build
LIT ?= /usr/lib/llvm-22/bin/lit
LLVM_DIR ?= /usr/lib/llvm-22
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# libopenblas0-openmp: Debian's python3-torch does its matrix products
# through libblas.so.3, which is otherwise the netlib reference BLAS: the
# references the tests compute in PyTorch (ViT-H/14, one image: 185 s a
# forward pass on Zen 3 instead of 5 s) and the exports (that trace a
# forward pass) would take most of CI's time.
APT_PACKAGES := cmake ninja-build ccache clang-22 lld-22 llvm-22-dev llvm-22-tools \
  libmlir-22-dev mlir-22-tools libomp-22-dev libonnx-dev libprotobuf-dev protobuf-compiler \
  python3-numpy python3-torch python3-torchvision python3-onnx python3-psutil \
  libopenblas0-openmp rocm-device-libs
BENCH_PACKAGES := libdnnl-dev libopenblas-dev python3-matplotlib g++
DEMO_DIR := $(BUILD)/demo
DEMO_ENTRIES := resnet_basic_block mobilenetv2_inverted_residual
THREADS ?= 1
MODEL_JOBS ?= 2

# Paths under the checkout hash as relative ones, and the working directory
# not at all (the sanitizer tree maps its debug info's paths to relative
# ones): a fresh clone elsewhere (CI) hits the objects built here.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true

.PHONY: deps bench-deps configure build test test-full lit-times test-models test-random-nets test-models-precision test-models-vgg16-sparse test-sparse-full bench demo docs clean fuzz test-asan test-asan-quick sanitizer-deps conformance

deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

bench-deps:
	@missing=""; for p in $(BENCH_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

$(BUILD)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DLLVM_USE_LINKER=lld -DCMAKE_CXX_COMPILER_LAUNCHER=ccache

configure: deps $(BUILD)/build.ninja

# libFuzzer harnesses (fuzz/) in their own tree, every library under ASan +
# UBSan; each runs FUZZ_SECONDS on seeds from the tests and keeps what
# crashes it in $(FUZZ_BUILD)/artifacts (README, "Bad input").
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZERS := npy onnx pipeline
$(FUZZ_BUILD)/build.ninja:
	cmake -G Ninja -S . -B $(FUZZ_BUILD) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDLAS_FUZZERS=ON \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DLLVM_USE_LINKER=lld -DCMAKE_CXX_COMPILER_LAUNCHER=ccache

# clang-22's sanitizer and libFuzzer runtimes.
sanitizer-deps: deps
	@dpkg-query -W -f='$${Status}' libclang-rt-22-dev 2>/dev/null | grep -q "install ok installed" || \
	  { $(SUDO) apt-get update -qq; DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libclang-rt-22-dev; }

# The whole lit suite on DLAS built with ASan and UBSan: the fuzz tree,
# whose libraries and tools are all instrumented (LLVM and MLIR are
# Debian's). Stock mlir-opt cannot load the instrumented plugin: the
# plugin tests are UNSUPPORTED there.
test-asan: sanitizer-deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) check-dlas

# What CI runs under ASan + UBSan: the suite without test/Integration,
# test/Models and the ONNX execution suites Target/ONNX/ops.test and
# conformance.test (the execution matrix: instrumented, its tests take
# 90-330 s each on 2 cores; the importer's handling of untrusted files runs
# instrumented in dlas-fuzz-onnx and errors.test); every other directory,
# the dlas-run error paths, the importer's errors, the verifiers and the
# pipelines, runs (about 5 minutes on 2 cores of Zen 5).
test-asan-quick: sanitizer-deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) dlas-test-depends
	$(LIT) -sv --timeout=600 --filter-out '(Integration|Models)/|Target/ONNX/(ops|conformance)\.test' $(FUZZ_BUILD)/test

fuzz: sanitizer-deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) $(addprefix dlas-fuzz-,$(FUZZERS))
	@mkdir -p $(FUZZ_BUILD)/artifacts $(addprefix $(FUZZ_BUILD)/seeds/,$(FUZZERS))
	@python3 test/dlas-run/Inputs/raw_npy.py $(FUZZ_BUILD)/seeds/npy f32 '(2, 3)' '<f4' 1 2 3 4 5 6
	@python3 test/dlas-run/Inputs/raw_npy.py $(FUZZ_BUILD)/seeds/npy i32 '(3,)' '<i4' 1 2 3
	@/usr/bin/python3 test/Target/ONNX/Inputs/graphs.py make $(FUZZ_BUILD)/seeds/onnx-all >/dev/null 2>&1 && \
	  cp $(FUZZ_BUILD)/seeds/onnx-all/*.onnx $(FUZZ_BUILD)/seeds/onnx/ || echo "no ONNX seeds (python3-onnx, python3-torch missing)"
	@for f in $$(grep -rl --include='*.mlir' 'nn\.' test examples); do \
	  [ $$(stat -c %s $$f) -lt 65536 ] && cp $$f $(FUZZ_BUILD)/seeds/pipeline/$$(echo $$f | tr / _); done; true
	@status=0; failed=; for f in $(FUZZERS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$f; \
	  echo "== dlas-fuzz-$$f for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_BUILD)/bin/dlas-fuzz-$$f $(FUZZ_BUILD)/corpus/$$f $(FUZZ_BUILD)/seeds/$$f \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$f- > $(FUZZ_BUILD)/fuzz-$$f.log 2>&1 && rc=0 || rc=$$?; \
	  tail -40 $(FUZZ_BUILD)/fuzz-$$f.log; \
	  [ $$rc = 0 ] || { echo "dlas-fuzz-$$f: crash, input kept in $(FUZZ_BUILD)/artifacts:"; \
	    for a in $(FUZZ_BUILD)/artifacts/$$f-*; do echo "-- $$a"; head -c 4000 "$$a" | cat -v; echo; done; \
	    failed="$$failed $$f"; status=1; }; \
	done; \
	for f in $$failed; do \
	  echo "== dlas-fuzz-$$f FAILED (exit status and report, from $(FUZZ_BUILD)/fuzz-$$f.log):"; \
	  grep -m1 -A24 -E '^==[0-9]+==ERROR|^ERROR: libFuzzer|^==[0-9]+== ERROR|SUMMARY|deadly signal' $(FUZZ_BUILD)/fuzz-$$f.log || true; \
	  for a in $(FUZZ_BUILD)/artifacts/$$f-*; do echo "-- $$a (base64):"; head -c 3000 "$$a" | base64; done; \
	done; exit $$status

build: configure
	ninja -C $(BUILD)

# lit's summary is turned into one "N passed, M failed" line at the end.
test: build
	@ninja -C $(BUILD) check-dlas 2>&1 | tee $(BUILD)/check-dlas.log || true
	@passed=$$(grep -oP '^\s*Passed\s*:\s*\K[0-9]+' $(BUILD)/check-dlas.log || echo 0); \
	failed=0; for n in $$(grep -oP '^\s*(Failed|Timed Out|Unresolved)\s*:\s*\K[0-9]+' $(BUILD)/check-dlas.log || true); do failed=$$((failed + n)); done; \
	unsupported=$$(grep -oP '^\s*Unsupported\s*:\s*\K[0-9]+' $(BUILD)/check-dlas.log || echo 0); \
	if ! grep -q "Total Discovered Tests" $(BUILD)/check-dlas.log; then failed=$$((failed + 1)); fi; \
	echo "check-dlas: $$passed passed, $$failed failed, $$unsupported skipped"; \
	[ "$$failed" = 0 ] && [ "$$passed" -gt 0 ]

# test/.lit_test_times.txt: lit's per-test times from a run here, which lit
# reads when the build tree has none (a clean clone: CI), so that the
# longest tests start first and two workers finish together. Refresh it
# after a full make test when the slow tests change.
lit-times:
	awk '$$1 > 0 {printf "%.1f %s\n", $$1, $$2}' $(BUILD)/test/.lit_test_times.txt | sort -k2 > test/.lit_test_times.txt

# The whole execution matrix (lit -Dmatrix=full): every case of the runs
# marked %rotate on every target and pipeline, where make test (and CI)
# takes each case on one of them in turn (test/lit.cfg.py).
test-full: build
	ninja -C $(BUILD) dlas-test-depends
	$(LIT) -sv --timeout=1200 -Dmatrix=full $(BUILD)/test

# The transformers and segmentation heads again with a symbolic batch (their
# Shape arithmetic kept symbolic), exported at batch 2 and run at batch 3.
DYNAMIC_MODELS ?= swin_t,maxvit_t,convnext_tiny,deeplabv3_mobilenet_v3_large,googlenet,efficientnet_b0,regnet_y_400mf

SPARSE_MODELS ?= resnet50,resnet18,wrn40_2_g2,wrn40_2_g8,wrn40_2_g16,wrn40_2_gC

test-models: build
	/usr/bin/python3 test/Models/Inputs/models.py --models slow --workdir $(BUILD)/models \
	  --dlas-run $(BUILD)/bin/dlas-run --threads $(THREADS) --jobs $(MODEL_JOBS)
	@# Dynamic batch: dlas-run compiles for the input's batch unless told
	@# to keep it dynamic; keep tests the dynamic code (dlas-compile's).
	/usr/bin/python3 test/Models/Inputs/models.py --models $(DYNAMIC_MODELS) \
	  --dynamic-batch --dynamic-shapes keep --batch 3 --workdir $(BUILD)/models-dynamic \
	  --dlas-run $(BUILD)/bin/dlas-run --threads $(THREADS) --jobs $(MODEL_JOBS)
	@# Pruned models (docs/Sparse.md): resnet50, resnet18 and the grouped
	@# WRN-40-2 variants at four sparsities against PyTorch on the pruned
	@# weights (about 2 minutes in all on 2 cores). (vgg16 pruned,
	@# 528 MB of weights and over 2 minutes:
	@# `make test-models-vgg16-sparse`, kept out of CI's time.)
	for s in 0.5 0.8 0.9 0.95; do \
	  /usr/bin/python3 test/Models/Inputs/models.py --models $(SPARSE_MODELS) --prune $$s \
	    --workdir $(BUILD)/models-sparse --dlas-run $(BUILD)/bin/dlas-run --threads $(THREADS) \
	    --jobs $(MODEL_JOBS) || exit 1; \
	done
	@# Pruned with a dynamic batch (the sparse kernels' image loop runs to
	@# the batch read at run time), at batch 3.
	/usr/bin/python3 test/Models/Inputs/models.py --models resnet18,wrn40_2_g2 --prune 0.9 \
	  --dynamic-batch --dynamic-shapes keep --batch 3 --workdir $(BUILD)/models-sparse-dynamic \
	  --dlas-run $(BUILD)/bin/dlas-run --threads $(THREADS) --jobs $(MODEL_JOBS)

# Random networks against PyTorch (test/Models/Inputs/random_nets.py) over
# many more seeds than test/Models/random-nets.test: about a second a
# network on 2 cores. A failing seed keeps its files in the workdir.
SEEDS ?= 0-200
test-random-nets: build
	@status=0; for kind in "nn" "nn --wide" "onnx" "onnx --wide" "onnx --dynamic-batch" \
	    "nn --prune 0.9" "onnx --prune 0.8" "onnx --precision bf16 --max-rel-err 5e-2" \
	    "seq" "seq --dynamic-batch"; do \
	  /usr/bin/python3 test/Models/Inputs/random_nets.py --kind $$kind --seeds $(SEEDS) \
	    --workdir $(BUILD)/random-nets --dlas-run $(BUILD)/bin/dlas-run --num-threads $(THREADS) \
	    --targets "x86-64-v3$$(grep -q avx512f /proc/cpuinfo && echo ' x86-64-v4')" | grep -v '^ok' || status=1; \
	done; exit $$status

# Sparse convolutions over the whole shape x density x format x residual
# matrix (test/Integration/sparse.test rotates densities and formats over
# the shapes instead), for every target the host runs; about 10 minutes.
test-sparse-full: build
	/usr/bin/python3 test/Integration/Inputs/sparse_cases.py --family full-conv \
	  --workdir $(BUILD)/sparse-full --dlas-run $(BUILD)/bin/dlas-run \
	  --targets "x86-64-v3$$(grep -q avx512f /proc/cpuinfo && echo ' x86-64-v4')"

# Whole models in bf16 and fp16 against PyTorch's f32 logits at batch 100
# (docs/MixedPrecision.md: relative L2 <= 1e-2, top-5 agreement >= 95%).
PRECISION_MODELS ?= resnet18,resnet50,mobilenet_v2,googlenet,wrn40_2_g2,wrn40_2_g4,wrn40_2_g8,wrn40_2_g16,wrn40_2_gC
test-models-precision: build
	for p in bf16 fp16; do \
	  /usr/bin/python3 test/Models/Inputs/models.py --models $(PRECISION_MODELS) --precision $$p \
	    --dynamic-batch --batch 100 --workdir $(BUILD)/models-precision \
	    --dlas-run $(BUILD)/bin/dlas-run --threads $(THREADS) --jobs $(MODEL_JOBS) || exit 1; \
	done

test-models-vgg16-sparse: build
	for s in 0.5 0.8 0.9 0.95; do \
	  /usr/bin/python3 test/Models/Inputs/models.py --models vgg16 --prune $$s \
	    --workdir $(BUILD)/models-sparse --dlas-run $(BUILD)/bin/dlas-run --threads $(THREADS) || exit 1; \
	done

# DLAS against oneDNN, PyTorch and OpenBLAS at 1 and 2 threads; writes
# bench/results/<date>.md, .csv and .png; then whole models against PyTorch's
# best configuration (bench/results/<date>-models.md; MODELS= skips them).
SUITES ?= sgemm,resnet50,dwconv,grouped
MODELS ?= resnet50,mobilenet_v2
# kind:layers:hidden:seq:batch of bench/recurrent_bench.py (empty skips it).
RECURRENT ?= lstm:4:1024:100:1,gru:4:1024:100:1
# TARGET: the CPU DLAS compiles for (host, x86-64-v3, x86-64-v4, an LLVM CPU
# name). An AVX2 target on an AVX-512 host holds the peers to AVX2.
TARGET ?= host
BENCH_TAG ?= $(shell date +%F)-$(TARGET)
bench: build bench-deps
	@mkdir -p $(BUILD)/bench
	g++ -O2 -march=x86-64-v3 -Wno-psabi -std=c++17 bench/peers.cpp -o $(BUILD)/bench/peers -ldnnl -lopenblas -lpthread
	/usr/bin/python3 bench/run_bench.py --suites $(SUITES) --threads 1,2 --target $(TARGET) --tag $(BENCH_TAG) \
	  --dlas-run $(BUILD)/bin/dlas-run --peers $(BUILD)/bench/peers --workdir $(BUILD)/bench/work
	[ -z "$(MODELS)" ] || /usr/bin/python3 bench/models_bench.py --models $(MODELS) --threads 1,2 --target $(TARGET) \
	  --tag $(BENCH_TAG) --dlas-run $(BUILD)/bin/dlas-run --workdir $(BUILD)/bench/models
	[ -z "$(RECURRENT)" ] || /usr/bin/python3 bench/recurrent_bench.py --nets $(RECURRENT) --threads 1,2 --target $(TARGET) \
	  --tag $(BENCH_TAG) --dlas-run $(BUILD)/bin/dlas-run --workdir $(BUILD)/bench/recurrent

demo: build
	@mkdir -p $(DEMO_DIR)
	/usr/bin/python3 examples/blocks.py reference --mlir examples/blocks.mlir --out $(DEMO_DIR) --threads $(THREADS)
	@for e in $(DEMO_ENTRIES); do \
	  echo "== $$e (DLAS, dlas-cpu-pipeline, host CPU, $(THREADS) thread(s))"; \
	  $(BUILD)/bin/dlas-run examples/blocks.mlir -e $$e \
	    --input $(DEMO_DIR)/$$e.input.npy --expect $(DEMO_DIR)/$$e.expected.npy \
	    --rtol 1e-4 --atol 1e-4 --warmup 3 --repeat 30 --num-threads $(THREADS); \
	done
	@echo "== resnet18 (torchvision, seeded random weights): torch.onnx.export -> dlas-run model.onnx"
	/usr/bin/python3 test/Models/Inputs/models.py --models resnet18 --workdir $(DEMO_DIR) \
	  --dlas-run $(BUILD)/bin/dlas-run --threads $(THREADS) --repeat 10

# ONNX's backend node conformance cases (all of them, python3-onnx's
# generators) through dlas-run: docs/ONNXConformance.md, and the cases that
# pass as the baseline test/Target/ONNX/conformance.test holds DLAS to.
conformance: build
	$(BUILD)/bin/dlas-import --list-supported-ops > $(BUILD)/supported-ops.md
	/usr/bin/python3 test/Target/ONNX/Inputs/conformance.py run \
	  --dlas-run $(BUILD)/bin/dlas-run --work $(BUILD)/conformance \
	  --json $(BUILD)/conformance.json --supported-ops $(BUILD)/supported-ops.md \
	  --markdown docs/ONNXConformance.md \
	  --baseline-out test/Target/ONNX/Inputs/conformance-passing.txt

# Regenerates the dialect and pass reference in docs/ from the TableGen files.
docs: build
	ninja -C $(BUILD) mlir-doc
	cp $(BUILD)/docs/Dialects/NNDialect.md docs/NNDialect.md
	cp $(BUILD)/docs/Dialects/DLASDialect.md docs/DLASDialect.md
	cp $(BUILD)/docs/DLASCodegenPasses.md docs/CodegenPasses.md
	cp $(BUILD)/docs/DLASCodegenGPUPasses.md docs/GPUPasses.md
	cp $(BUILD)/docs/DLASConversionPasses.md docs/ConversionPasses.md
	cp $(BUILD)/docs/DLASTransformPasses.md docs/TransformPasses.md
	cp $(BUILD)/docs/NNTransformPasses.md docs/NNTransformPasses.md
	cp $(BUILD)/docs/Dialects/SparseDialect.md docs/SparseDialect.md
	cp $(BUILD)/docs/SparseTransformPasses.md docs/SparseTransformPasses.md
	$(BUILD)/bin/dlas-import --list-supported-ops > docs/ONNXSupportedOps.md

clean:
	rm -rf $(BUILD)
