// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A debuginfod server serves a file's sections by name, never its ELF
 * header or section header table.  What perf's dso__load_sym() reads of
 * a vmlinux besides the symbol table is, for each section a symbol is in:
 * its name (the "[kernel.kallsyms].<name>" maps, .text for the kernel
 * map, "text"/"data" for labels), SHF_ALLOC, its address and size (the
 * map), and the build-ID note.  This rebuilds those from .symtab,
 * .strtab, .shstrtab and the note section, and refuses (-EINVAL) unless
 * each is certain, exactly or by the conventions below, checked.
 *
 * Exact, from the data:
 *  - byte order: the build-ID note decodes in one order only;
 *  - class: the symbol table parses as 64-bit or 32-bit entries, not
 *    both, or in one of them only with its section symbols first, as
 *    GNU ld writes them;
 *  - index and address of every section that has a section symbol
 *    (STT_SECTION: st_shndx, st_value), which GNU ld writes, in section
 *    order, for every section of a kernel linked with --emit-relocs (x86:
 *    any relocatable kernel; LLVM lld writes them in another order and
 *    not for every section: refused);
 *  - the note section's size.
 *
 * By convention, checked:
 *  - names: GNU ld (and objcopy) write .shstrtab as ".symtab", ".strtab",
 *    ".shstrtab", then the section names in section order, leaving out a
 *    name that is the tail of another (".text" of ".init.text").  A
 *    left-out name is told by a
 *    relocation section right after its section (".rela<name>"), or by
 *    the kernel's start symbol of the section at its address (_stext,
 *    _sdata, __start_rodata, __bss_start, _sinittext).  Every start
 *    symbol (those, and __start_<name>) must then be at the address of
 *    the section of that name, the note section's size must fit the
 *    section given its name, a section without section symbol must be a
 *    relocation section of the one before it, and no name may be left;
 *  - SHF_ALLOC: GNU ld puts sections that are not loaded, at address 0,
 *    after the loaded ones; a section at address 0 before the last
 *    loaded one is loaded (.data..percpu).  A symbol in a section taken
 *    as not loaded is refused;
 *  - size: sections do not overlap and symbols stay inside theirs: a
 *    section whose symbols reach the next section's address ends there.
 *    Otherwise it ends with its last symbol (a guess, counted in
 *    nr_sized_by_symbols): perf then finds the same symbol for every
 *    address inside one, and only an address after its last symbol can
 *    be shown outside the section's map.
 *  - machine: EM_NONE, refused where perf would treat the symbols
 *    differently for ARM (mapping symbols, odd function addresses).
 *
 * A kernel module (ET_REL, linked by ld -r) is named the same way; its
 * sections are at address 0, and perf places their symbols by file
 * offsets instead (dso__process_kernel_symbol()): the symbols of .text
 * at their value plus its offset, and its map starts at that offset
 * (pgoff), so the offset cancels out and any will do: this file puts
 * .text right after the ELF header, where GNU ld puts it in 6.12's
 * modules (7.3's have __ksymtab, __bug_table, .altinstructions or
 * __patchable_function_entries before it).  perf also maps by file
 * offsets the code sections that follow the first one in the file, up
 * to the first .init or .exit one (max_text_section()): a module with
 * a code section before .text, or one whose name is not told, is
 * refused; so is one with a symbol in a code section after .text, whose
 * offset the tables do not give, but for x86's static-call trampolines
 * right after .text, whose offset from it follows from .text's size
 * (dip_module_trampolines_out()).  The other sections hold no data:
 * perf puts their symbols in maps of their own, at address 0, where no
 * sample of the module's code lies, in the .ko as in this file.  Sizes
 * are the extent of their symbols (that of .text is its size in every
 * module of Debian's 6.12 and 7.3 packages).  So their names matter to
 * no sample either: a section whose name was left out with no
 * relocation section after it to tell it (.data, the tail of
 * .init.data) is left unnamed and not loaded, with the others whose
 * names might be shifted by it; a function in one of them before the
 * first .init.text or .exit.text, or a .text without functions, is
 * refused.  On Debian 12's 6.12.117 cloud package, 1,133 of its 1,138
 * modules are rebuilt, on 7.3's 1,014 of 1,019 (25 and 29 with
 * trampolines, each at its offset from .text in the .ko): 119,707
 * sections named as in the .ko, none named otherwise, 558 unnamed.
 * Debian 13's build of the same 6.12.117 (gcc 14) puts the cold parts of
 * functions of 190 modules in a .text.unlikely right after .text: those
 * come whole (941 of 1,138 rebuilt), as the tables do not tell where
 * .text ends.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r, memmem */
#endif
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dip_layout.h"

/* x86's static-call trampolines are aligned so (asm/static_call.h) */
#define DIP_TRAMPOLINES_ALIGN 4

/* A string of .shstrtab, NUL-terminated in it. */
struct dip_str {
	const char *s;
	size_t len;
	uint32_t off;
};

struct dip_sym {
	uint32_t name;
	unsigned char info;
	uint16_t shndx;
	uint64_t value;
	uint64_t size;
};

/* The symbol table as sent, read in place. */
struct dip_syms {
	const unsigned char *p;
	size_t nr;
	size_t entsize;
	bool is64;
	bool msb;
	/* its section symbols are symbols 1 to n, in section order */
	bool sections_first;
};

/* A section start a symbol marks: a kernel convention, or __start_X. */
struct dip_marker {
	const char *section; /* NUL-terminated */
	uint64_t addr;
};

