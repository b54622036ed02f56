# banklab: one hand-written Makefile.
#   make                build $(BUILD)/banklab (GPU=auto: CUDA kernels when nvcc is found)
#   make GPU=none       build without the CUDA toolkit
#   make run            start the tutorial
#   make test           every test (unit, sanitizers, golden, lessons, tmux end-to-end)
#   make test-gpu       GPU tests (needs a device; SKIP without one)
#   make fuzz           run the fuzz targets for FUZZ_SECONDS each (clang + libFuzzer)
#   make bench          model, screen and GPU benchmarks (docs/benchmarks.md)
#   make install PREFIX=/usr/local DESTDIR=
# Flags are layered: CFLAGS_STD, CFLAGS_WARN, CFLAGS_OPT, CFLAGS_EXTRA (debug/asan/coverage).

BUILD     ?= build
PREFIX    ?= /usr/local
DESTDIR   ?=
GPU       ?= auto
CUDA_HOME ?= /usr/local/cuda
CC        ?= cc
FUZZ_CC   ?= clang
FUZZ_SECONDS ?= 60
VERSION   := 0.1.0
V         ?= 0
ifeq ($(V),1)
  Q :=
else
  Q := @
endif

ifeq ($(GPU),auto)
  NVCC := $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
  ifneq ($(NVCC),)
    GPU := cuda
  else
    GPU := none
  endif
else
  NVCC ?= $(CUDA_HOME)/bin/nvcc
endif

# CI builds with -Werror; locally warnings stay warnings unless WERROR=1.
ifeq ($(CI),true)
  WERROR ?= 1
endif

SHARE_DIR := $(PREFIX)/share/banklab

CFLAGS_STD   = -std=c11 -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=700
CFLAGS_WARN  = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS_OPT  ?= -O2 -g
CFLAGS_EXTRA ?=
ifeq ($(WERROR),1)
  CFLAGS_WARN += -Werror
endif
PKG_CFLAGS  := $(filter-out -D_XOPEN_SOURCE% -D_DEFAULT_SOURCE,$(shell pkg-config --cflags ncursesw libcjson 2>/dev/null))
PKG_LIBS    := $(shell pkg-config --libs ncursesw libcjson 2>/dev/null || echo -lncursesw -ltinfo -lcjson)
CPPFLAGS    += -DBANKLAB_VERSION='"$(VERSION)"' -DBANKLAB_SHARE_DIR='"$(SHARE_DIR)"' -DNCURSES_WIDECHAR=1
ALL_CFLAGS   = $(CFLAGS_STD) $(CFLAGS_WARN) $(CFLAGS_OPT) $(CFLAGS_EXTRA) $(PKG_CFLAGS) -MMD -MP
LDFLAGS_EXTRA ?=
LDLIBS      = $(PKG_LIBS) -lpthread -lm

