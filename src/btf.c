// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btf - the running kernel's enum constants, from its BTF; see btf.h.
 *
 * libbpf parses the whole BTF blob (5.5 MB, 127,000 types on the 6.18 host);
 * our one pass over its enums then fills a hash table of the 19,000
 * constants.  Both happen on the first lookup only, so a command whose
 * formats name no constant never pays for them (bench/btf.py measures it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf.h"
#include "util.h"

#define BTF_VMLINUX "/sys/kernel/btf/vmlinux"

struct enum_slot {
	const char *name;	/* in the BTF's string section; NULL: free slot */
	unsigned long long value;
	bool ambiguous;		/* two enums define it with different values */
};

static struct {
	struct btf *btf;
	struct enum_slot *slot;
	size_t mask;
	bool tried;
} enums;

static size_t name_hash(const char *s, size_t len)
{
	size_t h = 14695981039346656037ULL;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static struct enum_slot *slot_find(const char *name, size_t len)
{
	size_t i = name_hash(name, len) & enums.mask;

	for (;; i = (i + 1) & enums.mask) {
		struct enum_slot *e = &enums.slot[i];

		if (!e->name || (!strncmp(e->name, name, len) && !e->name[len]))
			return e;
	}
}

static void slot_add(const char *name, unsigned long long value)
{
	struct enum_slot *e;

	if (!name || !*name)
		return;
	e = slot_find(name, strlen(name));
	if (!e->name) {
		e->name = name;
		e->value = value;
	} else if (e->value != value) {
		/* static enums of two files may share a name: we cannot tell which is meant */
		e->ambiguous = true;
	}
}

static int no_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/*
 * The BTF of path.  libbpf 1.1 reads a file through stdio, and sysfs hands
 * out a page per read(): 1,350 reads and 12 ms of system time for
 * /sys/kernel/btf/vmlinux.  Kernels since 6.16 let it be mapped: then
 * btf__new() parses (and copies) the mapped bytes, in about 4 ms.
 */
static struct btf *btf_open(const char *path)
{
	struct btf *btf = NULL;
	struct stat st;
	void *p;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size < (1LL << 31)) {
		p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			btf = btf__new(p, st.st_size);
			munmap(p, st.st_size);
			if (!btf)
				btf = NULL;
		}
	}
	close(fd);
	return btf ? btf : btf__parse(path, NULL);
}

static void enums_load(void)
{
	const char *path = getenv("TPCTL_BTF");
	size_t n = 0, cap;
	__u32 id, nt;

	enums.tried = true;
	if (!path || !*path)
		path = BTF_VMLINUX;
	/* no BTF is today's behaviour, not an error: libbpf must not say otherwise */
	libbpf_set_print(no_print);
	enums.btf = btf_open(path);
	if (!enums.btf) {
		tp_debug("no enum names from '%s': %s", path, strerror(errno));
		return;
	}
	nt = btf__type_cnt(enums.btf);
	for (id = 1; id < nt; id++) {
		const struct btf_type *t = btf__type_by_id(enums.btf, id);

		if (btf_is_enum(t) || btf_is_enum64(t))
			n += btf_vlen(t);
	}
	for (cap = 64; cap < 2 * n; cap *= 2)
		;
	enums.slot = calloc(cap, sizeof(*enums.slot));
	if (!enums.slot) {
		btf__free(enums.btf);
		enums.btf = NULL;
		return;
	}
	enums.mask = cap - 1;
	for (id = 1; id < nt; id++) {
		const struct btf_type *t = btf__type_by_id(enums.btf, id);
		int i, vlen = btf_vlen(t);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			/* kflag: a signed enum; 32-bit values widen with their sign */
			for (i = 0; i < vlen; i++)
				slot_add(btf__name_by_offset(enums.btf, e[i].name_off),
					 btf_kflag(t) ? (unsigned long long)(long long)e[i].val :
					 (unsigned long long)(uint32_t)e[i].val);
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (i = 0; i < vlen; i++)
				slot_add(btf__name_by_offset(enums.btf, e[i].name_off),
					 btf_enum64_value(&e[i]));
		}
	}
	tp_debug("%zu enum constants from '%s'", n, path);
}

bool btf_enum_value(const char *name, size_t len, unsigned long long *value, void *ctx)
{
	struct enum_slot *e;

	(void)ctx;
	if (!enums.tried)
		enums_load();
	if (!enums.slot || !len)
		return false;
	e = slot_find(name, len);
	if (!e->name || e->ambiguous)
		return false;
	*value = e->value;
	return true;
}

bool btf_loaded(void)
{
	return enums.slot != NULL;
}