/* What the rebuild works with. */
struct dip_work {
	const struct dip_tables *t;
	struct dip_syms syms;
	size_t nr_slots; /* section indices 1..nr_slots - 1 */
	bool *has_sym;
	uint64_t *addr;
	uint64_t *lo; /* end of the symbols inside the section */
	bool *sym_in; /* a symbol other than the section symbol is in it */
	const char **name;
	uint32_t *name_off;
	const char **hint; /* left-out name a start symbol gives */
	bool *hint_many;
	struct dip_str *strs; /* .shstrtab's strings, in order */
	size_t nr_strs;
	struct dip_str *sorted; /* the same, by name */
	struct dip_marker *markers;
	size_t nr_markers;
	bool module; /* ld -r: tools may add sections after the last (.BTF) */
	size_t text; /* a module's .text */
	const char *why;
};

static uint64_t dip_rd(const unsigned char *p, size_t n, bool msb)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

static void dip_sym_at(const struct dip_syms *s, size_t i, struct dip_sym *y)
{
	const unsigned char *p = s->p + i * s->entsize;

	y->name = (uint32_t)dip_rd(p, 4, s->msb);
	if (s->is64) {
		y->info = p[4];
		y->shndx = (uint16_t)dip_rd(p + 6, 2, s->msb);
		y->value = dip_rd(p + 8, 8, s->msb);
		y->size = dip_rd(p + 16, 8, s->msb);
	} else {
		y->value = dip_rd(p + 4, 4, s->msb);
		y->size = dip_rd(p + 8, 4, s->msb);
		y->info = p[12];
		y->shndx = (uint16_t)dip_rd(p + 14, 2, s->msb);
	}
}

/* @len bytes of a string table: starts and ends with a NUL. */
static bool dip_strtab_ok(const unsigned char *p, size_t len)
{
	return len && p[0] == '\0' && p[len - 1] == '\0';
}

static int dip_str_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dip_str *)a)->s,
		      ((const struct dip_str *)b)->s);
}

static bool dip_str_is(const struct dip_str *s, const char *name)
{
	return !strcmp(s->s, name);
}

/* .shstrtab's strings, in order and sorted; false when it is no table. */
static bool dip_split_names(struct dip_work *w, const unsigned char *p,
			    size_t len)
{
	size_t off, n = 0;

	if (!dip_strtab_ok(p, len) || len > DIP_LAYOUT_SHSTRTAB_MAX)
		return false;
	w->strs = calloc(len / 2 + 1, sizeof(*w->strs));
	w->sorted = calloc(len / 2 + 1, sizeof(*w->sorted));
	if (!w->strs || !w->sorted)
		return false;
	for (off = 1; off < len; off++) {
		const char *s = (const char *)p + off;
		size_t l = strlen(s);

		if (l) {
			w->strs[n].s = s;
			w->strs[n].len = l;
			w->strs[n].off = (uint32_t)off;
			n++;
		}
		off += l;
	}
	w->nr_strs = n;
	/* at most a section and its relocations per section, the tables */
	if (n > 2 * DIP_LAYOUT_SECTIONS_MAX + 3)
		return false;
	memcpy(w->sorted, w->strs, n * sizeof(*w->strs));
	qsort(w->sorted, n, sizeof(*w->sorted), dip_str_cmp);
	return true;
}

static bool dip_has_name(const struct dip_work *w, const char *name)
{
	struct dip_str key = { .s = name };

	return bsearch(&key, w->sorted, w->nr_strs, sizeof(key), dip_str_cmp) !=
	       NULL;
}

/* GNU ld and objcopy write the three tables' names first. */
static bool dip_gnu_order(const struct dip_work *w)
{
	bool symtab = false, strtab = false, shstrtab = false;
	size_t i;

	for (i = 0; i < 3 && i < w->nr_strs; i++) {
		symtab |= dip_str_is(&w->strs[i], ".symtab");
		strtab |= dip_str_is(&w->strs[i], ".strtab");
		shstrtab |= dip_str_is(&w->strs[i], ".shstrtab");
	}
	return symtab && strtab && shstrtab;
}

/* perf reads the build ID from the first of these it finds. */
static const char *const dip_note_names[] = {
	".note.gnu.build-id",
	".notes",
	".note",
};

/* Sections perf reads besides the symbol table: never rebuilt. */
static const char *const dip_unsupported[] = {
	".dynsym", /* perf loads its symbols too */
	".opd", /* ppc64 ELFv1 function descriptors */
};

static void dip_work_free(struct dip_work *w)
{
	free(w->has_sym);
	free(w->addr);
	free(w->lo);
	free(w->sym_in);
	free(w->name);
	free(w->name_off);
	free(w->hint);
	free(w->hint_many);
	free(w->strs);
	free(w->sorted);
	free(w->markers);
}

const char *dip_layout_trampolines_name(const unsigned char *shstrtab,
					size_t len)
{
	static const char name[] = DIP_LAYOUT_TRAMPOLINES;

	/* its own name, or the tail of its relocations' */
	return memmem(shstrtab, len, name, sizeof(name)) ? name : NULL;
}