# Sources. src/gpu: cuda_*.c/.cu only with GPU=cuda, none_*.c only with GPU=none, rest always.
MODEL_SRC  := $(wildcard src/model/*.c)
LESSON_SRC := $(wildcard src/lesson/*.c)
UI_SRC     := $(wildcard src/ui/*.c)
CLI_SRC    := $(filter-out src/cli/main.c,$(wildcard src/cli/*.c))
GPU_COMMON := $(filter-out src/gpu/cuda_% src/gpu/none_%,$(wildcard src/gpu/*.c))
ifeq ($(GPU),cuda)
  GPU_C   := $(GPU_COMMON) $(wildcard src/gpu/cuda_*.c)
  GPU_CU  := $(wildcard src/gpu/*.cu) $(wildcard kernels/*.cu)
  CPPFLAGS += -DBANKLAB_GPU_CUDA=1 -I$(CUDA_HOME)/include
  # Default: sm_90 machine code (H100/H200, where the project measures) plus compute_75 PTX
  # that the driver compiles once for any other sm_75+ GPU (CUDA 13 dropped sm_70): one
  # ptxas pass per file keeps CI's 2-core build short. Device bundles: sm_90 only.
  NVCC_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75
  NVCCFLAGS ?= -O3 -lineinfo -std=c++17 $(NVCC_ARCH) -Xcompiler -Wall,-Wextra,-fPIC
  # cudart static: the binary starts (and says "no driver") where libcuda is absent.
  # No -lcuda, no -lcupti: both are dlopen'ed (src/gpu/cuda_counters.cu). $ORIGIN: a device
  # bundle carries libcjson.so.1 beside the binary.
  CPPFLAGS += -DBANKLAB_CUDA_HOME='"$(CUDA_HOME)"'
  GPU_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -Wl,-rpath,'$$ORIGIN' \
              -lcudart_static -ldl -lrt -lstdc++
else
  GPU_C   := $(GPU_COMMON) $(wildcard src/gpu/none_*.c)
  GPU_CU  :=
  GPU_LIBS :=
endif

LIB_C    := $(MODEL_SRC) $(LESSON_SRC) $(UI_SRC) $(CLI_SRC) $(GPU_C)
LIB_OBJ  := $(LIB_C:%.c=$(BUILD)/obj/%.o) $(GPU_CU:%.cu=$(BUILD)/obj/%.cu.o)
MAIN_OBJ := $(BUILD)/obj/src/cli/main.o
LIB      := $(BUILD)/libbanklab.a
BIN      := $(BUILD)/banklab

# Objects depend on a stamp of the flags they were built with, so `make PREFIX=... install`,
# GPU=none or other CFLAGS rebuild what they change instead of linking stale objects.
FLAGS_STAMP := $(BUILD)/flags.stamp
FLAGS_NOW   := $(GPU) | $(CC) $(CPPFLAGS) $(ALL_CFLAGS) | $(NVCC) $(NVCCFLAGS) | $(LDFLAGS_EXTRA)
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_NOW))
  $(shell mkdir -p $(BUILD))
  $(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard tests/bench/bench_*.c)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/tests/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)

.PHONY: all run test test-unit test-gpu unit-bins asan fuzz bench install uninstall clean deps help device-bundle
all: $(BIN)

help:
	@sed -n '2,11p' Makefile

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $<")
	$(Q)$(NVCC) $(filter-out -DNCURSES_WIDECHAR=1,$(CPPFLAGS)) $(NVCCFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@
	@$(if $(Q),echo "  AR      $@")
	$(Q)ar rcs $@ $^

$(BIN): $(MAIN_OBJ) $(LIB)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS_OPT) $(CFLAGS_EXTRA) $(LDFLAGS) $(LDFLAGS_EXTRA) -o $@ $(MAIN_OBJ) $(LIB) $(GPU_LIBS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -DTEST_DATA_DIR='"tests/data"' $(LDFLAGS) $(LDFLAGS_EXTRA) -o $@ $< $(LIB) $(GPU_LIBS) $(LDLIBS) -lcmocka

$(BUILD)/tests/bench_%: tests/bench/bench_%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(GPU_LIBS) $(LDLIBS)

unit-bins: $(UNIT_BIN)

# Packages the build and tests need; installs them when root, else prints the command.
deps:
	@sh tests/deps.sh

run: deps $(BIN)
	$(BIN) $(ARGS)

# Everything: unit tests, the same under ASan+UBSan, shell suites (sim, golden, lessons, tmux).
test: deps $(BIN) unit-bins
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/asan GPU=none CFLAGS_OPT='-O1 -g' \
	  CFLAGS_EXTRA='-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer' \
	  LDFLAGS_EXTRA='-fsanitize=address,undefined' $(BUILD)/asan/banklab unit-bins
	@BUILD=$(BUILD) BANKLAB=$(BIN) ASAN_BUILD=$(BUILD)/asan sh tests/run.sh

test-unit: $(BIN) unit-bins
	@BUILD=$(BUILD) BANKLAB=$(BIN) ONLY=unit sh tests/run.sh

test-gpu: $(BIN)
	@BUILD=$(BUILD) BANKLAB=$(BIN) sh tests/gpu/run.sh

# libFuzzer targets: model/lesson sources built with clang, one binary per tests/fuzz/fuzz_*.c.
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_LIB_C = $(MODEL_SRC) $(LESSON_SRC) $(GPU_COMMON)  # src/lesson/recording.c replays through gpu_common.c
fuzz: $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
	@for f in $^; do n=$$(basename $$f); mkdir -p $(BUILD)/fuzz/corpus-$$n; \
	  echo "== $$n for $(FUZZ_SECONDS)s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
	    $(BUILD)/fuzz/corpus-$$n tests/fuzz/corpus/$${n#fuzz_} || exit 1; done

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_C)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS_STD) $(CPPFLAGS) $(PKG_CFLAGS) $(FUZZ_FLAGS) -o $@ $^ $(PKG_LIBS) -lm

bench: deps $(BIN) $(BENCH_BIN)
	@BUILD=$(BUILD) BANKLAB=$(BIN) sh tests/bench/run.sh

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SHARE_DIR)/lessons $(DESTDIR)$(SHARE_DIR)/assets \
	  $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/banklab
	install -m 644 lessons/*.json $(DESTDIR)$(SHARE_DIR)/lessons/
	cp -R assets/. $(DESTDIR)$(SHARE_DIR)/assets/
	install -m 644 assets/banklab.1 $(DESTDIR)$(PREFIX)/share/man/man1/banklab.1

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/bin/banklab $(DESTDIR)$(SHARE_DIR) $(DESTDIR)$(PREFIX)/share/man/man1/banklab.1

# A build to carry to a GPU machine that has no libcjson: sm_90 only, libcjson beside the binary.
device-bundle:
	$(MAKE) --no-print-directory BUILD=$(BUILD) GPU=cuda \
	  NVCC_ARCH='-gencode arch=compute_90,code=sm_90' $(BUILD)/banklab
	cp -P /usr/lib/x86_64-linux-gnu/libcjson.so.1* $(BUILD)/

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
