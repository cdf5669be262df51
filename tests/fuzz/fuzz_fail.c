// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A libFuzzer target that fails on purpose, for the test of the runner
 * (tests/fuzz/test_run_fuzz.py): an input that starts with "!" aborts, as
 * a bug found would.  Never one of the targets of make check or make fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size && data[0] == '!')
		abort();
	return 0;
}