const char *dip_layout_note_name(const unsigned char *shstrtab, size_t len,
				 const char **why)
{
	struct dip_work w = { 0 };
	const char *note = NULL;
	size_t i;

	*why = NULL;
	if (!dip_split_names(&w, shstrtab, len)) {
		*why = ".shstrtab is not a string table";
		goto out;
	}
	if (!dip_gnu_order(&w)) {
		*why = "its section names are not in GNU ld's order";
		goto out;
	}
	for (i = 0; i < sizeof(dip_unsupported) / sizeof(char *); i++) {
		if (dip_has_name(&w, dip_unsupported[i])) {
			*why = "it has sections perf reads besides .symtab";
			goto out;
		}
	}
	for (i = 0; !note && i < sizeof(dip_note_names) / sizeof(char *); i++) {
		if (dip_has_name(&w, dip_note_names[i]))
			note = dip_note_names[i];
	}
	if (!note)
		*why = "it has no build-ID note section";
out:
	dip_work_free(&w);
	return note;
}

/*
 * The notes of @p decode in byte order @msb, and one is the GNU build ID
 * @id (4-byte alignment, as perf and the kernel use).
 */
static bool dip_note_has_id(const unsigned char *p, size_t len, bool msb,
			    const unsigned char *id, size_t id_len)
{
	size_t off = 0;
	bool found = false;

	while (off < len) {
		uint64_t namesz, descsz, type, name_off, desc_off;

		if (len - off < 12)
			return false;
		namesz = dip_rd(p + off, 4, msb);
		descsz = dip_rd(p + off + 4, 4, msb);
		type = dip_rd(p + off + 8, 4, msb);
		name_off = off + 12;
		desc_off = name_off + ((namesz + 3) & ~3ULL);
		if (desc_off > len || ((descsz + 3) & ~3ULL) > len - desc_off)
			return false;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(p + name_off, "GNU", 4) && descsz == id_len &&
		    !memcmp(p + desc_off, id, id_len))
			found = true;
		off = desc_off + ((descsz + 3) & ~3ULL);
	}
	return found;
}

/* The byte order in which the note carries @id: 0, or -EINVAL (w->why). */
static int dip_byte_order(struct dip_work *w, const unsigned char *id,
			  size_t id_len, struct dip_layout *l)
{
	const struct dip_tables *t = w->t;
	bool lsb = dip_note_has_id(t->note, t->note_len, false, id, id_len);
	bool msb = dip_note_has_id(t->note, t->note_len, true, id, id_len);

	if (t->note_len > DIP_LAYOUT_NOTE_MAX || lsb == msb) {
		w->why =
			"its note section does not carry the build ID asked for";
		return -EINVAL;
	}
	l->elfdata = msb ? ELFDATA2MSB : ELFDATA2LSB;
	return 0;
}

/*
 * The symbol table read as @is64 entries: whole entries, the null one
 * first, names inside .strtab, section symbols of sections that can be
 * rebuilt.  Returns the number of section indices it describes (the
 * highest section symbol's + 1), or 0 when it does not parse.
 */
static size_t dip_syms_parse(const struct dip_tables *t, bool is64, bool msb,
			     struct dip_syms *s)
{
	size_t i, last = 0;
	bool in_run = true;
	struct dip_sym y;

	s->p = t->symtab;
	s->entsize = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	s->is64 = is64;
	s->msb = msb;
	if (!t->symtab_len || t->symtab_len % s->entsize ||
	    t->symtab_len > DIP_LAYOUT_TABLE_MAX)
		return 0;
	s->nr = t->symtab_len / s->entsize;
	s->sections_first = true;
	for (i = 0; i < s->entsize; i++) {
		if (t->symtab[i])
			return 0;
	}
	for (i = 1; i < s->nr; i++) {
		dip_sym_at(s, i, &y);
		if (y.name >= t->strtab_len)
			return 0;
		if (ELF64_ST_TYPE(y.info) != STT_SECTION) {
			in_run = false;
			continue;
		}
		if (!y.shndx || y.shndx >= DIP_LAYOUT_SECTIONS_MAX)
			return 0;
		if (!in_run || y.shndx <= last)
			s->sections_first = false;
		if (y.shndx > last)
			last = y.shndx;
	}
	return last + 1;
}

/*
 * The class the symbol table reads as, and its number of section slots:
 * 0, or -EINVAL (w->why).
 */
static int dip_class(struct dip_work *w, struct dip_layout *l)
{
	bool msb = l->elfdata == ELFDATA2MSB;
	struct dip_syms s64, s32;
	size_t n64, n32;

	if (!dip_strtab_ok(w->t->strtab, w->t->strtab_len) ||
	    w->t->strtab_len > DIP_LAYOUT_TABLE_MAX) {
		w->why = ".strtab is not a string table";
		return -EINVAL;
	}
	n64 = dip_syms_parse(w->t, true, msb, &s64);
	n32 = dip_syms_parse(w->t, false, msb, &s32);
	/*
	 * GNU ld writes the section symbols first; read in the other
	 * class, the same bytes give a section symbol every third symbol
	 * at most.
	 */
	if (n64 && n32 && s64.sections_first != s32.sections_first) {
		if (s64.sections_first)
			n32 = 0;
		else
			n64 = 0;
	}
	if (!n64 == !n32) {
		w->why = n64 ? "its symbol table reads as 32 and as 64 bits" :
			       "its symbol table is damaged";
		return -EINVAL;
	}
	w->syms = n64 ? s64 : s32;
	w->nr_slots = n64 ? n64 : n32;
	l->elfclass = n64 ? ELFCLASS64 : ELFCLASS32;
	if (w->nr_slots < 2) {
		/* GNU ld writes them for executables with --emit-relocs */
		w->why = "its symbol table has no section symbols";
		return -EINVAL;
	}
	return 0;
}

