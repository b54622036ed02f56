# banklab: one hand-written Makefile.
#   make                build $(BUILD)/banklab (GPU=auto: CUDA kernels when nvcc is found)
#   make GPU=none       build without the CUDA toolkit
#   make run            start the tutorial
#   make test           install what is missing, then every test (unit, sanitizers, golden, tmux)
#   make test-gpu       GPU tests (needs a device; SKIP without one)
#   make check T=NAME   one test: a unit test (T=test_bank) or a shell suite (T=sim, T=tui_walk)
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
# the systemd unit of `banklab serve` (assets/banklab-serve@.service)
SYSTEMD_DIR ?= $(PREFIX)/lib/systemd/system
# the entry that makes its socket directory /run/lock/banklab-serve root's at boot
TMPFILES_DIR ?= $(PREFIX)/lib/tmpfiles.d

CFLAGS_STD   = -std=c11 -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=700
CFLAGS_WARN  = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS_OPT  ?= -O2 -g
CFLAGS_EXTRA ?=
ifeq ($(WERROR),1)
  CFLAGS_WARN += -Werror
endif
# Package flags, one library at a time. `make run`, `make test` and `make bench` install missing
# packages first (tests/deps.sh) and then re-run make, so these are read after the install.
# Without a pkg-config answer the fallbacks still build: the sources include <cjson/cJSON.h>
# and <curses.h>, found in the compiler's default include path.
pkg_cflags = $(filter-out -D_XOPEN_SOURCE% -D_DEFAULT_SOURCE,$(shell pkg-config --cflags $(1) 2>/dev/null))
pkg_libs   = $(or $(shell pkg-config --libs $(1) 2>/dev/null),$(2))
CURSES_CFLAGS := $(call pkg_cflags,ncursesw)
CURSES_LIBS   := $(call pkg_libs,ncursesw,-lncursesw -ltinfo)
CJSON_CFLAGS  := $(call pkg_cflags,libcjson)
CJSON_LIBS    := $(call pkg_libs,libcjson,-lcjson)
PKG_CFLAGS    := $(CURSES_CFLAGS) $(CJSON_CFLAGS)
PKG_LIBS      := $(CURSES_LIBS) $(CJSON_LIBS)
CPPFLAGS    += -DBANKLAB_VERSION='"$(VERSION)"' -DBANKLAB_SHARE_DIR='"$(SHARE_DIR)"' -DNCURSES_WIDECHAR=1 \
               -DBANKLAB_LIB_DIR='"$(PREFIX)/lib/banklab"'
ALL_CFLAGS   = $(CFLAGS_STD) $(CFLAGS_WARN) $(CFLAGS_OPT) $(CFLAGS_EXTRA) $(PKG_CFLAGS) -MMD -MP
LDFLAGS_EXTRA ?=
LDLIBS      = $(PKG_LIBS) -lpthread -lm

# Rooms: every folder src/ROOM is one archive, $(BUILD)/lib/ROOM.a. In any room, cuda_*.c and
# *.cu build only with GPU=cuda and none_*.c only with GPU=none; kernels/*.cu belong to
# src/runner. The binary, every unit test and benchmark link every room's archive in one
# group: the linker takes only the objects a program calls.
# src/xrt is no archive: it defines cudaMalloc and the rest of the CUDA runtime, which must
# never stand in for cudart in banklab's own link; it is only the library below (XRT_SO).
ROOMS    := $(filter-out xrt,$(sort $(notdir $(patsubst %/,%,$(dir $(wildcard src/*/*.c src/*/*.cu))))))
ifeq ($(GPU),cuda)
  GPU_SKIP := none_%
  CPPFLAGS += -DBANKLAB_GPU_CUDA=1 -I$(CUDA_HOME)/include
  # Default: sm_90 machine code (H100/H200, where the project measures) plus compute_75 PTX
  # that the driver compiles once for any other sm_75+ GPU (CUDA 13 dropped sm_70): one
  # ptxas pass per file keeps CI's 2-core build short. Device bundles: sm_90 only.
  NVCC_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75
  NVCCFLAGS ?= -O3 -lineinfo -std=c++17 $(NVCC_ARCH) -Xcompiler -Wall,-Wextra,-fPIC
  # cudart static: the binary starts (and says "no driver") where libcuda is absent.
  # No -lcuda, no -lcupti: both are dlopen'ed (src/cuda/counters.cu). $ORIGIN: a device
  # bundle carries libcjson.so.1 beside the binary.
  CPPFLAGS += -DBANKLAB_CUDA_HOME='"$(CUDA_HOME)"'
  GPU_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -Wl,-rpath,'$$ORIGIN' \
              -lcudart_static -ldl -lrt -lstdc++
