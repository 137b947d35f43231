// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probe - SPECs and ARGs of dynamic events, symbols resolved in ELF files,
 * the probes made through libtracefs and journaled; see probe.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "names.h"
#include "near.h"
#include "opt.h"
#include "probe.h"
#include "state.h"
#include "tfs.h"
#include "util.h"

/* x86-64 System V: the registers of the first six integer arguments. */
static const char *const arg_regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

void probe_free(struct probe *p)
{
	free(p->name);
	free(p->path);
	free(p->symbol);
	free(p->target_sys);
	free(p->target_event);
	free(p->args);
	memset(p, 0, sizeof(*p));
}

/* ---------------------------------------------------------------- what the kernel has */

static bool tracefs_has(const char *file)
{
	char *path;
	bool ok;

	if (asprintf(&path, "%s/%s", tfs_dir(), file) < 0)
		return false;
	ok = access(path, F_OK) == 0;
	free(path);
	return ok;
}

/*
 * Event probes have no file of their own, and README shows their syntax
 * whether the kernel has them or not (6.18 without CONFIG_EPROBE_EVENTS
 * does): the kernel has them when it has their code.
 */
bool probe_kernel_has_eprobes(void)
{
	char *syms = tp_read_file("/proc/kallsyms", NULL);
	bool ok;

	ok = syms && (strstr(syms, " eprobe_dyn_event_create\n") ||
		      strstr(syms, " __trace_eprobe_create\n") ||
		      strstr(syms, " eprobe_register\n"));
	free(syms);
	return ok;
}

/* The kernel has this kind of probe; else said, and TP_FAIL (a kernel without a feature: 1). */
static int kernel_check(enum probe_kind kind)
{
	switch (kind) {
	case PROBE_UPROBE:
	case PROBE_URETPROBE:
		if (tracefs_has("uprobe_events"))
			return TP_OK;
		tp_error("this kernel has no uprobe events (CONFIG_UPROBE_EVENTS is off)");
		return TP_FAIL;
	case PROBE_KPROBE:
	case PROBE_KRETPROBE:
		if (tracefs_has("kprobe_events"))
			return TP_OK;
		tp_error("this kernel has no kprobe events (CONFIG_KPROBE_EVENTS is off)");
		return TP_FAIL;
	case PROBE_EPROBE:
	default:
		if (probe_kernel_has_eprobes())
			return TP_OK;
		tp_error("this kernel has no event probes (CONFIG_EPROBE_EVENTS is off)");
		return TP_FAIL;
	}
}

/* ---------------------------------------------------------------- names */

/* An event name derived from a symbol: what is not [A-Za-z0-9_] becomes '_'. */
static char *name_from(const char *a, const char *suffix)
{
	char *n, *q;

	if (asprintf(&n, "%s%s%s", isdigit((unsigned char)a[0]) ? "p_" : "", a, suffix) < 0)
		return NULL;
	for (q = n; *q; q++)
		if (!isalnum((unsigned char)*q) && *q != '_')
			*q = '_';
	if (strlen(n) > 64)
		n[64] = '\0';
	return n;
}

/* ---------------------------------------------------------------- ELF symbols */

struct sym_search {
	const char *want;
	GElf_Addr addr[8];	/* the distinct addresses of the symbols of that name */
	GElf_Xword size[8];	/* their sizes (st_size), the largest of a name's entries; 0: unknown */
	int naddr;
	struct near near;	/* the closest other names, for the error */
};