/* What the steps below fill in, for each slot: 0, or -ENOMEM. */
static int dip_work_alloc(struct dip_work *w)
{
	size_t n = w->nr_slots;

	w->has_sym = calloc(n, sizeof(*w->has_sym));
	w->addr = calloc(n, sizeof(*w->addr));
	w->lo = calloc(n, sizeof(*w->lo));
	w->sym_in = calloc(n, sizeof(*w->sym_in));
	w->name = calloc(n, sizeof(*w->name));
	w->name_off = calloc(n, sizeof(*w->name_off));
	w->hint = calloc(n, sizeof(*w->hint));
	w->hint_many = calloc(n, sizeof(*w->hint_many));
	/* at most two per symbol: __start_rodata is both */
	w->markers = calloc(2 * w->syms.nr, sizeof(*w->markers));
	if (!w->has_sym || !w->addr || !w->lo || !w->sym_in || !w->name ||
	    !w->name_off || !w->hint || !w->hint_many || !w->markers)
		return -ENOMEM;
	return 0;
}

/* The kernel's symbols at the start of its sections (vmlinux.lds.h). */
static const struct {
	const char *sym;
	const char *section;
} dip_kernel_starts[] = {
	{ "_stext", ".text" },		 { "_sdata", ".data" },
	{ "__start_rodata", ".rodata" }, { "__bss_start", ".bss" },
	{ "_sinittext", ".init.text" },
};

static const char *dip_kernel_start(const char *sym)
{
	size_t i;

	for (i = 0;
	     i < sizeof(dip_kernel_starts) / sizeof(dip_kernel_starts[0]);
	     i++) {
		if (!strcmp(sym, dip_kernel_starts[i].sym))
			return dip_kernel_starts[i].section;
	}
	return NULL;
}

static bool dip_arm_mapping_symbol(const char *name)
{
	return name[0] == '$' && name[1] && strchr("adtx", name[1]) &&
	       (name[2] == '\0' || name[2] == '.');
}

/*
 * Section symbols, then the other symbols: where they are, what they say.
 * 0, or -EINVAL (w->why).
 */
static int dip_scan_symbols(struct dip_work *w)
{
	const char *strtab = (const char *)w->t->strtab;
	size_t i, last = 0;
	struct dip_sym y;

	for (i = 1; i < w->syms.nr; i++) {
		dip_sym_at(&w->syms, i, &y);
		if (ELF64_ST_TYPE(y.info) == STT_SECTION) {
			if (y.shndx <= last) {
				w->why =
					"its section symbols are not in GNU ld's order";
				return -EINVAL;
			}
			last = y.shndx;
			w->has_sym[y.shndx] = true;
			w->addr[y.shndx] = y.value;
			w->lo[y.shndx] = y.value;
		}
	}
	for (i = 1; i < w->syms.nr; i++) {
		const char *name, *kstart;

		dip_sym_at(&w->syms, i, &y);
		if (ELF64_ST_TYPE(y.info) == STT_SECTION)
			continue;
		name = strtab + y.name;
		if (dip_arm_mapping_symbol(name) ||
		    (!w->syms.is64 && ELF64_ST_TYPE(y.info) == STT_FUNC &&
		     (y.value & 1))) {
			w->why =
				"its symbols are read differently for ARM, and the machine is not known";
			return -EINVAL;
		}
		if (y.shndx == SHN_UNDEF || y.shndx == SHN_ABS)
			continue;
		if (y.shndx >= w->nr_slots || !w->has_sym[y.shndx]) {
			w->why =
				"a symbol is in a section without section symbol";
			return -EINVAL;
		}
		w->sym_in[y.shndx] = true;
		kstart = dip_kernel_start(name);
		if (!strncmp(name, "__start_", 8) && name[8])
			w->markers[w->nr_markers++] =
				(struct dip_marker){ name + 8, y.value };
		if (kstart)
			w->markers[w->nr_markers++] =
				(struct dip_marker){ kstart, y.value };
		if (kstart && y.value == w->addr[y.shndx]) {
			if (w->hint[y.shndx] &&
			    strcmp(w->hint[y.shndx], kstart) != 0)
				w->hint_many[y.shndx] = true;
			w->hint[y.shndx] = kstart;
		}
	}
	return 0;
}

/* The relocation section for section X is ".relaX" or ".relX". */
static const char *dip_reloc_target(const char *name)
{
	if (!strncmp(name, ".rela", 5))
		return name + 5;
	if (!strncmp(name, ".rel", 4))
		return name + 4;
	return NULL;
}

/* @name is a relocation section: of section @of, or of any when NULL. */
static bool dip_is_reloc(const char *name, const char *of)
{
	const char *target = name ? dip_reloc_target(name) : NULL;

	return target && (!of || !strcmp(target, of));
}

/* The offset of @name as the tail of a longer string of .shstrtab. */
static bool dip_tail_offset(const struct dip_work *w, const char *name,
			    uint32_t *off)
{
	size_t i, len = strlen(name);

	for (i = 0; i < w->nr_strs; i++) {
		const struct dip_str *s = &w->strs[i];

		if (s->len > len && !strcmp(s->s + s->len - len, name)) {
			*off = s->off + (uint32_t)(s->len - len);
			return true;
		}
	}
	return false;
}

