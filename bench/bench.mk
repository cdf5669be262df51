# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# make bench: not part of make check; see docs/BENCHMARKS.md.

BENCH_BINS := $(B)/bench/bench_lookup $(B)/bench/bench_verify

# They link libsymprov, as a host does.
$(B)/bench/%: $(B)/obj/bench/%.o | $(LIBSYMPROV)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(TREE_RPATH) -o $@ $^ $(LINK_LIBSYMPROV) -ldl

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