static void scan_symbols(Elf *elf, struct sym_search *s)
{
	size_t want = strlen(s->want);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int i, k;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; (size_t)i < n; i++) {
			GElf_Sym sym;
			const char *name;
			size_t len;
			int type;

			if (!gelf_getsym(data, i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name)
				continue;
			/* "getenv@@GLIBC_2.2.5" in some symbol tables is getenv */
			len = strcspn(name, "@");
			if (len != want || strncmp(name, s->want, len)) {
				near_add(&s->near, name, len);
				continue;
			}
			for (k = 0; k < s->naddr; k++)
				if (s->addr[k] == sym.st_value)
					break;
			if (k == s->naddr && s->naddr < 8) {
				s->size[s->naddr] = 0;
				s->addr[s->naddr++] = sym.st_value;
			}
			/* .symtab and .dynsym both list it: the same size, or one unknown */
			if (k < s->naddr && sym.st_size > s->size[k])
				s->size[k] = sym.st_size;
		}
	}
}

/* The file offset of a virtual address: the PT_LOAD segment that maps it. */
static bool vaddr_offset(Elf *elf, GElf_Addr addr, unsigned long long *off)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

/* "; closest: 'a', 'b'" or "" */
/*
 * SYMBOL (or 0xADDR, a virtual address as nm and objdump show it) plus off,
 * in the ELF file path, to the file offset the kernel's uprobe wants.
 */
static int elf_resolve(const char *path, const char *symbol, unsigned long long off,
		       unsigned long long *offset)
{
	struct sym_search s = { .want = symbol, .near = { .want = symbol, .most = NEAR_MAX } };
	unsigned long long addr;
	int fd, ret = TP_USAGE;
	Elf *elf = NULL;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tp_error("cannot open '%s': %s", path, strerror(errno));
		return TP_USAGE;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		tp_error("'%s' is not an ELF file", path);
		goto out;
	}
	if (!strncmp(symbol, "0x", 2)) {
		char *end;

		errno = 0;
		addr = strtoull(symbol + 2, &end, 16);
		if (errno || *end || end == symbol + 2) {
			tp_error("invalid address '%s'", symbol);
			goto out;
		}
	} else {
		scan_symbols(elf, &s);
		if (s.naddr == 0) {
			char near[256];

			near_list(&s.near, near, sizeof(near));
			tp_error("no function '%s' in '%s'%s", symbol, path, near);
			goto out;
		}
		if (s.naddr > 1) {
			tp_error("'%s' names %d functions in '%s' (at 0x%llx and 0x%llx): give "
				 "its address as 0xADDR", symbol, s.naddr, path,
				 (unsigned long long)s.addr[0], (unsigned long long)s.addr[1]);
			goto out;
		}
		addr = s.addr[0];
		/* past its end the probe would sit in another function, or between two */
		if (s.size[0] && off >= s.size[0]) {
			tp_error("offset %llu is past the end of '%s' in '%s' (%llu bytes long)", off,
				 symbol, path, (unsigned long long)s.size[0]);
			goto out;
		}
	}
	if (!vaddr_offset(elf, addr + off, offset)) {
		tp_error("address 0x%llx is in no loaded segment of '%s'", addr + off, path);
		goto out;
	}
	ret = TP_OK;
out:
	near_free(&s.near);
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* A kernel function, in /proc/kallsyms (text symbols), or the closest names. */
static int kernel_symbol_check(const char *symbol)
{
	struct sym_search s = { .want = symbol, .near = { .want = symbol, .most = NEAR_MAX } };
	char *all = tp_read_file("/proc/kallsyms", NULL), *line, *save = NULL;
	int ret = TP_USAGE;

	if (!all)
		return TP_OK;	/* the kernel will say */
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char type, name[256];

		if (sscanf(line, "%*s %c %255s", &type, name) != 2 || (type != 't' && type != 'T'))
			continue;
		if (!strcmp(name, symbol)) {
			ret = TP_OK;
			break;
		}
		near_add(&s.near, name, strlen(name));
	}
	if (ret) {
		char near[256];

		near_list(&s.near, near, sizeof(near));
		tp_error("no kernel function '%s'%s", symbol, near);
	}
	near_free(&s.near);
	free(all);
	return ret;
}

/* ---------------------------------------------------------------- ARGs */