/* The name GNU ld left out at section @i, or NULL if it wrote it. */
static const char *dip_left_out(struct dip_work *w, size_t i,
				const struct dip_str *next)
{
	/* ".relaX" right after X: X is the tail of the name after it */
	if (next && (i + 1 == w->nr_slots || !w->has_sym[i + 1])) {
		const char *target = dip_reloc_target(next->s);

		if (target && *target && !dip_has_name(w, target))
			return target;
	}
	if (w->hint[i] && !w->hint_many[i] && !dip_has_name(w, w->hint[i]))
		return w->hint[i];
	return NULL;
}

/* The name of each section, and its offset: 0, or -EINVAL (w->why). */
static int dip_names(struct dip_work *w)
{
	const struct dip_str *v = w->strs + 3, *end = w->strs + w->nr_strs;
	size_t i, j, since = 1; /* the first slot whose name is not sure */

	for (i = 1; i < w->nr_slots; i++) {
		const char *left = NULL;

		if (w->has_sym[i])
			left = dip_left_out(w, i, v < end ? v : NULL);
		if (left) {
			if (!dip_tail_offset(w, left, &w->name_off[i]))
				goto out_of_step;
			w->name[i] = left;
			since = i + 1;
			continue;
		}
		/*
		 * A module's section left out with no relocations after it
		 * (a section with a section symbol is no relocation section):
		 * which one of those since the last sure name it is, the
		 * tables do not tell, nor its name.  They all go unnamed;
		 * perf places none of their symbols where a sample can be
		 * (dip_module_sections()).
		 */
		if (w->module && w->has_sym[i] &&
		    (v == end || dip_reloc_target(v->s))) {
			for (j = since; j <= i; j++) {
				w->name[j] = "";
				w->name_off[j] = 0;
			}
			since = i + 1;
			continue;
		}
		if (v == end)
			goto out_of_step;
		/* sections without section symbol: relocations of the last */
		if (!w->has_sym[i] &&
		    (!dip_reloc_target(v->s) || i == 1 ||
		     strcmp(dip_reloc_target(v->s), w->name[i - 1]) != 0))
			goto out_of_step;
		if (!w->has_sym[i])
			since = i + 1;
		w->name[i] = v->s;
		w->name_off[i] = v->off;
		v++;
	}
	/* what is left names sections after the last section symbol */
	for (; v < end && !w->module; v++) {
		if (!dip_reloc_target(v->s))
			goto out_of_step;
	}
	return 0;

out_of_step:
	w->why = "its section names do not match its section symbols";
	return -EINVAL;
}

/*
 * Names unique, start symbols at the address of their section: 0,
 * -EINVAL (w->why), -ENOMEM.
 */
static int dip_check_names(struct dip_work *w)
{
	struct dip_str *by_name = calloc(w->nr_slots, sizeof(*by_name));
	size_t i, n = 0;
	int err = 0;

	if (!by_name)
		return -ENOMEM;
	for (i = 1; i < w->nr_slots; i++)
		by_name[n++] =
			(struct dip_str){ .s = w->name[i], .off = (uint32_t)i };
	qsort(by_name, n, sizeof(*by_name), dip_str_cmp);
	for (i = 1; i < n; i++) {
		/* the names a module's tables do not tell */
		if (!*by_name[i].s)
			continue;
		if (!strcmp(by_name[i - 1].s, by_name[i].s)) {
			w->why = "two of its sections have the same name";
			err = -EINVAL;
			goto out;
		}
	}
	for (i = 0; i < w->nr_markers; i++) {
		struct dip_str key = { .s = w->markers[i].section };
		const struct dip_str *s =
			bsearch(&key, by_name, n, sizeof(key), dip_str_cmp);

		if (s && (!w->has_sym[s->off] ||
			  w->addr[s->off] != w->markers[i].addr)) {
			w->why =
				"a section does not start where its start symbol says";
			err = -EINVAL;
			goto out;
		}
	}
out:
	free(by_name);
	return err;
}

/* GNU ld puts the sections that are not loaded last, at address 0. */
static bool dip_loaded(const struct dip_work *w, size_t i, size_t last_loaded)
{
	return w->has_sym[i] && (w->addr[i] || i < last_loaded);
}

