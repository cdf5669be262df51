# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# make bench: not part of make check; see docs/BENCHMARKS.md.

BENCH_BINS := $(B)/bench/bench_lookup $(B)/bench/bench_verify

$(B)/bench/bench_lookup: $(call obj,bench/bench_lookup.c $(LOADER_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -ldl -lelf -lpthread

$(B)/bench/bench_verify: $(call obj,bench/bench_verify.c lib/symprov_verify.c \
		lib/symprov_buildid.c)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lelf -lpthread

# On top of the project's packages: bsdtar, with which debuginfod -U
# reads a .deb, curl, the baseline of a transfer, strace for its calls.
BENCH_PACKAGES := libarchive-tools curl strace

# Installs what it needs (root), builds perf with and without the patch,
# downloads Debian's kernel debug package once, outside the tree.
bench:
	@bash scripts/install-deps.sh --for 'make bench' all $(BENCH_PACKAGES)
	$(MAKE) all perf $(BENCH_BINS) $(B)/tests/concurrent_find
	bash scripts/build-perf.sh -o build/perf-stock -a none
	$(PYTHON) bench/run_bench.py --build $(B) $(BENCH_ARGS)

.PHONY: bench