/* "argN" at s (len bytes): N in 1..6, else 0. */
static int arg_number(const char *s, size_t len)
{
	if (len == 4 && !strncmp(s, "arg", 3) && s[3] >= '1' && s[3] <= '6')
		return s[3] - '0';
	return 0;
}

static bool is_return(enum probe_kind k)
{
	return k == PROBE_URETPROBE || k == PROBE_KRETPROBE;
}

/*
 * Whether the field of an event probe's event holds the string itself
 * (char[N], __data_loc char[], __rel_loc char[]), from the format file's
 * "field:DECL;" lines: the kernel fetches such a field as $FIELD:string
 * (6.1 hands the probe the string's address in the record).  Any other field
 * is a pointer, to a user string where a syscall's argument is one.
 */
static bool eprobe_field_is_string(const struct probe *p, const char *field, size_t len)
{
	char *fmt = tracefs_event_file_read(NULL, p->target_sys, p->target_event, "format", NULL);
	const char *l, *end, *e, *b;
	bool str = false;

	for (l = fmt; l && (l = strstr(l, "field:")); l = end) {
		l += strlen("field:");
		end = strchr(l, ';');
		if (!end)
			break;
		e = end;
		if (e > l && e[-1] == ']')	/* "char foo[10]": the name is before "[10]" */
			while (e > l && *e != '[')
				e--;
		for (b = e; b > l && (isalnum((unsigned char)b[-1]) || b[-1] == '_'); b--)
			;
		if ((size_t)(e - b) != len || strncmp(b, field, len))
			continue;
		str = memmem(l, end - l, "char", 4) &&
		      (end[-1] == ']' || !strncmp(l, "__data_loc", 10) || !strncmp(l, "__rel_loc", 9));
		break;
	}
	free(fmt);
	return str;
}

/*
 * One ARG to the kernel's fetch-arg syntax.  The shortcuts: argN, retval,
 * NAME=argN[:TYPE], NAME=retval[:TYPE] (a string type reads what the value
 * points to), and for event probes FIELD[:string] (the string in the record,
 * or the user string a pointer field points to).  Anything else is the
 * kernel's syntax already and is passed as it is.
 */
static char *arg_convert(const struct probe *p, const char *arg)
{
	const char *eq = strchr(arg, '='), *val, *type, *colon;
	enum probe_kind kind = p->kind;
	char name[72], src[64], *out = NULL;
	size_t vlen;
	int n;

	if (kind == PROBE_EPROBE && !eq && !strchr(arg, '(') && !strchr(arg, '$')) {
		colon = strchr(arg, ':');
		vlen = colon ? (size_t)(colon - arg) : strlen(arg);
		if (!names_ident_valid(arg, vlen, NAMES_PROBE_MAX, true)) {
			tp_error("invalid argument '%s': FIELD or FIELD:string", arg);
			return NULL;
		}
		if (colon && !strcmp(colon + 1, "string") && eprobe_field_is_string(p, arg, vlen))
			n = asprintf(&out, "%.*s=$%.*s:string", (int)vlen, arg, (int)vlen, arg);
		else if (colon && (!strcmp(colon + 1, "string") || !strcmp(colon + 1, "ustring")))
			n = asprintf(&out, "%.*s=+0($%.*s):ustring", (int)vlen, arg, (int)vlen, arg);
		else
			n = asprintf(&out, "%.*s=$%s", (int)vlen, arg, arg);
		return n < 0 ? NULL : out;
	}
	if (eq) {
		if (!names_ident_valid(arg, eq - arg, NAMES_PROBE_MAX, true)) {
			tp_error("invalid argument name in '%s': letters, digits and '_'", arg);
			return NULL;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
		val = eq + 1;
	} else {
		val = arg;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, ":"), arg);
	}
	colon = strchr(val, ':');
	vlen = colon ? (size_t)(colon - val) : strlen(val);
	type = colon ? colon + 1 : NULL;
	if ((n = arg_number(val, vlen))) {
		if (kind == PROBE_EPROBE) {
			tp_error("'%s': an event probe fetches fields, not registers", arg);
			return NULL;
		}
		/* argN reads a register, which holds something else by the return */
		if (is_return(kind)) {
			tp_error("'%s': the arguments are gone at a return probe; take them with "
				 "'u:' or 'k:', or the return value with 'retval'", arg);
			return NULL;
		}
		snprintf(src, sizeof(src), "%s", arg_regs[n - 1]);
	} else if (vlen == 6 && !strncmp(val, "retval", 6)) {
		if (!is_return(kind)) {
			tp_error("'%s': a return value needs a return probe ('ur:' or 'kr:')", arg);
			return NULL;
		}
		snprintf(src, sizeof(src), "$retval");
	} else {
		return strdup(arg);	/* the kernel's own syntax */
	}
	if (type && (!strcmp(type, "string") || !strcmp(type, "ustring")))
		n = asprintf(&out, "%s=+0(%s):%s", name, src, type);
	else
		n = asprintf(&out, "%s=%s%s%s", name, src, type ? ":" : "", type ? type : "");
	return n < 0 ? NULL : out;
}

