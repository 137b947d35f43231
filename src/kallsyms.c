// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kallsyms - kernel addresses named from /proc/kallsyms (or a recording's
 * copy), for the decoder's symbol print helpers (%pS and friends, see
 * printfmt.c) and the stack frames; see decode.h and kallsyms.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "decode.h"
#include "kallsyms.h"
#include "util.h"

/*
 * The one lock of libtraceevent's handles (decode.h), here in the lowest of
 * the decode files that takes it: the table below is loaded under it too.
 */
static pthread_mutex_t tep_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void decode_lock(void)
{
	pthread_mutex_lock(&tep_lock);
}

void decode_unlock(void)
{
	pthread_mutex_unlock(&tep_lock);
}

struct ksym {
	unsigned long long addr;
	const char *name;
	const char *mod;	/* the module it is in, NULL: the kernel's own */
};

/*
 * One table per process: the print helpers libtraceevent calls get no
 * context pointer, and there is one kernel anyway.
 */
static struct {
	struct ksym *v;
	size_t n;
	char *text;
	bool tried;
	const char *path;
} ksyms = { .path = "/proc/kallsyms" };

void decode_kallsyms_set_path(const char *path)
{
	ksyms.path = path;
	ksyms.tried = false;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* stable for aliases: the first one listed wins, as in the kernel's table */
	return x->name < y->name ? -1 : x->name > y->name;
}

int decode_kallsyms_parse(const char *buf, size_t len)
{
	size_t alloc = 0, n = 0;
	struct ksym *v = NULL;
	char *text, *p, *end;

	text = malloc(len + 1);
	if (!text)
		return -1;
	memcpy(text, buf, len);
	text[len] = '\0';
	for (p = text, end = text + len; p < end; ) {
		char *nl = memchr(p, '\n', end - p), *name, *sp;
		unsigned long long addr;

		if (!nl)
			nl = end;
		*nl = '\0';
		addr = strtoull(p, &sp, 16);
		/* "addr type name [module]" */
		if (sp != p && sp[0] == ' ' && sp[1] && sp[2] == ' ' && addr) {
			char *mod = NULL;

			name = sp + 3;
			sp = strchr(name, '\t');
			/* module symbols: "name\t[module]", the name bare, the module kept */
			if (sp) {
				*sp = '\0';
				if (sp[1] == '[' && (mod = strchr(sp + 2, ']'))) {
					*mod = '\0';
					mod = sp + 2;
				}
			}
			if (n == alloc) {
				struct ksym *nv;

				alloc = alloc ? alloc * 2 : 4096;
				nv = realloc(v, alloc * sizeof(*v));
				if (!nv) {
					free(v);
					free(text);
					return -1;
				}
				v = nv;
			}
			v[n].addr = addr;
			v[n].name = name;
			v[n].mod = mod;
			n++;
		}
		p = nl + 1;
	}
	if (n)	/* v is NULL for a text without symbols: qsort must not see it */
		qsort(v, n, sizeof(*v), ksym_cmp);
	free(ksyms.v);
	free(ksyms.text);
	ksyms.v = v;
	ksyms.n = n;
	ksyms.text = text;
	__atomic_store_n(&ksyms.tried, true, __ATOMIC_RELEASE);
	return 0;
}

static void kallsyms_load(void)
{
	size_t len;
	char *buf;

	buf = tp_read_file(ksyms.path, &len);
	if (buf)
		decode_kallsyms_parse(buf, len);
	free(buf);
	__atomic_store_n(&ksyms.tried, true, __ATOMIC_RELEASE);
}

