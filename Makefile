# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make             build/lib/lib{debuginfod,buildiddir}prov.so, build/bin/symprov
# make check       install what the tests need, build and run every test
#                  (SAN=1: under ASan+UBSan)
# make perf        a perf 7.3 with perf-glue.patch, build/perf/perf
# make perf-6.12   a perf 6.12 with perf-glue-6.12.patch, build/perf-6.12/perf
# make perf-glue.patch   bring perf-glue/ and perf-glue.patch up to date with
#                  lib/ and include/ (the perf side: docs/PERF.md)
# make demo        install what it needs, the end-to-end before/after here
# make bench       benchmarks
# make fuzz        the fuzz targets, longer than in check
# make install     symprov, the providers, symprov.h, symprov.pc, man pages
#                  (PREFIX, LIBDIR, DESTDIR...); make uninstall
# make clean

VERSION := 0.4

# Where make install puts things; LIBDIR is also compiled into the loader:
# providers go to $(LIBDIR)/symprov, where bare names are looked for.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/symprov
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
PROVIDERDIR := $(LIBDIR)/symprov

CC ?= gcc
PYTHON ?= python3
CFLAGS ?= -O2 -g
WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	    -Wformat=2 -Wno-format-nonliteral
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif

# SAN=1: the same build and tests under AddressSanitizer and UBSan, apart.
# TSAN=1: ThreadSanitizer, for the concurrency tests.
ifeq ($(SAN),1)
B ?= build/san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=undefined
CPPFLAGS += -D'SYMPROV_DLOPEN_FLAGS=(RTLD_NOW|RTLD_LOCAL|RTLD_NODELETE)'
else ifeq ($(TSAN),1)
B ?= build/tsan
SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
CPPFLAGS += -D'SYMPROV_DLOPEN_FLAGS=(RTLD_NOW|RTLD_LOCAL|RTLD_NODELETE)'
else
B ?= build
SANFLAGS :=
endif

ALL_CFLAGS := -std=gnu11 -fPIC $(WARNINGS) $(CFLAGS) $(SANFLAGS) -MMD -MP
ALL_CPPFLAGS := -Iinclude -Ilib -DDIP_VERSION='"$(VERSION)"' \
	-DBDD_VERSION='"$(VERSION)"' $(CPPFLAGS)
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)

# Providers export only their entry point.
PROV_CFLAGS := -fvisibility=hidden
PROV_LDFLAGS := -shared -Wl,-z,defs -Wl,--no-undefined