static int args_convert(struct probe *p, char **args, int nargs)
{
	size_t len = 0;
	int i;

	p->args = strdup("");
	for (i = 0; p->args && i < nargs; i++) {
		char *a, *n;
		const char *c;

		for (c = args[i]; *c; c++)
			if (isspace((unsigned char)*c) || !isprint((unsigned char)*c)) {
				tp_error("invalid argument '%s': no spaces or control characters",
					 args[i]);
				return TP_USAGE;
			}
		a = arg_convert(p, args[i]);
		if (!a)
			return TP_USAGE;
		n = realloc(p->args, len + strlen(a) + 2);
		if (!n) {
			free(a);
			break;
		}
		p->args = n;
		len += sprintf(p->args + len, "%s%s", len ? " " : "", a);
		free(a);
	}
	if (!p->args || i < nargs)
		return tp_oom();
	return TP_OK;
}

/* ---------------------------------------------------------------- SPECs */

/* "SYMBOL[+OFF]": the symbol in *sym, the offset in *off. */
static int split_offset(const char *s, char **sym, unsigned long long *off)
{
	const char *plus = strchr(s, '+');
	char *end;

	*off = 0;
	if (plus) {
		errno = 0;
		*off = strtoull(plus + 1, &end, 0);
		if (errno || *end || end == plus + 1) {
			tp_error("invalid offset in '%s'", s);
			return TP_USAGE;
		}
	}
	*sym = strndup(s, plus ? (size_t)(plus - s) : strlen(s));
	if (!*sym || !**sym) {
		tp_error("no symbol in '%s'", s);
		return TP_USAGE;
	}
	return TP_OK;
}

static bool symbol_chars(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return false;
	return true;
}

static int parse_uprobe(const char *rest, const char *spec, struct probe *p)
{
	const char *colon = strrchr(rest, ':'), *c;
	unsigned long long off;
	char *path, *sym = NULL;
	int ret;

	if (!colon || colon == rest || !colon[1]) {
		tp_error("invalid probe '%s': u:PATH:SYMBOL[+OFF], u:PATH:0xADDR or ur:PATH:SYMBOL",
			 spec);
		return TP_USAGE;
	}
	path = strndup(rest, colon - rest);
	if (!path)
		return TP_FAIL;
	for (c = path; *c; c++)
		if (isspace((unsigned char)*c) || !isprint((unsigned char)*c)) {
			tp_error("invalid path '%s': the kernel's syntax has no room for spaces or "
				 "control characters", path);
			free(path);
			return TP_USAGE;
		}
	ret = split_offset(colon + 1, &sym, &off);
	if (!ret && strncmp(sym, "0x", 2) && !symbol_chars(sym)) {
		tp_error("invalid symbol '%s'", sym);
		ret = TP_USAGE;
	}
	if (!ret) {
		/* the kernel resolves the path itself: give it the file, not a relative name */
		p->path = realpath(path, NULL);
		if (!p->path) {
			tp_error("cannot open '%s': %s", path, strerror(errno));
			ret = TP_USAGE;
		}
	}
	if (!ret)
		ret = elf_resolve(p->path, sym, off, &p->offset);
	if (!ret && !p->name) {
		char *base = strrchr(p->path, '/') + 1, *a = NULL;

		if (!strncmp(sym, "0x", 2) && asprintf(&a, "%s_%s", base, sym) < 0)
			a = NULL;
		p->name = name_from(a ? a : colon + 1, p->kind == PROBE_URETPROBE ? "__return" : "");
		free(a);
	}
	p->symbol = sym;
	free(path);
	return ret;
}