static int dip_addr_cmp(const void *a, const void *b, void *arg)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const uint64_t *addr = arg;

	if (addr[i] != addr[j])
		return addr[i] < addr[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * For each loaded section, the address of the one after it (by address,
 * then index), in next[]; has_next[] false for the last.  0, or -ENOMEM.
 */
static int dip_next_addrs(const struct dip_work *w, size_t last_loaded,
			  uint64_t *next, bool *has_next)
{
	size_t *order = calloc(w->nr_slots, sizeof(*order));
	size_t i, n = 0;

	if (!order)
		return -ENOMEM;
	for (i = 1; i < w->nr_slots; i++) {
		if (dip_loaded(w, i, last_loaded))
			order[n++] = i;
	}
	qsort_r(order, n, sizeof(*order), dip_addr_cmp, w->addr);
	for (i = 0; i + 1 < n; i++) {
		next[order[i]] = w->addr[order[i + 1]];
		has_next[order[i]] = true;
	}
	free(order);
	return 0;
}

/*
 * Where the symbols of each loaded section end, inside the section: 0, or
 * -EINVAL (w->why).
 */
static int dip_symbol_ends(struct dip_work *w, const uint64_t *next,
			   const bool *has_next)
{
	struct dip_sym y;
	size_t i;

	for (i = 1; i < w->syms.nr; i++) {
		uint64_t end;

		dip_sym_at(&w->syms, i, &y);
		if (ELF64_ST_TYPE(y.info) == STT_SECTION ||
		    y.shndx == SHN_UNDEF || y.shndx == SHN_ABS)
			continue;
		/* linker-script symbols can lie outside their section */
		if (y.value < w->addr[y.shndx] ||
		    (has_next[y.shndx] && y.value > next[y.shndx]))
			continue;
		end = y.value + y.size;
		if (end < y.value ||
		    (has_next[y.shndx] && end > next[y.shndx])) {
			w->why = "a symbol reaches into the next section";
			return -EINVAL;
		}
		if (end > w->lo[y.shndx])
			w->lo[y.shndx] = end;
	}
	return 0;
}

/*
 * The section headers of @l, but those of the three tables: 0, -EINVAL
 * (w->why), -ENOMEM.
 */
static int dip_sections(struct dip_work *w, struct dip_layout *l)
{
	size_t i, n = w->nr_slots, last_loaded = 0, note = 0;
	uint64_t *next = calloc(n, sizeof(*next));
	bool *has_next = calloc(n, sizeof(*has_next));
	int err = -ENOMEM;

	if (!next || !has_next)
		goto out;
	for (i = 1; i < n; i++) {
		if (w->has_sym[i] && w->addr[i])
			last_loaded = i;
	}
	for (i = 1; i < n; i++) {
		if (!dip_loaded(w, i, last_loaded) && w->sym_in[i]) {
			w->why =
				"a symbol is in a section that may or may not be loaded";
			err = -EINVAL;
			goto out;
		}
	}
	err = dip_next_addrs(w, last_loaded, next, has_next);
	if (!err)
		err = dip_symbol_ends(w, next, has_next);
	if (err)
		goto out;

	l->nr = n + 3; /* .symtab, .strtab, .shstrtab */
	l->sec = calloc(l->nr, sizeof(*l->sec));
	if (!l->sec) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 1; i < n; i++) {
		struct dip_section *s = &l->sec[i];

		s->name = w->name_off[i];
		s->type = SHT_NOBITS;
		s->align = 1;
		if (!dip_loaded(w, i, last_loaded))
			continue;
		s->flags = SHF_ALLOC;
		s->addr = w->addr[i];
		s->size = w->lo[i] - w->addr[i];
		if (!strcmp(w->name[i], w->t->note_name)) {
			uint64_t end = w->addr[i] + w->t->note_len;

			if (end < w->lo[i] || (has_next[i] && end > next[i])) {
				w->why =
					"its note section does not fit the section of that name";
				err = -EINVAL;
				goto out;
			}
			s->type = SHT_NOTE;
			s->size = w->t->note_len;
			s->data = w->t->note;
			s->align = 4;
			note = i;
		} else if (w->sym_in[i] &&
			   (!has_next[i] || w->lo[i] != next[i])) {
			l->nr_sized_by_symbols++;
		}
		if (l->elfclass == ELFCLASS32 &&
		    (s->addr > UINT32_MAX || s->size > UINT32_MAX - s->addr)) {
			w->why = "a 32-bit section is outside 32 bits";
			err = -EINVAL;
			goto out;
		}
	}
	if (!note) {
		w->why = "its note section is in no loaded section";
		err = -EINVAL;
	}
out:
	free(next);
	free(has_next);
	return err;
}

/*
 * A module's code section perf 7.3 may map with .text, by its name: x86's
 * .altinstr_replacement and .altinstr_aux are code, .altinstructions is
 * their table.
 */
static bool dip_module_code(const char *name)
{
	static const char *const code[] = { "text", ".altinstr_", ".fixup",
					    ".noinstr" };
	size_t i;

	for (i = 0; i < sizeof(code) / sizeof(code[0]); i++) {
		if (strstr(name, code[i]))
			return true;
	}
	return false;
}

static bool dip_init_or_exit(const char *name)
{
	return !strncmp(name, ".init", 5) || !strncmp(name, ".exit", 5);
}

/*
 * perf 7.3 maps with .text the code sections that follow it up to the
 * first .init or .exit one (max_text_section()): the index of that one,
 * past which no section is placed by its file offset, or 0.
 */
static size_t dip_module_text_end(const struct dip_work *w)
{
	size_t i;

	for (i = w->text + 1; i < w->nr_slots; i++) {
		if (w->has_sym[i] && w->name[i] &&
		    (!strcmp(w->name[i], ".init.text") ||
		     !strcmp(w->name[i], ".exit.text")))
			return i;
	}
	return 0;
}

/*
 * x86's static-call trampolines, in a section of their own that GNU ld -r
 * puts right after .text and its relocations, where perf maps it with
 * .text by its file offset: its index, or 0.
 */
static size_t dip_module_trampolines(const struct dip_work *w)
{
	size_t i = w->text + 1;

	if (i < w->nr_slots && !w->has_sym[i] &&
	    dip_is_reloc(w->name[i], ".text"))
		i++;
	if (i < w->nr_slots && w->has_sym[i] && w->name[i] &&
	    !strcmp(w->name[i], DIP_LAYOUT_TRAMPOLINES))
		return i;
	return 0;
}

/*
 * Whether section @shndx ends where a function with a size ends: then
 * the extent of its symbols is its size, unless code without a symbol
 * follows its last function (never from a compiler).
 */