# libsymprov.so.1: lib/ as one shared library, what a host links (perf,
# the symprov command; include/libsymprov.h).  Its symbols are those of
# libsymprov.h, tagged by version in lib/libsymprov.map.  The loader checks
# what providers return (symprov_verify.c): libelf.
LIBSYMPROV_SRCS := $(wildcard lib/*.c)
LIBSYMPROV_SONAME := libsymprov.so.1
LIBSYMPROV_REAL := libsymprov.so.1.2.0
LIBSYMPROV_LIBS := -ldl -lelf -lpthread
LIBSYMPROV := $(B)/lib/$(LIBSYMPROV_REAL) $(B)/lib/$(LIBSYMPROV_SONAME) \
	$(B)/lib/libsymprov.so
# What links it: in the tree found next to the program, installed in LIBDIR
TREE_RPATH := -Wl,-rpath,'$$ORIGIN/../lib'
LINK_LIBSYMPROV := -L$(B)/lib -lsymprov

# The unit tests of its insides link its objects, hidden symbols too.
LOADER_SRCS := lib/symprov_loader.c lib/symprov_list.c lib/symprov_memo.c \
	lib/symprov_buildid.c lib/symprov_verify.c lib/symprov_request.c
# A provider carries the helpers it needs, hidden: it exports its entry
# point alone and needs no libsymprov.
DIP_SRCS := $(wildcard provider/debuginfod/*.c) lib/symprov_buildid.c \
	lib/symprov_memo.c lib/symprov_verify.c lib/symprov_request.c
DIP_LIBS := -ldebuginfod -lelf -lpthread
BDD_SRCS := $(wildcard provider/buildiddir/*.c) lib/symprov_buildid.c \
	lib/symprov_list.c lib/symprov_verify.c lib/symprov_request.c
BDD_LIBS := -ldw -lelf -lpthread

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

PROGS := $(B)/bin/symprov
PROVIDERS := $(B)/lib/libdebuginfodprov.so $(B)/lib/libbuildiddirprov.so \
	$(B)/lib/libexampleprov.so

all: $(LIBSYMPROV) $(PROGS) $(PROVIDERS) $(B)/lib/symprov/.stamp

# As installed: the providers in symprov/ next to libsymprov, where it
# looks for bare names, so that a perf of this tree finds them.
$(B)/lib/symprov/.stamp: $(PROVIDERS)
	@mkdir -p $(dir $@)
	@for p in $(notdir $(PROVIDERS)); do ln -sf ../$$p $(dir $@)$$p; done
	@touch $@

# The provider objects of lib/ (under obj/prov/) keep libsymprov.h's
# functions hidden.
$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(B)/obj/prov/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) -DLIBSYMPROV_API= $(ALL_CFLAGS) $(PROV_CFLAGS) \
		-c -o $@ $<

prov_obj = $(patsubst %.c,$(B)/obj/prov/%.o,$(1))

$(call obj,$(LIBSYMPROV_SRCS)): ALL_CFLAGS += -fvisibility=hidden

$(B)/lib/$(LIBSYMPROV_REAL): $(call obj,$(LIBSYMPROV_SRCS)) lib/libsymprov.map
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,$(LIBSYMPROV_SONAME) \
		-Wl,--version-script=lib/libsymprov.map -Wl,-z,defs \
		-o $@ $(filter %.o,$^) $(LIBSYMPROV_LIBS)

$(B)/lib/$(LIBSYMPROV_SONAME): $(B)/lib/$(LIBSYMPROV_REAL)
	ln -sf $(LIBSYMPROV_REAL) $@

$(B)/lib/libsymprov.so: $(B)/lib/$(LIBSYMPROV_SONAME)
	ln -sf $(LIBSYMPROV_SONAME) $@

SYMPROV_CMD_SRCS := tools/symprov.c tools/symprov_check.c \
	tools/symprov_prefetch.c tools/symprov_perfdata.c \
	tools/symprov_perfdata_events.c tools/symprov_perfdata_modules.c \
	tools/symprov_perfcache.c tools/symprov_copy.c

# zstd: perf.data files recorded with -z
SYMPROV_CMD_LIBS := -lpthread -lzstd

$(B)/bin/symprov: $(call obj,$(SYMPROV_CMD_SRCS)) | $(LIBSYMPROV)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(TREE_RPATH) -o $@ $^ $(LINK_LIBSYMPROV) \
		$(SYMPROV_CMD_LIBS)

# The loader has $(LIBDIR) compiled in: rebuilt when it changes.
$(call obj,lib/symprov_loader.c): ALL_CPPFLAGS += -DSYMPROV_LIBDIR='"$(LIBDIR)"'
$(call obj,lib/symprov_loader.c): $(B)/libdir.txt
$(B)/libdir.txt: FORCE
	@mkdir -p $(dir $@)
	@echo '$(LIBDIR)' | cmp -s - $@ || echo '$(LIBDIR)' >$@

$(B)/lib/libdebuginfodprov.so: $(call prov_obj,$(DIP_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(PROV_LDFLAGS) -o $@ $^ $(DIP_LIBS)

$(B)/lib/libbuildiddirprov.so: $(call prov_obj,$(BDD_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(PROV_LDFLAGS) -o $@ $^ $(BDD_LIBS)

$(B)/lib/libexampleprov.so: $(call prov_obj,provider/example/example_provider.c)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(PROV_LDFLAGS) -o $@ $^

include tests/tests.mk

# perf 7.3 with the glue.  The perf side is the patch series perf-glue/,
# which opens libsymprov.so.1 at run time with its own declarations of
# what it calls, and carries no file of lib/ or include/; perf-glue.patch
# is the series in one (scripts/perf-series.sh).
# perf-glue-6.12/ is its backport to perf 6.12 (docs/PERF.md).
perf-glue.patch: scripts/perf-series.sh $(wildcard perf-glue/*.patch)
	bash scripts/perf-series.sh refresh

perf-glue-6.12.patch: scripts/perf-series.sh $(wildcard perf-glue-6.12/*.patch)
	PERF_VERSION=6.12 bash scripts/perf-series.sh refresh

# Builds the committed patch, which opens this tree's libsymprov at run
# time, found in build/lib (an rpath); check-perf-glue says when the
# patch is stale.  libsymprov looks for bare provider names in the
# symprov/ directory next to it, build/lib/symprov here: the README's line
# works right after `make`.
perf: all
	bash scripts/build-perf.sh

perf-6.12: all
	PERF_VERSION=6.12 bash scripts/build-perf.sh

# The series applies patch by patch and gives the tree perf-glue.patch
# gives.
check-perf-glue:
	@bash scripts/perf-series.sh check
	@PERF_VERSION=6.12 bash scripts/perf-series.sh check

# perf builds after each patch of the series, and the whole series (that
# is, perf-glue.patch) passes its perf test.  perf does not link
# libsymprov.so.1, it opens it when providers are configured (run_e2e.py's
# dlopen step shows the rest): no provider, no load, the dynamic loader
# says (scripts/check-output.sh: a check that fails when its command does).
# build-each's last step is the combined patch's tree: make perf's binary
# (build-perf.sh keeps each one by what it was built of).
check-perf-series: all
	bash scripts/perf-series.sh build-each
	bash scripts/build-perf.sh
	bash scripts/perf-series.sh test build/perf/perf
	bash scripts/check-output.sh -n -c 'NEEDED.*libc\.so' \
		'NEEDED.*libsymprov' -- readelf -d build/perf/perf
	bash scripts/check-output.sh -n -c 'calling init: ' libsymprov -- \
		env -u PERF_SYMBOL_PROVIDERS LD_DEBUG=libs build/perf/perf version

# The 6.12 backport: perf 6.12 with perf-glue-6.12.patch passes its perf
# test, the kernel's and the objects' end-to-end tests on its own
# recordings, and perf 7.3 reads them too.  (Its patches are checked one
# by one by check-perf-glue.)
check-perf-6.12: all perf perf-6.12 $(TP_DIR)/libtp_perfsym.so
	PERF_VERSION=6.12 bash scripts/perf-series.sh test build/perf-6.12/perf
	@$(PYTHON) tests/e2e/run_e2e.py --perf build/perf-6.12/perf
	@$(PYTHON) tests/e2e/run_objects_e2e.py --perf build/perf-6.12/perf
	@$(PYTHON) tests/e2e/run_e2e.py --record-perf build/perf-6.12/perf

# perf built as others build it, each variant checked on its own
# (scripts/perf-variants.sh): without libdw and libdebuginfod, without
# libelf (no providers asked: it reads no ELF file, and says so), without
# the rpath to this tree's libsymprov (it reports as stock perf 7.3 does,
# and with providers configured says in one line that it goes on without
# them: tests/e2e/run_stock_equal.py), and with clang, which checks perf's
# lock annotations (-Wthread-safety, with -Werror): both series build
# clean, the providers asked under no dso->lock.
check-perf-variants: all
	bash scripts/perf-variants.sh

# The perfs that check-perf-6.12 and check-perf-variants test, built ahead
# (make check builds them in the background, at the lowest priority, from
# its start); not the no-rpath variant, a copy of make perf's.
perf-builds: all
	PERF_VERSION=6.12 bash scripts/build-perf.sh
	bash scripts/perf-variants.sh -b nodwarf nolibelf clang

# perf's own perf test with the series: no test worse than with stock
# perf 7.3 (built by check-perf-variants), the series' test cases passing.
check-perf-test: perf
	bash scripts/build-perf.sh -o build/perf-stock -a none
	@$(PYTHON) tests/e2e/compare_perf_test.py --stock build/perf-stock/perf \
		--perf build/perf/perf --new 'Symbol providers' \
		--new 'kallsyms of another kernel'

# The README's two commands, `make demo` and `make check`, on a fresh
# Debian 12: the packages first, through scripts/install-deps.sh (which
# stops without root and says what to run), then the work in a sub-make,
# so nothing is built before them, even with -j.
demo:
	@bash scripts/install-deps.sh --for 'make demo' demo
	bash scripts/demo.sh

check:
	@bash scripts/install-deps.sh --for 'make check' all
	@$(MAKE) --no-print-directory check-all

# perf report on a profile of a kernel that is not installed (root); the
# data types' suite, most of its time perf's work, and the dead server's,
# most of its time waiting, are targets of their own, for make -j2.
check-e2e: check-e2e-main check-e2e-types check-e2e-down

check-e2e-main: all perf $(TP_DIR)/libtp_perfsym.so
	@$(PYTHON) tests/e2e/run_e2e.py
	@$(PYTHON) tests/e2e/run_symbols_e2e.py
	@$(PYTHON) tests/e2e/run_objects_e2e.py
	@$(PYTHON) tests/e2e/run_vmlinux_crashes.py

check-e2e-types: all perf
	@$(PYTHON) tests/e2e/run_types_e2e.py

check-e2e-down: all perf
	@$(PYTHON) tests/e2e/run_down_e2e.py

include install.mk

# libsymprov's ABI against the stored one (tests/abi/test_abi.py, abidiff).
# abi-baseline stores the ABI of this build: when a release adds to it.
ABIDW_FLAGS := --no-show-locs --no-corpus-path --no-comp-dir-path
check-abi: $(LIBSYMPROV)
	@$(PYTHON) tests/abi/test_abi.py --build $(B)

abi-baseline: $(LIBSYMPROV)
	abidw $(ABIDW_FLAGS) --out-file tests/abi/libsymprov.so.1.abi \
		$(B)/lib/$(LIBSYMPROV_SONAME)

include bench/bench.mk

.PHONY: check-abi abi-baseline bench perf perf-6.12 perf-builds check-perf-glue check-perf-series check-perf-variants \
	check-perf-6.12 check-perf-test \
	check-e2e check-e2e-main check-e2e-types check-e2e-down demo check FORCE

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)

clean:
	rm -rf build

.PHONY: all clean
