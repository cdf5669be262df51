# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Tests: cmocka unit tests, test providers, integration against debuginfod.

TP_DIR := $(B)/tests/providers
# name:cflags of each test provider variant, flags joined by +
TP_VARIANTS := \
	a:-DTP_NAME='"a"' \
	b:-DTP_NAME='"b"' \
	noentry:-DTP_NO_ENTRY \
	abi2:-DTP_ABI_MAJOR=2 \
	abi10:-DTP_NAME='"old"'+-DTP_ABI_MINOR=0 \
	reserved:-DTP_RESERVED=1 \
	initfail:-DTP_INIT_FAIL \
	size0:-DTP_SIZE=0 \
	sizesmall:-DTP_SIZE=24 \
	sizehuge:-DTP_SIZE=100000 \
	newer:-DTP_PAD=64 \
	newerdirty:-DTP_PAD=64+-DTP_PAD_BYTE=1 \
	foundall:-DTP_STATUS=0+-DTP_PATH='"/bin/sh"' \
	badstatus:-DTP_STATUS=42 \
	readpast:-DTP_READ_PAST \
	print:-DTP_PRINT \
	exit:-DTP_EXIT \
	hang:-DTP_HANG \
	chatty:-DTP_CHATTY \
	perfsym:-DTP_NAME='"sym"'+-DTP_KEY_PREFIX='"symprov.test"'
TP_NAMES := $(foreach v,$(TP_VARIANTS),$(firstword $(subst :, ,$(v))))
TP_LIBS := $(patsubst %,$(TP_DIR)/libtp_%.so,$(TP_NAMES))

tp_cflags = $(subst +, ,$(patsubst $(1):%,%,$(filter $(1):%,$(TP_VARIANTS))))

$(TP_DIR)/libtp_%.so: tests/providers/test_provider.c include/symprov.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(PROV_CFLAGS) $(call tp_cflags,$*) \
		$(ALL_LDFLAGS) $(PROV_LDFLAGS) -o $@ $<

# The minimal provider in symprov.h's documentation must build and load.
$(TP_DIR)/libtp_docexample.so: include/symprov.h
	@mkdir -p $(dir $@)
	sed -n '/^ \* Minimal provider:/,/^ \* Build it with/p' $< | \
		sed -e '1d;$$d' -e 's/^ \*\t\{0,1\}//' > $(TP_DIR)/docexample.c
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Wno-unused-parameter \
		$(PROV_CFLAGS) $(ALL_LDFLAGS) $(PROV_LDFLAGS) \
		-o $@ $(TP_DIR)/docexample.c
TP_LIBS += $(TP_DIR)/libtp_docexample.so

UNIT_TESTS := test_loader test_struct test_buildid test_list test_symprov_memo \
	      test_symprov_verify
UNIT_TESTS += test_buildiddir test_keys
UNIT_BINS := $(patsubst %,$(B)/tests/%,$(UNIT_TESTS))

# test_session is a host: it links libsymprov.so as one does and includes
# libsymprov.h alone.  Its providers find a copy of it, by its known build
# ID, and test_symprov_verify's module look-alike.
UNIT_TESTS += test_session
SESSION_TEST := $(B)/tests/test_session
TEST_SESSION_BUILD_ID := 5e5510000000000000000000000000000000c0de
$(call obj,tests/unit/test_session.c): \
	ALL_CPPFLAGS = -Iinclude $(CPPFLAGS) \
		-DTEST_BUILD_ID='"$(TEST_SESSION_BUILD_ID)"' \
		-DTEST_MODULE='"$(abspath $(B))/tests/module.ko"' \
		-DTEST_MODULE_BUILD_ID='"$(TEST_MODULE_BUILD_ID)"'
$(SESSION_TEST): $(call obj,tests/unit/test_session.c) $(B)/tests/module.ko \
	| $(LIBSYMPROV)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(TREE_RPATH) \
		-Wl,--build-id=0x$(TEST_SESSION_BUILD_ID) -o $@ \
		$(filter %.o,$^) $(LINK_LIBSYMPROV) -lcmocka -lpthread

# test_copy copies itself, known by its build ID, with sendfile() wrapped
# to change the file's length between two calls.
UNIT_TESTS += test_copy
COPY_TEST := $(B)/tests/test_copy
TEST_COPY_BUILD_ID := c0b1000000000000000000000000000000000c0b
$(call obj,tests/unit/test_copy.c): \
	ALL_CPPFLAGS = -Iinclude -Itools $(CPPFLAGS) \
		-DTEST_BUILD_ID='"$(TEST_COPY_BUILD_ID)"'