static bool dip_ends_with_function(const struct dip_work *w, size_t shndx)
{
	struct dip_sym y;
	size_t i;

	for (i = 1; i < w->syms.nr; i++) {
		dip_sym_at(&w->syms, i, &y);
		if (y.shndx == shndx && y.size &&
		    ELF64_ST_TYPE(y.info) == STT_FUNC &&
		    y.value + y.size == w->lo[shndx])
			return true;
	}
	return false;
}

/*
 * The extent of each section's symbols, in w->lo: 0, or -EINVAL (w->why)
 * for a symbol perf might place by an offset the tables do not give.
 */
static int dip_module_extents(struct dip_work *w)
{
	const char *strtab = (const char *)w->t->strtab;
	size_t i, text_end = dip_module_text_end(w);
	size_t trampolines = dip_module_trampolines(w);
	bool text_funcs = false;
	struct dip_sym y;

	for (i = 1; i < w->syms.nr; i++) {
		unsigned char type;
		const char *sec;
		uint64_t end;

		dip_sym_at(&w->syms, i, &y);
		type = ELF64_ST_TYPE(y.info);
		if (type == STT_SECTION || y.shndx == SHN_UNDEF ||
		    y.shndx == SHN_ABS)
			continue;
		sec = w->name[y.shndx];
		end = y.value + y.size;
		if (end < y.value) {
			w->why = "a symbol ends past 64 bits";
			return -EINVAL;
		}
		if (end > w->lo[y.shndx])
			w->lo[y.shndx] = end;
		if (y.shndx == w->text &&
		    (type == STT_FUNC || type == STT_GNU_IFUNC))
			text_funcs = true;
		if (y.shndx == w->text || y.shndx == trampolines ||
		    dip_init_or_exit(sec) || !strtab[y.name] ||
		    (text_end && y.shndx > text_end))
			continue;
		if (type == STT_FUNC || type == STT_GNU_IFUNC ||
		    ((type == STT_OBJECT || type == STT_NOTYPE) &&
		     dip_module_code(sec))) {
			w->why =
				"a symbol in a code section that perf maps with .text by its file offset";
			return -EINVAL;
		}
	}
	/* a section left out in .shstrtab before .text would shift names */
	if (!text_funcs) {
		w->why = "its .text holds no function";
		return -EINVAL;
	}
	return 0;
}

/*
 * The trampolines' section, if it has symbols: their bytes, as perf maps
 * them in the .ko, with .text, at the offset they have there.  .text
 * ends with its last function, and the section is aligned to 4 (x86's
 * ARCH_DEFINE_STATIC_CALL_TRAMP): in every module of Debian's 6.12
 * packages.  Only that section is executable here: perf maps with .text
 * by file offset the executable sections that follow each other from the
 * first one, up to an .init or .exit one (max_text_section()).
 * 0, or -EINVAL (w->why).
 */
static int dip_module_trampolines_out(struct dip_work *w, struct dip_layout *l)
{
	size_t i = dip_module_trampolines(w);
	struct dip_section *s;

	if (!i || !w->sym_in[i])
		return 0;
	if (!w->t->trampolines) {
		w->why = "its static-call trampolines were not fetched";
		return -EINVAL;
	}
	if (w->t->trampolines_len < w->lo[i]) {
		w->why = "its static-call trampolines end past their section";
		return -EINVAL;
	}
	if (w->lo[w->text] > DIP_LAYOUT_TEXT_MAX) {
		w->why = "its .text, before the trampolines, is too large";
		return -EINVAL;
	}
	if (l->elfdata != ELFDATA2LSB) {
		w->why = "static-call trampolines of another machine than x86";
		return -EINVAL;
	}
	if (!dip_ends_with_function(w, w->text)) {
		w->why =
			"its .text, whose size places the trampolines, does not end with a function";
		return -EINVAL;
	}
	s = &l->sec[i];
	s->type = SHT_PROGBITS;
	s->flags = SHF_ALLOC | SHF_EXECINSTR;
	s->align = DIP_TRAMPOLINES_ALIGN;
	s->size = w->t->trampolines_len;
	s->data = w->t->trampolines;
	s->offset = (l->sec[w->text].offset + w->lo[w->text] +
		     DIP_TRAMPOLINES_ALIGN - 1) /
		    DIP_TRAMPOLINES_ALIGN * DIP_TRAMPOLINES_ALIGN;
	/* .text's size */
	l->nr_sized_by_symbols++;
	return 0;
}

/*
 * A module's .text, in w->text: the section of that name, with no code
 * section before it (perf maps with .text the code sections that follow
 * the first one in the file).  GNU ld puts it first in 6.12's modules,
 * after __ksymtab, __bug_table, __patchable_function_entries and the
 * like in 7.3's.  0, or -EINVAL (w->why).
 */
static int dip_module_text(struct dip_work *w)
{
	size_t i;

	for (i = 1; i < w->nr_slots; i++) {
		const char *name = w->name[i];

		if (w->has_sym[i] && name && !strcmp(name, ".text"))
			break;
		/* relocation sections: of the section before them */
		if (dip_is_reloc(name, NULL))
			continue;
		if (!name || !*name) {
			w->why =
				"a section before .text has no name told, it may be code";
			return -EINVAL;
		}
		if (dip_module_code(name)) {
			w->why =
				"a code section before .text, which perf maps first";
			return -EINVAL;
		}
	}
	if (i == w->nr_slots) {
		w->why = "no section is told to be .text";
		return -EINVAL;
	}
	w->text = i;
	return 0;
}