static int parse_kprobe(const char *rest, struct probe *p)
{
	unsigned long long off;
	char *sym = NULL;
	int ret = split_offset(rest, &sym, &off);

	if (!ret && !symbol_chars(sym)) {
		tp_error("invalid kernel symbol '%s'", sym);
		ret = TP_USAGE;
	}
	if (!ret)
		ret = kernel_symbol_check(sym);
	if (!ret && !p->name)
		p->name = name_from(rest, p->kind == PROBE_KRETPROBE ? "__return" : "");
	free(sym);
	if (!ret)
		p->symbol = strdup(rest);
	return ret;
}

static int parse_eprobe(const char *rest, const char *spec, struct probe *p)
{
	const char *colon = strchr(rest, ':');

	if (!colon) {
		tp_error("invalid probe '%s': e:SYSTEM:EVENT", spec);
		return TP_USAGE;
	}
	p->target_sys = strndup(rest, colon - rest);
	p->target_event = strdup(colon + 1);
	if (!p->target_sys || !p->target_event)
		return TP_FAIL;
	/* before any path is built from them */
	if (!tfs_name_valid(p->target_sys) || !tfs_name_valid(p->target_event)) {
		tp_error("invalid event name '%s:%s'", p->target_sys, p->target_event);
		return TP_USAGE;
	}
	if (!tracefs_event_file_exists(NULL, p->target_sys, p->target_event, "format")) {
		tp_error("no event '%s:%s'", p->target_sys, p->target_event);
		return TP_USAGE;
	}
	if (!p->name)
		p->name = name_from(p->target_event, "");
	return TP_OK;
}

int probe_parse(const char *spec, char **args, int nargs, const char *name, struct probe *p)
{
	static const struct {
		const char *prefix;
		enum probe_kind kind;
	} kinds[] = {
		{ "u:", PROBE_UPROBE }, { "ur:", PROBE_URETPROBE }, { "k:", PROBE_KPROBE },
		{ "kr:", PROBE_KRETPROBE }, { "e:", PROBE_EPROBE },
	};
	size_t i, len = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		len = strlen(kinds[i].prefix);
		if (!strncmp(spec, kinds[i].prefix, len))
			break;
	}
	if (i == sizeof(kinds) / sizeof(kinds[0])) {
		tp_error("invalid probe '%s': u:PATH:SYMBOL, ur:PATH:SYMBOL, k:SYMBOL, kr:SYMBOL "
			 "or e:SYSTEM:EVENT", spec);
		return TP_USAGE;
	}
	p->kind = kinds[i].kind;
	if (name) {
		/* a name is checked before any path is built from it */
		if (!names_ident_valid(name, strlen(name), NAMES_PROBE_MAX, true)) {
			tp_error("invalid probe name '%s': letters, digits and '_', not starting "
				 "with a digit", name);
			return TP_USAGE;
		}
		p->name = strdup(name);
	}
	/* a SPEC's own faults first (usage, 2), then the kernel's lack of the kind (1) */
	if (p->kind == PROBE_UPROBE || p->kind == PROBE_URETPROBE)
		ret = parse_uprobe(spec + len, spec, p);
	else if (p->kind == PROBE_EPROBE)
		ret = parse_eprobe(spec + len, spec, p);
	else
		ret = parse_kprobe(spec + len, p);
	if (!ret)
		ret = kernel_check(p->kind);
	if (!ret && !p->name) {
		tp_oom();
		ret = TP_FAIL;
	}
	if (!ret)
		ret = args_convert(p, args, nargs);
	if (ret)
		probe_free(p);
	return ret;
}

