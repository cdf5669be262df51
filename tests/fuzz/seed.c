// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Seed of fuzz_verify: every kind of symbol perf keeps, an .opd entry. */
int fz_data[4] = { 1, 2, 3, 4 };
const unsigned long fz_opd[2] __attribute__((section(".opd"))) = { 0, 0 };
int fz_entry(int x);
void _start(void);

static int fz_local(int x)
{
	return x * 2;
}

int fz_entry(int x)
{
	return fz_local(x) + fz_data[x & 3] + (int)fz_opd[x & 1];
}

void _start(void)
{
	for (;;)
		fz_entry(1);
}