/* Symbol at or below addr, with the distance to the next higher symbol as its size. */
static const struct ksym *ksym_find(unsigned long long addr, unsigned long long *size)
{
	size_t lo = 0, hi, i;

	/* loaded once, by the first thread that asks (output_pool.c's workers ask too) */
	if (!__atomic_load_n(&ksyms.tried, __ATOMIC_ACQUIRE)) {
		decode_lock();
		if (!ksyms.tried)
			kallsyms_load();
		decode_unlock();
	}
	hi = ksyms.n;
	if (!hi || addr < ksyms.v[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (ksyms.v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* the first of several aliases */
	while (lo > 0 && ksyms.v[lo - 1].addr == ksyms.v[lo].addr)
		lo--;
	for (i = lo + 1; i < ksyms.n && ksyms.v[i].addr == ksyms.v[lo].addr; i++)
		;
	if (i >= ksyms.n)
		return NULL;	/* past the last symbol: no size, the kernel says no either */
	*size = ksyms.v[i].addr - ksyms.v[lo].addr;
	return &ksyms.v[lo];
}

/*
 * Print helpers for the rewritten print fmts.  libtraceevent's own %pS gives
 * "sym+0xoff" without the "/0xsize" the kernel prints, and needs the symbols
 * registered one by one; these print exactly what the kernel's vsprintf does.
 */
/*
 * addr as the kernel prints it: "sym+0xoff/0xsize" (with_off) or "sym", or
 * the bare address when no symbol holds it.  lookup is the address searched
 * for: %pB looks up the call before a return address (addr - 1).
 */
static void print_sym(struct trace_seq *s, unsigned long long addr, unsigned long long lookup,
		      bool with_off)
{
	const struct ksym *k;
	unsigned long long size;

	k = ksym_find(lookup, &size);
	if (!k)
		trace_seq_printf(s, "0x%llx", addr);
	else if (with_off)
		trace_seq_printf(s, "%s+0x%llx/0x%llx", k->name, addr - k->addr, size);
	else
		trace_seq_puts(s, k->name);
	/* the kernel's %ps and %pS name a module's symbol's module after it */
	if (k && k->mod)
		trace_seq_printf(s, " [%s]", k->mod);
}

/* Symbols that a tep_handle holds instead of the table (decode_kallsyms_use_tep). */
static struct tep_handle *ksym_tep;

void decode_kallsyms_use_tep(struct tep_handle *tep)
{
	ksym_tep = tep;
}

const char *decode_ksym(unsigned long long addr, unsigned long long *off)
{
	const struct ksym *k;
	unsigned long long size;
	const char *name;

	decode_lock();
	if (ksym_tep) {
		name = tep_find_function(ksym_tep, addr);
		if (name)
			*off = addr - tep_find_function_address(ksym_tep, addr);
		decode_unlock();
		return name;
	}
	k = ksym_find(addr, &size);
	decode_unlock();
	if (!k)
		return NULL;
	*off = addr - k->addr;
	return k->name;
}

/*
 * The module addr's symbol is in (NULL: the kernel's own, or not known).
 * libtraceevent 1.7 keeps a function's module but has no call that gives it,
 * so a file read through libtracecmd's symbols (decode_kallsyms_use_tep)
 * names no module.
 */
const char *decode_ksym_module(unsigned long long addr)
{
	const struct ksym *k;
	unsigned long long size;

	if (ksym_tep)
		return NULL;
	k = ksym_find(addr, &size);
	return k ? k->mod : NULL;
}

unsigned long long kallsyms_symoff(struct trace_seq *s, unsigned long long *args)
{
	print_sym(s, args[0], args[0], true);
	return 0;
}

unsigned long long kallsyms_sym(struct trace_seq *s, unsigned long long *args)
{
	print_sym(s, args[0], args[0], false);
	return 0;
}

/* %pB: the symbol of the call before a return address. */
unsigned long long kallsyms_symoff_b(struct trace_seq *s, unsigned long long *args)
{
	if (args[0])
		print_sym(s, args[0], args[0] - 1, true);
	else
		trace_seq_printf(s, "0x%llx", args[0]);
	return 0;
}

void decode_sym_print(struct trace_seq *s, unsigned long long addr, enum dec_sym how)
{
	switch (how) {
	case DEC_SYM:
		print_sym(s, addr, addr, false);
		break;
	case DEC_SYM_OFF:
		print_sym(s, addr, addr, true);
		break;
	case DEC_SYM_OFF_B:
		kallsyms_symoff_b(s, &addr);
		break;
	default:
		trace_seq_printf(s, "0x%llx", addr);
	}
}