int probe_parse_word(const char *word, struct probe *p)
{
	char *copy = strdup(word), *tok, *save = NULL, *spec, *args[64];
	int n = 0, ret;

	if (!copy)
		return tp_oom();
	spec = strtok_r(copy, " \t", &save);
	if (!spec) {
		tp_error("empty probe");
		free(copy);
		return TP_USAGE;
	}
	while ((tok = strtok_r(NULL, " \t", &save)) && n < 64)
		args[n++] = tok;
	if (tok) {
		tp_error("too many arguments in probe '%s'", spec);
		ret = TP_USAGE;
	} else {
		ret = probe_parse(spec, args, n, NULL, p);
	}
	free(copy);
	return ret;
}

int probe_opt(const struct tp_opt *o, const char *arg)
{
	struct probe_words *w = o->value;

	if (w->n == PROBE_MAX) {
		tp_error("at most %d probes", PROBE_MAX);
		return TP_USAGE;
	}
	w->v[w->n++] = (char *)arg;
	return TP_OK;
}

/* ---------------------------------------------------------------- making and removing */

static struct tracefs_dynevent *probe_alloc(const struct probe *p, const char *group)
{
	const char *args = *p->args ? p->args : NULL;

	switch (p->kind) {
	case PROBE_UPROBE:
		return tracefs_uprobe_alloc(group, p->name, p->path, p->offset, args);
	case PROBE_URETPROBE:
		return tracefs_uretprobe_alloc(group, p->name, p->path, p->offset, args);
	case PROBE_KPROBE:
		return tracefs_kprobe_alloc(group, p->name, p->symbol, args);
	case PROBE_KRETPROBE:
		return tracefs_kretprobe_alloc(group, p->name, p->symbol, args, 0);
	case PROBE_EPROBE:
	default:
		return tracefs_eprobe_alloc(group, p->name, p->target_sys, p->target_event, args);
	}
}

/* The removal of group/name as dynamic_events takes it, whatever kind it is. */
static int removal(const char *group, const char *name, char **path, char **undo)
{
	*undo = NULL;
	if (asprintf(path, "%s/dynamic_events", tfs_dir()) < 0)
		return -1;
	if (asprintf(undo, "-:%s/%s\n", group, name) < 0) {
		free(*path);
		return -1;
	}
	return 0;
}