else
  GPU_SKIP := cuda_%
  GPU_LIBS :=
endif
# room_c, room_cu: the sources of room $(1) in this build; room_obj: its objects.
room_c   = $(filter-out src/cli/main.c,$(foreach f,$(wildcard src/$(1)/*.c),$(if $(filter $(GPU_SKIP) san_%,$(notdir $(f))),,$(f))))
room_cu  = $(if $(filter cuda,$(GPU)),$(wildcard src/$(1)/*.cu) $(if $(filter runner,$(1)),$(wildcard kernels/*.cu)))
room_obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(call room_c,$(1))) $(patsubst %.cu,$(BUILD)/obj/%.cu.o,$(call room_cu,$(1)))
room_lib = $(BUILD)/lib/$(1).a
# External libraries a room needs when it is linked.
LIBS_store  = $(CJSON_LIBS)
LIBS_ui     = $(CURSES_LIBS)
LIBS_runner = $(GPU_LIBS)
LIBS_cjson  = $(CJSON_LIBS)
LIBS_curses = $(CURSES_LIBS)
# link_libs: archives (in a group: order-free) and libraries for a list of rooms and names.
link_libs = -Wl,--start-group $(foreach r,$(filter $(ROOMS),$(1)),$(call room_lib,$(r))) -Wl,--end-group \
            $(foreach r,$(1),$(LIBS_$(r))) -lpthread -lm

LIB_OBJ  := $(foreach r,$(ROOMS),$(call room_obj,$(r)))
# banklab run's CUPTI injection library (src/kmeasure/cuda_inject.c): the program's driver loads it
# through CUDA_INJECTION64_PATH. Position-independent copies of the few files it needs.
INJECT_SO  := $(BUILD)/libbanklab_inject.so
INJECT_SRC := src/kmeasure/cuda_inject.c src/kmeasure/cuda_inj.c src/kmeasure/pick.c src/kmeasure/cuda_sassm.c src/cuda/open.c src/cuda/syms.c src/kernel/wire.c \
              src/compile/demangle.c src/compile/lines.c src/compile/sass.c src/devlock/lock.c src/base/fmt.c src/base/err.c \
              src/base/msg.c src/base/hash.c src/base/utf8.c src/base/buf.c src/sys/env.c src/sys/sig.c
INJECT_OBJ := $(INJECT_SRC:%.c=$(BUILD)/pic/%.o)
# banklab run's sanitizer route (src/kmeasure/san_inject.c and the device patch
# src/sanitize/patch/patch.cu): built only where the toolkit has the Compute Sanitizer's
# headers (the GPU machine; SANITIZER_HOME to name another place). Elsewhere `banklab run`
# says the route is missing and measures through CUPTI.
SANITIZER_HOME ?= $(CUDA_HOME)/compute-sanitizer
HAVE_SANITIZER := $(if $(filter cuda,$(GPU)),$(wildcard $(SANITIZER_HOME)/include/sanitizer.h))
SANITIZE_SO    := $(BUILD)/libbanklab_sanitize.so
SANITIZE_PATCH := $(BUILD)/banklab_patch.fatbin
SANITIZE_SRC   := src/kmeasure/san_inject.c src/kmeasure/cuda_inj.c src/kmeasure/pick.c src/sanitize/table.c src/model/bank.c \
                  src/kmeasure/cuda_sassm.c src/cuda/open.c src/cuda/syms.c src/kernel/wire.c src/compile/lines.c \
                  src/compile/demangle.c src/compile/sass.c src/devlock/lock.c src/base/fmt.c \
                  src/base/err.c src/base/msg.c src/base/utf8.c src/base/hash.c src/base/buf.c src/sys/env.c src/sys/sig.c
SANITIZE_OBJ   := $(SANITIZE_SRC:%.c=$(BUILD)/pic/%.o)
SANITIZE_ALL   := $(if $(HAVE_SANITIZER),$(SANITIZE_SO) $(SANITIZE_PATCH))
# banklab's CUDA runtime without a GPU (src/xrt, xrt.h): libcudart.so.13 with NVIDIA's soname
# and version node, that `banklab kernel FILE.cu --model` puts first on the library path of a
# program built with -cudart shared; position-independent copies of src/xrt, the PTX
# executor (src/ptx) and the model, base and sys rooms, which the linker takes from one archive
# as the runtime calls them. It needs the CUDA headers (GPU=cuda).
XRT_SO      := $(BUILD)/xrt/libcudart.so.13
XRT_OBJ     := $(patsubst %.c,$(BUILD)/pic/%.o,$(wildcard src/xrt/*.c))
XRT_DEPS_A  := $(BUILD)/pic/xrt-rooms.a
XRT_DEPS_OBJ := $(patsubst %.c,$(BUILD)/pic/%.o,$(wildcard src/ptx/*.c src/model/*.c src/base/*.c src/sys/*.c))
XRT_LINK     = $(CC) -shared $(CFLAGS_OPT) $(LDFLAGS) -Wl,--no-undefined -Wl,-soname,libcudart.so.13 \
               -Wl,--version-script,src/xrt/xrt.map -o $@
ifeq ($(GPU),cuda)
  XRT_BUILT := $(XRT_SO)
else
  XRT_BUILT :=
endif
MAIN_OBJ := $(BUILD)/obj/src/cli/main.o
ROOM_LIBS := $(foreach r,$(ROOMS),$(call room_lib,$(r)))
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

.PHONY: all run test check test-built test-unit test-gpu unit-bins asan asan-kernel fuzz bench bench-built install \
        uninstall clean deps flags help device-bundle cpp-sum
all: $(BIN) $(if $(filter cuda,$(GPU)),$(INJECT_SO)) $(SANITIZE_ALL) $(XRT_BUILT)

help:
	@sed -n '2,11p' Makefile

# flags: what this make computed (tests/sh/build.sh checks the pkg-config fallback with it).
flags:
	@echo "CURSES_CFLAGS=$(CURSES_CFLAGS)"; echo "CURSES_LIBS=$(CURSES_LIBS)"
	@echo "CJSON_CFLAGS=$(CJSON_CFLAGS)"; echo "CJSON_LIBS=$(CJSON_LIBS)"; echo "ROOMS=$(ROOMS)"
	@echo "GPU=$(GPU)"

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $<")
	$(Q)$(NVCC) $(filter-out -DNCURSES_WIDECHAR=1,$(CPPFLAGS)) $(NVCCFLAGS) -c $< -o $@

$(BUILD)/pic/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (PIC)")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(BUILD)/pic/src/kmeasure/san_inject.o: CPPFLAGS += -I$(SANITIZER_HOME)/include
# only what the libraries call is linked: lines.c's line table without its compiler
$(SANITIZE_OBJ) $(INJECT_OBJ): CFLAGS_EXTRA += -ffunction-sections -fdata-sections

$(SANITIZE_SO): $(SANITIZE_OBJ)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) -shared $(CFLAGS_OPT) $(LDFLAGS) -Wl,--gc-sections -Wl,--no-undefined -o $@ $^ \
	  -L$(SANITIZER_HOME) -Wl,-rpath,$(SANITIZER_HOME) -lsanitizer-public -ldl -lpthread

$(SANITIZE_PATCH): src/sanitize/patch/patch.cu src/sanitize/cost.h src/sanitize/table.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $@ (tools patch)")
	$(Q)$(NVCC) --fatbin --compile-as-tools-patch -I$(SANITIZER_HOME)/include -O3 \
	  -gencode arch=compute_90,code=sm_90 -o $@ $<

$(INJECT_SO): $(INJECT_OBJ)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) -shared $(CFLAGS_OPT) $(LDFLAGS) -Wl,--gc-sections -Wl,--no-undefined -o $@ $^ -ldl -lpthread

$(XRT_DEPS_A): $(XRT_DEPS_OBJ)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(XRT_SO): $(XRT_OBJ) $(XRT_DEPS_A) src/xrt/xrt.map
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(XRT_LINK) $(XRT_OBJ) $(XRT_DEPS_A) -lpthread -lm

define ROOM_RULE
$(call room_lib,$(1)): $(call room_obj,$(1))
	@mkdir -p $$(dir $$@)
	$(Q)rm -f $$@
	@$$(if $(Q),echo "  AR      $$@")
	$(Q)ar rcs $$@ $$^
endef
$(foreach r,$(ROOMS),$(eval $(call ROOM_RULE,$(r))))

$(BIN): $(MAIN_OBJ) $(ROOM_LIBS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS_OPT) $(CFLAGS_EXTRA) $(LDFLAGS) $(LDFLAGS_EXTRA) -o $@ $(MAIN_OBJ) \
	  $(call link_libs,$(ROOMS))

.SECONDEXPANSION:
$(BUILD)/tests/%: tests/unit/%.c $(ROOM_LIBS) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -DTEST_DATA_DIR='"tests/data"' $(LDFLAGS) $(LDFLAGS_EXTRA) -o $@ $< \
	  $(call link_libs,$(ROOMS)) -lcmocka

$(BUILD)/tests/bench_%: tests/bench/bench_%.c $(ROOM_LIBS) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(call link_libs,$(ROOMS))

unit-bins: $(UNIT_BIN)

# Packages the build and tests need; installs them when root, else prints the command.
DEPS ?= sh tests/deps.sh
deps:
	@$(DEPS)

# run and test build with one job per core (unless make was given -j itself); tests/run.sh
# runs the tests as many at a time (JOBS=N for another number).
NPROC := $(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
JOBS_FLAG = $(if $(strip $(filter -j%,$(MAKEFLAGS)) $(findstring j,$(filter-out -%,$(firstword $(MAKEFLAGS))))),,-j$(NPROC))
# run, test and bench install missing packages first, then start a new make: its pkg-config
# answers (read while the Makefile is parsed) see the packages just installed.
run: deps
	@$(MAKE) --no-print-directory $(JOBS_FLAG) $(BIN)
	$(BIN) $(ARGS)

# The same build under ASan+UBSan, in $(BUILD)/asan (no CUDA: the sanitizers and cudart's
# static runtime do not mix).
ASAN_MAKE = $(MAKE) --no-print-directory BUILD=$(BUILD)/asan GPU=none CFLAGS_OPT='-O1 -g' \
	  CFLAGS_EXTRA='-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer' \
	  LDFLAGS_EXTRA='-fsanitize=address,undefined'
asan:
	+@$(ASAN_MAKE) $(BUILD)/asan/banklab unit-bins

# cpp-sum: for each source of CPP_SUM the line "SOURCE SUM", the sum of this build's compiler,
# its flags less the preprocessor's (-D, -I) and the source's preprocessed text: two builds
# that print the same line for a source compile the same object from it.
cpp-sum:
	@for f in $(CPP_SUM); do printf '%s ' "$$f"; \
	  { echo '$(CC) $(filter-out -D% -I% -MMD -MP,$(ALL_CFLAGS))'; \
	    $(CC) $(CPPFLAGS) $(filter-out -MMD -MP,$(ALL_CFLAGS)) -E "$$f" || echo "cpp failed"; } | md5sum; done

# The kernel path (`banklab kernel`: the job, the wire, NVRTC, the cache) under ASan+UBSan, in
# $(BUILD)/asan-kernel: GPU=cuda, for tests/sh/kernel_attack.sh, which runs it without a device
# (no CUDA runtime call is made there: it compiles and says that measuring needs a GPU).
# nvcc is given no sanitizer flag, so with GPU=cuda here the .cu objects are this build's
# (the same nvcc, the same command): copied in once the inner make has written its flags stamp
# (its `flags` target), so that they are newer than it, instead of compiled a second time.
ASAN_KERNEL_MAKE = $(MAKE) --no-print-directory BUILD=$(BUILD)/asan-kernel GPU=cuda CFLAGS_OPT='-O1 -g' \
	  CFLAGS_EXTRA='-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer' \
	  LDFLAGS_EXTRA='-fsanitize=address,undefined' $(if $(filter cuda,$(GPU)),NVCC='$(NVCC)')
# When this make builds asan too (make test, make asan asan-kernel), asan comes first and each
# C object of it whose source preprocesses alike under both builds (cpp-sum: most of them; the
# few that read BANKLAB_GPU_CUDA or the CUDA headers differ) is copied in with its dependency
# file instead of compiled a second time; the others compile here as before.
CU_OBJ := $(filter %.cu.o,$(LIB_OBJ))
ASAN_REUSE := $(if $(filter asan test-built,$(MAKECMDGOALS)),asan)
AK_C := $(patsubst $(BUILD)/obj/%.o,%.c,$(filter-out %.cu.o,$(LIB_OBJ))) src/cli/main.c
asan-kernel: $(CU_OBJ) $(ASAN_REUSE)
ifeq ($(GPU),cuda)
	+@$(ASAN_KERNEL_MAKE) flags >/dev/null
	@for o in $(CU_OBJ); do d=$(BUILD)/asan-kernel/$${o#$(BUILD)/}; \
	  [ "$$d" -nt "$$o" ] && [ "$$d" -nt $(BUILD)/asan-kernel/flags.stamp ] && continue; \
	  mkdir -p "$$(dirname "$$d")" && cp "$$o" "$$d" || exit 1; done
ifneq ($(ASAN_REUSE),)
	+@set -e; todo=; for c in $(AK_C); do a=$(BUILD)/asan/obj/$${c%.c}.o; \
	  k=$(BUILD)/asan-kernel/obj/$${c%.c}.o; [ -f "$$a" ] || continue; \
	  [ "$$k" -nt "$$a" ] && [ "$$k" -nt $(BUILD)/asan-kernel/flags.stamp ] && continue; \
	  todo="$$todo $$c"; done; \
	if [ -n "$$todo" ]; then \
	  $(ASAN_MAKE) cpp-sum CPP_SUM="$$todo" >$(BUILD)/asan-kernel/asan.sums & \
	  $(ASAN_KERNEL_MAKE) cpp-sum CPP_SUM="$$todo" >$(BUILD)/asan-kernel/own.sums; wait $$!; \
	  n=0; while read -r c sum _; do \
	    grep -qxF "$$c $$sum  -" $(BUILD)/asan-kernel/own.sums || continue; \
	    a=$(BUILD)/asan/obj/$${c%.c}; k=$(BUILD)/asan-kernel/obj/$${c%.c}; \
	    [ -f "$$a.d" ] || continue; mkdir -p "$$(dirname "$$k")"; \
	    sed 's|^$(BUILD)/asan/obj/|$(BUILD)/asan-kernel/obj/|' "$$a.d" >"$$k.d"; cp "$$a.o" "$$k.o"; \
	    n=$$((n + 1)); done <$(BUILD)/asan-kernel/asan.sums; \
	  echo "  REUSE   $$n objects of $(BUILD)/asan in $(BUILD)/asan-kernel"; fi
endif
endif
	+@$(ASAN_KERNEL_MAKE) $(BUILD)/asan-kernel/banklab

# Everything: unit tests, the same under ASan+UBSan, shell suites (sim, golden, lessons, tmux).
test: deps
	@$(MAKE) --no-print-directory $(JOBS_FLAG) test-built

# (the GPU probe is built too, so a change that breaks its build shows without a GPU)
test-built: $(BIN) $(if $(filter cuda,$(GPU)),$(INJECT_SO)) $(XRT_BUILT) unit-bins asan $(if $(filter cuda,$(GPU)),$(BUILD)/tests/gpu_probe asan-kernel)
	@BUILD=$(BUILD) BANKLAB=$(BIN) ASAN_BUILD=$(BUILD)/asan sh tests/run.sh

# One test by name: a unit test tests/unit/NAME.c or a shell suite tests/sh/NAME.sh.
check: $(BIN) $(XRT_BUILT)
	@test -n "$(T)" || { echo "make check T=NAME: a unit test (tests/unit/NAME.c) or a shell suite (tests/sh/NAME.sh)" >&2; exit 2; }
	@if [ -f tests/unit/$(T).c ]; then $(MAKE) --no-print-directory $(BUILD)/tests/$(T) && \
	  BUILD=$(BUILD) BANKLAB=$(BIN) ONLY=$(T) sh tests/run.sh; \
	elif [ -f tests/sh/$(T).sh ]; then BUILD=$(BUILD) BANKLAB=$(BIN) ONLY=$(T) sh tests/run.sh; \
	else echo "make check: no tests/unit/$(T).c and no tests/sh/$(T).sh" >&2; exit 2; fi

test-unit: $(BIN) unit-bins
	@BUILD=$(BUILD) BANKLAB=$(BIN) ONLY=unit sh tests/run.sh

test-gpu: $(BIN) $(if $(filter cuda,$(GPU)),$(BUILD)/tests/gpu_probe $(INJECT_SO))
	@BUILD=$(BUILD) BANKLAB=$(BIN) sh tests/gpu/run.sh

# The experiments behind docs/gpu.md (copy ceiling, counter offset): tests/gpu/probe.cu with
# the project's CUPTI code, run by tests/gpu/probe.sh (part of make test-gpu).
$(BUILD)/tests/gpu_probe: tests/gpu/probe.cu src/cuda/counters.cu src/cuda/open.c src/runner/counters.c src/cuda/cudalib.h \
                          $(call room_lib,base) $(call room_lib,sys) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $@")
	$(Q)$(NVCC) $(filter-out -DNCURSES_WIDECHAR=1,$(CPPFLAGS)) $(NVCCFLAGS) -o $@ tests/gpu/probe.cu \
	  src/cuda/counters.cu src/cuda/open.c src/runner/counters.c $(call room_lib,base) \
	  $(call room_lib,sys) -L$(CUDA_HOME)/lib64 -ldl

# libFuzzer targets: the rooms they reach (the lessons read and checked, the pattern language,
# the serve wire, and the rooms those call: docs/architecture.md), built with clang as
# GPU=none builds them (the none implementations), one binary per tests/fuzz/fuzz_*.c. A room
# they come to call links only once it is named here (the link says which symbol is missing);
# every room's GPU=none build is linked by `make asan` (build/asan/banklab) in any case.
# a comma, for $(subst) on a flag list
, := ,
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_ROOMS = base sys model lesson store gpu kernel keys serve devlock runner cuda
FUZZ_LIB_C = $(foreach r,$(FUZZ_ROOMS),$(foreach f,$(wildcard src/$(r)/*.c),$(if $(filter cuda_% san_%,$(notdir $(f))),,$(f))))
# each room's file compiled once for all the targets (instrumented, linked into each)
FUZZ_OBJ   = $(FUZZ_LIB_C:%.c=$(BUILD)/fuzz/obj/%.o)
fuzz: $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
	@for f in $^; do n=$$(basename $$f); mkdir -p $(BUILD)/fuzz/corpus-$$n; \
	  echo "== $$n for $(FUZZ_SECONDS)s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
	    $(BUILD)/fuzz/corpus-$$n tests/fuzz/corpus/$${n#fuzz_} || exit 1; done

$(BUILD)/fuzz/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(CFLAGS_STD) $(filter-out -DBANKLAB_GPU_CUDA=1,$(CPPFLAGS)) $(PKG_CFLAGS) \
	  $(subst fuzzer$(,),fuzzer-no-link$(,),$(FUZZ_FLAGS)) -c $< -o $@

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS_STD) $(filter-out -DBANKLAB_GPU_CUDA=1,$(CPPFLAGS)) $(PKG_CFLAGS) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_OBJ) $(PKG_LIBS) -lm

bench: deps
	@$(MAKE) --no-print-directory bench-built

bench-built: $(BIN) $(BENCH_BIN)
	@BUILD=$(BUILD) BANKLAB=$(BIN) sh tests/bench/run.sh

install: $(BIN) $(if $(filter cuda,$(GPU)),$(INJECT_SO)) $(SANITIZE_ALL) $(XRT_BUILT)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SHARE_DIR)/lessons $(DESTDIR)$(SHARE_DIR)/assets \
	  $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/banklab
	install -m 644 lessons/*.json $(DESTDIR)$(SHARE_DIR)/lessons/
	cp -R assets/. $(DESTDIR)$(SHARE_DIR)/assets/
	install -m 644 assets/banklab.1 $(DESTDIR)$(PREFIX)/share/man/man1/banklab.1
	install -d $(DESTDIR)$(SYSTEMD_DIR)
	sed 's|@BINDIR@|$(PREFIX)/bin|g' assets/banklab-serve@.service > $(DESTDIR)$(SYSTEMD_DIR)/banklab-serve@.service
	chmod 644 $(DESTDIR)$(SYSTEMD_DIR)/banklab-serve@.service
	install -d $(DESTDIR)$(TMPFILES_DIR)
	install -m 644 assets/banklab-tmpfiles.conf $(DESTDIR)$(TMPFILES_DIR)/banklab.conf
	@# now too (not only at the next boot): root's, mode 1777; one a learner made first is left
	@# alone and named (banklab refuses it: remove it, then run make install again)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && [ -d /run/lock ]; then \
	  if [ ! -e /run/lock/banklab-serve ]; then install -d -m 1777 -o root -g root /run/lock/banklab-serve; \
	  elif [ "$$(stat -c %u /run/lock/banklab-serve)" != 0 ]; then \
	    echo "  /run/lock/banklab-serve belongs to uid $$(stat -c %u /run/lock/banklab-serve), not root: remove it and run make install again"; fi; fi
	@echo "  the GPU server of device N for every user: systemctl daemon-reload && systemctl enable --now banklab-serve@N"
	$(if $(filter cuda,$(GPU)),install -d $(DESTDIR)$(PREFIX)/lib/banklab && \
	  install -m 755 $(INJECT_SO) $(DESTDIR)$(PREFIX)/lib/banklab/libbanklab_inject.so)
	$(if $(XRT_BUILT),install -d $(DESTDIR)$(PREFIX)/lib/banklab/xrt && \
	  install -m 755 $(XRT_SO) $(DESTDIR)$(PREFIX)/lib/banklab/xrt/libcudart.so.13)

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/bin/banklab $(DESTDIR)$(SHARE_DIR) $(DESTDIR)$(PREFIX)/share/man/man1/banklab.1 \
	  $(DESTDIR)$(SYSTEMD_DIR)/banklab-serve@.service $(DESTDIR)$(TMPFILES_DIR)/banklab.conf \
	  $(DESTDIR)$(PREFIX)/lib/banklab

# A build to carry to a GPU machine that has no libcjson: sm_90 only, libcjson.so.1 (and, for
# test_gpu, libcmocka.so.0) beside the binary (found where the compiler's linker finds them,
# whatever the architecture), the probe and the device half of the unit tests
# (tests/gpu/session.sh runs them all; it sets LD_LIBRARY_PATH to the bundle).
device-bundle:
	$(MAKE) --no-print-directory BUILD=$(BUILD) GPU=cuda \
	  NVCC_ARCH='-gencode arch=compute_90,code=sm_90' $(BUILD)/banklab $(BUILD)/libbanklab_inject.so \
	  $(SANITIZE_ALL) \
	  $(BUILD)/tests/gpu_probe \
	  $(BUILD)/tests/test_gpu
	@for so in libcjson.so.1 libcmocka.so.0; do lib=$$($(CC) -print-file-name=$$so); case $$lib in \
	  /*) cp -L "$$lib" $(BUILD)/$$so && echo "  BUNDLE  $(BUILD)/$$so ($$lib)" ;; \
	  *) echo "device-bundle: $(CC) finds no $$so (make deps)" >&2; exit 1 ;; esac; done

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj $(BUILD)/pic $(BUILD)/tests -name '*.d' 2>/dev/null)
