// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym - user stack frames named from the live process; see usym.h.
 *
 * libdwfl does the work: dwfl_linux_proc_report() reads /proc/PID/maps into
 * modules, dwfl_linux_proc_find_elf() opens the mapped files, and
 * dwfl_module_addrinfo() finds the symbol of an address.  What is kept here
 * is one Dwfl per process for the processes seen last, and when to read a
 * process again: an address outside every module (a new mapping, dlopen)
 * at most every RETRY_NS, and a new executable behind /proc/PID/exe (an
 * exec, or the pid given to another process) looked for every RECHECK_NS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include <elfutils/libdwfl.h>

#include "usym.h"
#include "util.h"

#define USYM_PROCS 32
#define RETRY_NS 100000000ULL
#define RECHECK_NS TP_NS_PER_S

struct uproc {
	int tgid;
	Dwfl *dwfl;			/* NULL: the process could not be read */
	unsigned long long used;	/* for the eviction of the least recently used */
	unsigned long long read_at;	/* CLOCK_MONOTONIC ns of the last read of its maps */
	unsigned long long checked_at;	/* ... of the last look at its executable */
	dev_t dev;
	ino_t ino;
};

struct usym {
	struct uproc p[USYM_PROCS];
	int n;
	unsigned long long tick;
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec * TP_NS_PER_S + ts.tv_nsec;
}

/* No separate debug info: it may be large, slow to find, or (debuginfod) remote. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = no_debuginfo,
};

static bool exe_id(int tgid, dev_t *dev, ino_t *ino)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", tgid);
	if (stat(path, &st))
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

static void proc_read(struct uproc *p, unsigned long long now)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->read_at = p->checked_at = now;
	p->dwfl = dwfl_begin(&callbacks);
	if (!p->dwfl)
		return;
	dwfl_report_begin(p->dwfl);
	if (!exe_id(p->tgid, &p->dev, &p->ino) || dwfl_linux_proc_report(p->dwfl, p->tgid) ||
	    dwfl_report_end(p->dwfl, NULL, NULL)) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
	}
}

static struct uproc *proc_get(struct usym *u, int tgid)
{
	unsigned long long now = now_ns();
	struct uproc *p = NULL;
	dev_t dev;
	ino_t ino;
	int i;

	for (i = 0; i < u->n; i++)
		if (u->p[i].tgid == tgid)
			p = &u->p[i];
	if (!p) {
		if (u->n < USYM_PROCS) {
			p = &u->p[u->n++];
		} else {
			p = &u->p[0];
			for (i = 1; i < u->n; i++)
				if (u->p[i].used < p->used)
					p = &u->p[i];
			if (p->dwfl)
				dwfl_end(p->dwfl);
		}
		memset(p, 0, sizeof(*p));
		p->tgid = tgid;
		proc_read(p, now);
	} else if (!p->dwfl && now - p->read_at >= RETRY_NS) {
		proc_read(p, now);
	} else if (p->dwfl && now - p->checked_at >= RECHECK_NS) {
		p->checked_at = now;
		if (!exe_id(tgid, &dev, &ino) || dev != p->dev || ino != p->ino)
			proc_read(p, now);
	}
	p->used = ++u->tick;
	return p;
}

struct usym *usym_new(void)
{
	return calloc(1, sizeof(struct usym));
}

void usym_free(struct usym *u)
{
	int i;

	if (!u)
		return;
	for (i = 0; i < u->n; i++)
		if (u->p[i].dwfl)
			dwfl_end(u->p[i].dwfl);
	free(u);
}

const char *usym_lookup(struct usym *u, int tgid, uint64_t addr, bool ret,
			unsigned long long *off, const char **obj)
{
	uint64_t look = ret && addr ? addr - 1 : addr;
	struct uproc *p = proc_get(u, tgid);
	Dwfl_Module *m = NULL;
	const char *name;
	GElf_Off o = 0;
	GElf_Sym sym;

	*obj = NULL;
	if (p->dwfl)
		m = dwfl_addrmodule(p->dwfl, look);
	if (!m && p->dwfl && now_ns() - p->read_at >= RETRY_NS) {
		/* mapped since the process was read (dlopen, a JIT's file) */
		proc_read(p, now_ns());
		if (p->dwfl)
			m = dwfl_addrmodule(p->dwfl, look);
	}
	if (!m)
		return NULL;
	*obj = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	name = dwfl_module_addrinfo(m, look, &o, &sym, NULL, NULL, NULL);
	if (name)
		*off = o + (addr - look);
	return name;
}