$(COPY_TEST): $(call obj,tests/unit/test_copy.c tools/symprov_copy.c) \
	| $(LIBSYMPROV)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(TREE_RPATH) -Wl,--wrap=sendfile \
		-Wl,--build-id=0x$(TEST_COPY_BUILD_ID) -o $@ \
		$(filter %.o,$^) $(LINK_LIBSYMPROV) -lcmocka

$(B)/tests/test_loader: $(call obj,tests/unit/test_loader.c $(LOADER_SRCS))
# test_loader's providers find itself, by its known build ID.
TEST_LOADER_BUILD_ID := abcdef0000000000000000000000000000000000
$(B)/tests/test_loader: EXTRA_LDFLAGS := -Wl,--build-id=0x$(TEST_LOADER_BUILD_ID)
$(call obj,tests/unit/test_loader.c): \
	ALL_CPPFLAGS += -DTEST_BUILD_ID='"$(TEST_LOADER_BUILD_ID)"'
$(B)/tests/test_struct: $(call obj,tests/unit/test_struct.c)
$(B)/tests/test_buildid: $(call obj,tests/unit/test_buildid.c lib/symprov_buildid.c)
$(B)/tests/test_list: $(call obj,tests/unit/test_list.c lib/symprov_list.c)
$(B)/tests/test_keys: $(call obj,tests/unit/test_keys.c lib/symprov_keys.c)
$(B)/tests/test_symprov_memo: $(call obj,tests/unit/test_symprov_memo.c lib/symprov_memo.c)
$(B)/tests/test_symprov_verify: $(call obj,tests/unit/test_symprov_verify.c lib/symprov_verify.c \
	lib/symprov_buildid.c)
# test_symprov_verify checks its own, known, build ID.
TEST_VERIFY_BUILD_ID := 0123456789abcdef0123456789abcdef01234567
$(B)/tests/test_symprov_verify: EXTRA_LDFLAGS := -Wl,--build-id=0x$(TEST_VERIFY_BUILD_ID)
$(call obj,tests/unit/test_symprov_verify.c): \
	ALL_CPPFLAGS += -DTEST_BUILD_ID='"$(TEST_VERIFY_BUILD_ID)"' \
		-DTEST_ELF32='"$(abspath $(B))/tests/elf32.elf"' \
		-DTEST_ELF32_BUILD_ID='"$(TEST_ELF32_BUILD_ID)"' \
		-DTEST_FUZZ_OVERLAP='"$(abspath tests/fuzz/corpus/fuzz_verify/note-sections-overlap)"' \
		-DTEST_MODULE='"$(abspath $(B))/tests/module.ko"' \
		-DTEST_MODULE_BUILD_ID='"$(TEST_MODULE_BUILD_ID)"'
# ... and an i386 file, for the symbol tables of ELF class 32.
TEST_ELF32_BUILD_ID := 3232323232323232323232323232323232323232
$(B)/tests/test_symprov_verify: $(B)/tests/elf32.elf
$(B)/tests/elf32.elf:
	@mkdir -p $(dir $@)
	printf '.globl f\n.type f,@function\nf: ret\n.size f,1\n' | \
		as --32 -o $@.o -
	ld -m elf_i386 --build-id=0x$(TEST_ELF32_BUILD_ID) -e f -o $@ $@.o
# ... and a kernel module look-alike with its debug-only copy, for the kinds.
TEST_MODULE_BUILD_ID := 6d6f64756c650000000000000000000000000001
$(B)/tests/test_symprov_verify: $(B)/tests/module.ko
$(B)/tests/module.ko: tests/unit/module.s
	@mkdir -p $(dir $@)
	as -o $@.o $<
	ld -r --build-id=0x$(TEST_MODULE_BUILD_ID) -o $@ $@.o
	objcopy --only-keep-debug $@ $@.debug

# test_buildiddir looks for itself in trees, by its known build ID.
TEST_BDD_BUILD_ID := 0b1dd1d0000000000000000000000000000000b1
$(B)/tests/test_buildiddir: $(call obj,tests/unit/test_buildiddir.c lib/symprov_buildid.c) \
	$(B)/lib/libbuildiddirprov.so
$(B)/tests/test_buildiddir: EXTRA_LDFLAGS := -Wl,--build-id=0x$(TEST_BDD_BUILD_ID)
$(call obj,tests/unit/test_buildiddir.c): \
	ALL_CPPFLAGS += -DTEST_BUILD_ID='"$(TEST_BDD_BUILD_ID)"' \
		-DTEST_BDD_FIXTURES='"$(abspath $(B))/tests/bdd"'