int probe_create(const struct probe *p, const char *group)
{
	struct tracefs_dynevent *d;
	char *path = NULL, *undo = NULL, *before = NULL, *after = NULL;
	sigset_t old;
	int ret = TP_OK, err;

	if (tracefs_event_file_exists(NULL, group, p->name, "format")) {
		tp_error("probe '%s:%s' already exists", group, p->name);
		return TP_FAIL;
	}
	d = probe_alloc(p, group);
	if (!d || removal(group, p->name, &path, &undo) < 0) {
		tracefs_dynevent_free(d);
		return tp_oom();
	}
	/* an entry of error_log is ours only if it was not there before */
	before = tracefs_error_last(NULL);
	/* a signal between the probe and its journal entry would leave the probe behind */
	state_block_signals(&old);
	if (tracefs_dynevent_create(d) < 0) {
		err = errno;
		after = tracefs_error_last(NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (err == EEXIST || err == EBUSY) {
			tp_error("probe '%s:%s' already exists", group, p->name);
			ret = TP_FAIL;
		} else if (err == EACCES || err == EPERM) {
			tp_error("cannot make probe '%s:%s': %s", group, p->name, strerror(err));
			ret = TP_FAIL;
		} else {
			tp_error("the kernel refused probe '%s:%s': %s", group, p->name,
				 strerror(err));
			if (after && (!before || strcmp(before, after)))
				tfs_error_log_put(after);
			ret = TP_USAGE;
		}
		goto out;
	}
	if (state_journal_append(path, undo) < 0) {
		/* cannot promise its removal: remove it now */
		tracefs_instance_file_append(NULL, "dynamic_events", undo);
		sigprocmask(SIG_SETMASK, &old, NULL);
		tp_oom();
		ret = TP_FAIL;
		goto out;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	tp_debug("probe %s:%s made", group, p->name);
out:
	tracefs_dynevent_free(d);
	free(before);
	free(after);
	free(path);
	free(undo);
	return ret;
}

const char *probe_run_group(void)
{
	static char group[32];

	snprintf(group, sizeof(group), PROBE_RUN_PREFIX "%d", (int)getpid());
	return group;
}

int probe_session_make(char **words, int n, struct tfs_event_list *evs)
{
	struct probe *p = calloc(n ? n : 1, sizeof(*p));
	int i, made = 0, ret = TP_OK;

	if (!p)
		return tp_oom();
	/* every SPEC checked before the first probe is made */
	for (i = 0; !ret && i < n; i++, made++)
		ret = probe_parse_word(words[i], &p[i]);
	for (i = 0; !ret && i < n; i++) {
		ret = probe_create(&p[i], probe_run_group());
		if (!ret && tfs_event_list_add(evs, probe_run_group(), p[i].name) < 0) {
			tp_oom();
			ret = TP_FAIL;
		}
	}
	for (i = 0; i < made; i++)
		probe_free(&p[i]);
	free(p);
	return ret;
}

/*
 * libtracefs 1.6.4 reads dynamic_events and the per-kind files (uprobe_events,
 * kprobe_events) both, so each probe comes twice: an event seen before is skipped.
 */
bool probe_dynevent_seen(struct tracefs_dynevent **all, int i, const char *sys, const char *ev)
{
	bool same = false;
	int k;

	for (k = 0; k < i && !same; k++) {
		char *s = NULL, *e = NULL;

		tracefs_dynevent_info(all[k], &s, &e, NULL, NULL, NULL);
		same = s && e && sys && ev && !strcmp(s, sys) && !strcmp(e, ev);
		free(s);
		free(e);
	}
	return same;
}

/*
 * The probes of runs whose tpctl was killed.  Read from dynamic_events
 * through tracefs_dynevent_get_all(), which is fine for the names; its kind
 * is not (see cmd_probe.c), and the removal goes to dynamic_events, which
 * takes every kind.
 */
int probe_remove_orphans(void)
{
	struct tracefs_dynevent **all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_ALL, NULL);
	int i, ret = TP_OK;

	for (i = 0; all && all[i]; i++) {
		char *sys = NULL, *ev = NULL, *undo;

		tracefs_dynevent_info(all[i], &sys, &ev, NULL, NULL, NULL);
		if (sys && ev && names_orphaned(sys, PROBE_RUN_PREFIX) &&
		    !probe_dynevent_seen(all, i, sys, ev) &&
		    asprintf(&undo, "-:%s/%s\n", sys, ev) >= 0) {
			if (tracefs_instance_file_append(NULL, "dynamic_events", undo) < 0) {
				tp_error("cannot remove orphaned probe '%s:%s': %s", sys, ev,
					 strerror(errno));
				ret = TP_FAIL;
			} else {
				tp_note("removed orphaned probe '%s:%s' (its process is gone)", sys,
					ev);
			}
			free(undo);
		}
		free(sys);
		free(ev);
	}
	tracefs_dynevent_list_free(all);
	return ret;
}