/*
 * A module's section headers, but those of the three tables: .text
 * right after the ELF header (perf maps it by its own offset, so any one
 * will do), the others without data at the end of the file.  0, or
 * -EINVAL (w->why).
 */
static int dip_module_sections(struct dip_work *w, struct dip_layout *l)
{
	size_t i, n = w->nr_slots, note = 0;
	int err;

	err = dip_module_text(w);
	if (err)
		return err;
	if (l->elfclass != ELFCLASS64) {
		w->why =
			"a 32-bit module, whose .text may start past the ELF header";
		return -EINVAL;
	}
	err = dip_module_extents(w);
	if (err)
		return err;
	l->nr = n + 3; /* .symtab, .strtab, .shstrtab */
	l->sec = calloc(l->nr, sizeof(*l->sec));
	if (!l->sec)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		struct dip_section *s = &l->sec[i];

		s->name = w->name_off[i];
		s->type = SHT_NOBITS;
		s->align = 1;
		if (!w->has_sym[i])
			continue;
		/* a name not told: not loaded, so perf skips its symbols */
		s->flags = w->sym_in[i] && *w->name[i] ? SHF_ALLOC : 0;
		s->size = w->lo[i];
		if (!strcmp(w->name[i], w->t->note_name)) {
			s->type = SHT_NOTE;
			s->flags = SHF_ALLOC;
			s->size = w->t->note_len;
			s->data = w->t->note;
			s->align = 4;
			note = i;
		}
	}
	/* without SHF_EXECINSTR: perf 7.3 maps no other section with it */
	l->sec[w->text].offset = sizeof(Elf64_Ehdr);
	if (!note) {
		w->why = "its note section has no section symbol";
		return -EINVAL;
	}
	return dip_module_trampolines_out(w, l);
}

/* Index of the first global symbol: .symtab's sh_info. */
static uint32_t dip_first_global(const struct dip_syms *s)
{
	struct dip_sym y;
	size_t i;

	for (i = 1; i < s->nr; i++) {
		dip_sym_at(s, i, &y);
		if (ELF64_ST_BIND(y.info) != STB_LOCAL)
			return (uint32_t)i;
	}
	return (uint32_t)s->nr;
}

static bool dip_name_offset(const struct dip_work *w, const char *name,
			    uint32_t *off)
{
	size_t i;

	for (i = 0; i < w->nr_strs; i++) {
		if (dip_str_is(&w->strs[i], name)) {
			*off = w->strs[i].off;
			return true;
		}
	}
	return false;
}

static void dip_tables_out(const struct dip_work *w, struct dip_layout *l)
{
	size_t n = w->nr_slots;
	struct dip_section *symtab = &l->sec[n], *strtab = &l->sec[n + 1],
			   *shstrtab = &l->sec[n + 2];

	dip_name_offset(w, ".symtab", &symtab->name);
	symtab->type = SHT_SYMTAB;
	symtab->size = w->t->symtab_len;
	symtab->data = w->t->symtab;
	symtab->link = (uint32_t)(n + 1);
	symtab->info = dip_first_global(&w->syms);
	symtab->align = w->syms.is64 ? 8 : 4;
	symtab->entsize = w->syms.entsize;
	dip_name_offset(w, ".strtab", &strtab->name);
	strtab->type = SHT_STRTAB;
	strtab->size = w->t->strtab_len;
	strtab->data = w->t->strtab;
	strtab->align = 1;
	dip_name_offset(w, ".shstrtab", &shstrtab->name);
	shstrtab->type = SHT_STRTAB;
	shstrtab->size = w->t->shstrtab_len;
	shstrtab->data = w->t->shstrtab;
	shstrtab->align = 1;
	l->shstrndx = n + 2;
}

int dip_layout_make(const struct dip_tables *t, const unsigned char *build_id,
		    size_t build_id_len, struct dip_layout *l, const char **why)
{
	struct dip_work w = { .t = t };
	const char *note;
	int err;

	memset(l, 0, sizeof(*l));
	l->machine = EM_NONE;
	l->type = t->module ? ET_REL : ET_EXEC;
	w.module = t->module;
	note = dip_layout_note_name(t->shstrtab, t->shstrtab_len, &w.why);
	err = -EINVAL;
	if (!note)
		goto out;
	if (!t->note_name || strcmp(note, t->note_name) != 0) {
		w.why = "the note section fetched is not the one perf reads";
		goto out;
	}
	err = dip_byte_order(&w, build_id, build_id_len, l);
	if (!err)
		err = dip_class(&w, l);
	if (!err && !dip_split_names(&w, t->shstrtab, t->shstrtab_len))
		err = -ENOMEM;
	if (!err)
		err = dip_work_alloc(&w);
	if (!err)
		err = dip_scan_symbols(&w);
	if (!err)
		err = dip_names(&w);
	if (!err)
		err = dip_check_names(&w);
	if (!err)
		err = t->module ? dip_module_sections(&w, l) :
				  dip_sections(&w, l);
	if (!err)
		dip_tables_out(&w, l);
out:
	if (err) {
		dip_layout_free(l);
		*why = err == -ENOMEM ? "out of memory" : w.why;
	}
	dip_work_free(&w);
	return err;
}

void dip_layout_free(struct dip_layout *l)
{
	free(l->sec);
	l->sec = NULL;
	l->nr = 0;
}