# ... and kernel modules, linked as Kbuild links them, and a program and
# its separate debug file, each named by its build ID.
$(B)/tests/test_buildiddir: $(patsubst %,$(B)/tests/bdd/0b1dd1d%.ko,1 2 3) \
	$(B)/tests/bdd/0b1dd1de.debug
$(B)/tests/bdd/%.ko:
	@mkdir -p $(dir $@)
	printf 'int f(void) { return 0; }\n' | $(CC) -g -c -x c -o $@.o -
	ld -r --build-id=0x$* -o $@ $@.o
$(B)/tests/bdd/%.debug:
	@mkdir -p $(dir $@)
	printf 'int main(void) { return 0; }\n' | \
		$(CC) -g -x c -Wl,--build-id=0x$* -o $(B)/tests/bdd/$* -
	objcopy --only-keep-debug $(B)/tests/bdd/$* $@

$(UNIT_BINS):
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(EXTRA_LDFLAGS) -o $@ $(filter %.o,$^) -lcmocka -ldl -lpthread \
		-lelf

# The concurrency driver of the integration tests.
$(B)/tests/concurrent_find: $(call obj,tests/integration/concurrent_find.c $(LOADER_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -ldl -lelf -lpthread

# A host whose libdw makes debuginfod lookups of its own, after a find.
$(B)/tests/dwfl_after_find: $(call obj,tests/integration/dwfl_after_find.c) \
	| $(LIBSYMPROV)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(TREE_RPATH) -o $@ $(filter %.o,$^) \
		$(LINK_LIBSYMPROV) -ldw

# The check of fetched files on files named on its command line.
$(B)/tests/verify_elf: $(call obj,tests/fuzz/verify_elf.c lib/symprov_verify.c lib/symprov_buildid.c)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lelf -lpthread

TEST_DEPS := all $(TP_LIBS) $(UNIT_BINS) $(SESSION_TEST) $(COPY_TEST) \
	$(B)/tests/concurrent_find $(B)/tests/dwfl_after_find \
	$(B)/tests/verify_elf

check-unit: $(TEST_DEPS)
	@$(PYTHON) tests/run_unit.py $(B) $(UNIT_TESTS)
	@$(PYTHON) tests/e2e/test_compare_reports.py
	@$(PYTHON) tests/e2e/test_checks.py

# Each suite (tests/integration/test_NAME.py) is a target of its own, none
# waiting for another: `make -j2 test` runs two at once.  TESTS= runs some
# tests of one suite by name: make check-integration-prefetch
# TESTS=PrefetchTest.test_real_profile
INTEGRATION_SUITES := debuginfod symbols module_symbols buildiddir check help \
	prefetch perfdata perfcache
INTEGRATION_CHECKS := $(patsubst %,check-integration-%,$(INTEGRATION_SUITES))

check-integration: $(INTEGRATION_CHECKS)

$(INTEGRATION_CHECKS): check-integration-%: $(TEST_DEPS)
	@$(PYTHON) tests/integration/test_$*.py --build $(B) $(TESTS)

# The tests that record system-wide or read this machine's processes, run
# while this machine's libc is at a second path in the temporary directory
# and processes run from it, one in a mount namespace of its own, as on a
# machine that runs containers (scripts/foreign-root.sh; root).
# FOREIGN_ROOT=DIR: a root made already (debootstrap); FOREIGN_ROOT_CHECKS:
# what to run there.
FOREIGN_ROOT_CHECKS ?= check-integration-prefetch check-integration-perfdata \
	check-integration-perfcache
check-foreign-root: $(TEST_DEPS)
	@bash scripts/foreign-root.sh $(if $(FOREIGN_ROOT),-r $(FOREIGN_ROOT)) \
		$(MAKE) --no-print-directory B=$(B) $(FOREIGN_ROOT_CHECKS)

# symprov prefetch --perf-cache read by stock perfs, each on a profile it
# records: Debian's 6.1 and 7.3 without the series (check-perf-variants
# builds it) in make check; check-perfcache-stock-6.12 adds a stock 6.12,
# one more build of perf, left out of make check for CI's time.
check-perfcache-stock: $(TEST_DEPS)
	bash scripts/build-perf.sh -o build/perf-stock -a none
	@$(PYTHON) tests/integration/test_perfcache.py --build $(B) \
		--perf /usr/bin/perf --perf build/perf-stock/perf $(TESTS)

check-perfcache-stock-6.12: $(TEST_DEPS)
	PERF_VERSION=6.12 bash scripts/build-perf.sh -o build/perf-6.12-stock \
		-a none
	@$(PYTHON) tests/integration/test_perfcache.py --build $(B) \
		--perf build/perf-6.12-stock/perf $(TESTS)

# The buildiddir provider on Debian's real kernel -dbg package, unpacked
# (SYMPROV_KERNEL_DBG_DEB=path/to.deb; 318 MB, so not in check).
check-buildiddir-deb: all $(B)/tests/concurrent_find
	@$(PYTHON) tests/integration/test_buildiddir_deb.py --build $(B)

# The first symbols-only fetch from a cold `debuginfod -U` on Debian's real
# kernel -dbg package, through perf (SYMPROV_KERNEL_DBG_DEB=path/to.deb;
# needs bsdtar, from libarchive-tools; not in check).
check-symbols-deb: all perf
	@$(PYTHON) tests/e2e/run_symbols_e2e.py \
		--real-deb "$(SYMPROV_KERNEL_DBG_DEB)"

# Modules, user-space objects and data types on Debian's real packages
# (SYMPROV_KERNEL_DBG_DEB=path/to/linux-image-...-dbg.deb, SYMPROV_LIBC_DEBS=
# a directory with libc6 and libc6-dbg of another release; not in check).
check-objects-deb: all perf
	@$(PYTHON) tests/e2e/run_objects_e2e.py \
		--real-deb "$(SYMPROV_KERNEL_DBG_DEB)" \
		$(if $(SYMPROV_LIBC_DEBS),--libc-debs "$(SYMPROV_LIBC_DEBS)")
	@$(PYTHON) tests/e2e/run_types_e2e.py \
		--real-deb "$(SYMPROV_KERNEL_DBG_DEB)"

# Server faults, local faults, races (root: tmpfs mounts, setpriv); two
# halves, mostly waiting for timeouts, side by side with make -j2.
check-faults: check-faults-1 check-faults-2

check-faults-1 check-faults-2: check-faults-%: $(TEST_DEPS)
	@$(PYTHON) tests/integration/test_faults.py --build $(B) --shard $*/2 \
		$(TESTS)

# Files with the right build ID and a damaged header or table, through
# symprov and the patched perf (root: perf record).
check-hostile: $(TEST_DEPS) perf
	@$(PYTHON) tests/integration/test_hostile.py --build $(B)

# The tests of one build ($(B)).
test: check-unit check-integration check-faults

# The tests with threads, for TSAN=1.
test-threads: $(TEST_DEPS)
	@$(PYTHON) tests/run_unit.py $(B) test_symprov_memo test_buildiddir \
		test_session
	@$(PYTHON) tests/integration/test_debuginfod.py --build $(B) \
		ProviderTest.test_threads_share_one_download
	@$(PYTHON) tests/integration/test_prefetch.py --build $(B) \
		PrefetchTest.test_into_a_tree_asks_each_file_once \
		PrefetchTest.test_jobs_at_once_then_cancelled
	@$(PYTHON) tests/integration/test_module_symbols.py --build $(B) \
		ModuleSymbolsTest.test_sections_side_by_side

# AT_SECURE, for real: a setcap and a setuid copy run as nobody (root).
check-privilege: all
	@$(PYTHON) tests/integration/test_privilege.py --build $(B)

check-valgrind: $(TEST_DEPS)
	@$(PYTHON) tests/run_valgrind.py $(B)

LINT_SRCS := $(wildcard lib/*.c provider/*/*.c tools/*.c)

lint:
	cppcheck --enable=warning,style,performance,portability --std=c11 \
		--quiet --error-exitcode=1 --inline-suppr \
		--suppress=missingIncludeSystem \
		-Iinclude -Ilib -Iprovider/debuginfod $(LINT_SRCS)
	clang-tidy --quiet $(LINT_SRCS) tests/fuzz/*.c -- -std=gnu11 \
		-D_GNU_SOURCE -Iinclude -Ilib -Iprovider/debuginfod -Itools
	@echo "lint: cppcheck and clang-tidy clean"

# Everything: the plain build and its tests, the static checkers,
# valgrind, a short fuzz run, the patch's freshness, perf after each patch
# of the series, then the tests again under ASan+UBSan, the threaded ones
# under TSan, and perf end to end.  (`make check` runs it once the
# packages are installed.)  Each part is timed, and the times printed at
# the end (scripts/check-times.sh).  Parts joined by + run side by side
# (make -j2): suites that mostly wait for servers and timeouts beside
# ones that compute; parts joined by | are makes of their own side by
# side.  The series comes before what needs perf: its first step is stock
# perf and its last make perf's.  The other perfs (perf-builds) are built
# in the background at the lowest priority from the start, once the
# library is built (two makes must not build it at once), on the
# processors the tests and perf's serial build steps leave idle; 6.12's
# first, tested beside the sanitizers' suites (build-perf.sh waits for a
# build of the same perf), the variants after.  No perf 6.x records
# beside the suites whose perf 7.3 records every process with build IDs
# (perf test, the end-to-end suites of perf 7.3; check-perf-6.12 records
# with perf 6.12 only): the kernel then sets the build-ID flag on MMAP2
# events of other recordings without one, which perf 6.x takes as a build
# ID of up to 255 bytes, and crashes.
CHECK_PARTS := all '&perf-builds' \
	'check-unit+check-integration+check-faults+lint+check-abi+check-privilege' \
	'check-foreign-root+check-valgrind+check-fuzz+check-perf-glue' \
	check-perf-series check-install check-deb \
	check-hostile check-fuzz-perf \
	'check-perf-6.12 | SAN=1 check-unit+check-integration+check-faults' \
	'TSAN=1 test-threads' check-e2e-main \
	'check-e2e-types+check-e2e-down' wait \
	check-perf-variants check-perf-test check-perfcache-stock
check-all:
	@MAKE='$(MAKE)' bash scripts/check-times.sh -j 2 $(CHECK_PARTS)

.PHONY: check-all test test-threads check-unit check-integration check-faults check-faults-1 check-faults-2 check-valgrind check-privilege lint check-hostile \
	check-foreign-root check-perfcache-stock check-perfcache-stock-6.12 \
	$(INTEGRATION_CHECKS)


# libFuzzer targets (clang).  check-fuzz replays the regression corpus in
# the tree (tests/fuzz/corpus/NAME/: every input that ever failed), then
# makes a repeatable run: a fixed seed, FUZZ_CHECK_RUNS runs each, on any
# machine (no clock: FUZZ_CHECK_SECONDS only bounds a hang, times ten).
# `make fuzz` explores: fresh seeds, FUZZ_SECONDS each.  A failing input stays in build/fuzz/artifacts/ and is printed in
# the log (tests/run_fuzz.py).
FUZZ_CC ?= clang
FUZZ_TARGETS := fuzz_list fuzz_buildid fuzz_symbols fuzz_perfdata
FUZZ_BINS := $(patsubst %,build/fuzz/%,$(FUZZ_TARGETS))
FUZZ_SECONDS ?= 300
FUZZ_CHECK_SECONDS ?= 30
FUZZ_CHECK_RUNS ?= 200000

build/fuzz/fuzz_list: tests/fuzz/fuzz_list.c lib/symprov_list.c
build/fuzz/fuzz_buildid: tests/fuzz/fuzz_buildid.c lib/symprov_buildid.c
build/fuzz/fuzz_symbols: tests/fuzz/fuzz_symbols.c \
	provider/debuginfod/dip_symfile.c provider/debuginfod/dip_layout.c \
	lib/symprov_verify.c
build/fuzz/fuzz_symbols: FUZZ_LIBS := -lelf
build/fuzz/fuzz_perfdata: tests/fuzz/fuzz_perfdata.c tools/symprov_perfdata.c \
	tools/symprov_perfdata_events.c tools/symprov_perfdata_modules.c
build/fuzz/fuzz_perfdata: FUZZ_LIBS := -lzstd
$(FUZZ_BINS) build/fuzz/fuzz_fail:
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 -Iinclude -Ilib -Iprovider/debuginfod -Itools \
		-fsanitize=fuzzer,address,undefined -o $@ $^ $(FUZZ_LIBS)

# fuzz_symbols starts from the sections of a file that builds.
FUZZ_SEEDS := build/fuzz/fuzz_symbols.corpus/kernel-seed
$(FUZZ_SEEDS): tests/fuzz/make_symbols_seed.py tests/lib/elf_fixtures.py
	@mkdir -p $(dir $@)
	$(PYTHON) tests/fuzz/make_symbols_seed.py $@
FUZZ_SEEDS += build/fuzz/fuzz_symbols.corpus/module-seed
build/fuzz/fuzz_symbols.corpus/module-seed: tests/fuzz/make_symbols_seed.py \
	tests/e2e/objects_fixture.py
	@mkdir -p $(dir $@)
	$(PYTHON) tests/fuzz/make_symbols_seed.py --module $@
FUZZ_SEEDS += build/fuzz/fuzz_symbols.corpus/trampolines-seed
build/fuzz/fuzz_symbols.corpus/trampolines-seed: \
	tests/fuzz/make_symbols_seed.py tests/e2e/objects_fixture.py
	@mkdir -p $(dir $@)
	$(PYTHON) tests/fuzz/make_symbols_seed.py --module --trampolines $@

# fuzz_perfdata starts from minimal profiles, in both entry layouts.
FUZZ_SEEDS += build/fuzz/fuzz_perfdata.corpus/perf-layout
build/fuzz/fuzz_perfdata.corpus/perf-layout: tests/fuzz/make_perfdata_seed.py \
	tests/lib/minimal_perfdata.py tests/lib/perfdata.py
	$(PYTHON) tests/fuzz/make_perfdata_seed.py $(dir $@)

# The check of fetched files, and a model of what perf reads of the files
# it accepts; seeded with small ELF files of each kind.  libdw: its build
# ID is the reference for the check's own.
FUZZ_VERIFY_SEEDS := $(patsubst %,build/fuzz/fuzz_verify.corpus/seed%,.o 32.o .exe 32.exe .so .ko)
build/fuzz/fuzz_verify: tests/fuzz/fuzz_verify.c lib/symprov_verify.c | $(FUZZ_VERIFY_SEEDS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 -Iinclude -Ilib -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -o $@ $^ -ldw -lelf
FUZZ_SEED_LDFLAGS := -nostdlib -Wl,--build-id -Wl,-z,max-page-size=0x10 \
	-Wl,-z,noseparate-code -Wl,-z,norelro
FUZZ_SEED_.o := -c
FUZZ_SEED_32.o := -m32 -c
FUZZ_SEED_.exe := -static $(FUZZ_SEED_LDFLAGS)
FUZZ_SEED_32.exe := -m32 -static $(FUZZ_SEED_LDFLAGS)
FUZZ_SEED_.so := -shared -fPIC $(FUZZ_SEED_LDFLAGS)
FUZZ_SEED_.ko := -nostdlib -r -Wl,--build-id
build/fuzz/fuzz_verify.corpus/seed%: tests/fuzz/seed.c
	@mkdir -p $(dir $@)
	$(CC) -O1 $(FUZZ_SEED_$*) -o $@ $<
FUZZ_BINS += build/fuzz/fuzz_verify

# The runner's own test: a target that fails on purpose.
build/fuzz/fuzz_fail: tests/fuzz/fuzz_fail.c

check-fuzz: $(FUZZ_BINS) $(FUZZ_SEEDS) build/fuzz/fuzz_fail
	@$(PYTHON) tests/fuzz/test_run_fuzz.py build/fuzz/fuzz_fail
	@$(PYTHON) tests/run_fuzz.py --runs $(FUZZ_CHECK_RUNS) \
		$(FUZZ_CHECK_SECONDS) $(FUZZ_BINS)

# perf report --vmlinux on mutants of a vmlinux (root), the ones the check
# rejects too (--all): perf ending on a signal fails, a gap in the check or
# a bug of perf's own.  A repeatable run: a fixed seed, the same
# FUZZ_PERF_CHECK_MUTANTS mutants on any machine; a mutant that crashed
# perf stays in build/fuzz/perf-gaps/ and is printed.  `make fuzz` also
# mutates the vmlinux files in FUZZ_VMLINUX.
FUZZ_PERF_CHECK_MUTANTS ?= 300
check-fuzz-perf: all perf $(B)/tests/verify_elf
	@$(PYTHON) tests/fuzz/fuzz_perf.py --build $(B) --seed 1 --all \
		--mutants $(FUZZ_PERF_CHECK_MUTANTS)

fuzz: $(FUZZ_BINS) $(FUZZ_SEEDS) all perf $(B)/tests/verify_elf
	@$(PYTHON) tests/run_fuzz.py --explore $(FUZZ_SECONDS) $(FUZZ_BINS)
	@$(PYTHON) tests/fuzz/fuzz_perf.py --build $(B) --seconds $(FUZZ_SECONDS) \
		--all $(addprefix --base ,$(FUZZ_VMLINUX))

.PHONY: check-fuzz check-fuzz-perf fuzz
