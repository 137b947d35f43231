/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * agg_local - what the files of the aggregation share and nothing else sees
 * (as libtracefs's tracefs-local.h): struct agg and the structures it holds,
 * and the functions one of agg.c (rows and tables), agg_task.c (per-task names),
 * agg_join.c (the START/END join), agg_gone.c (tasks gone) and agg_kernel.c
 * (the kernel engine) gives the others above it.  agg.h is the interface.
 */
#ifndef TPCTL_AGG_LOCAL_H
#define TPCTL_AGG_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <event-parse.h>

#include "agg.h"
#include "comm.h"
#include "decode.h"
#include "oncpu.h"

/* Longest string key kept; longer ones are cut (and so merged) there. */
#define KEY_STR_MAX 256
/* Frames of a stack key kept; deeper ones are cut (the kernel records up to 64 or so). */
#define STACK_MAX 128
#define KEY_MAX (4 + AGG_MAX_KEYS * (2 + KEY_STR_MAX) + 2 + STACK_MAX * 8 + 8)
/* The kernel's hist triggers take at most three keys (TRACING_MAP_KEYS_MAX). */
#define KERNEL_KEYS_MAX 3
#define TASK_COMM 16

/* ---------------------------------------------------------------- rows */

struct row {
	uint64_t hash;
	uint32_t koff, klen;
	uint64_t count, sum, min, max;
};

struct tab {
	struct row *rows;
	size_t n, alloc;
	uint32_t *slot;		/* row index + 1; 0: empty.  A power of two in size. */
	size_t nslot;
	unsigned char *keys;
	size_t klen, kalloc;
	size_t max;		/* rows at most (0: no bound) */
	bool full;		/* the last tab_get() refused a new row: max reached */
};

static inline uint64_t hash_bytes(const unsigned char *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	if (n) {
		w = 0;
		memcpy(&w, p, n);
		h = (h ^ w) * 0x94d049bb133111ebULL;
	}
	return h ^ (h >> 29);
}

/* ---------------------------------------------------------------- set-up */

enum kk_type { KK_EXECNAME, KK_PID, KK_NUM, KK_STR };

/* One key of the kernel's hist trigger for an event. */
struct kkey {
	const char *name;	/* as the trigger names it */
	enum kk_type type;
};

struct col {
	enum agg_key_kind kind;
	const struct dec_field *f;	/* AGG_KEY_FIELD */
	bool str;			/* a string field */
	enum dec_sym sym;		/* printed as a kernel symbol */
	bool sysname;			/* a syscall number printed by name (--by syscall) */
	int kk;				/* the kernel key it comes from */
};

struct ev {
	char *sys, *name, *label;
	int id;
	struct col col[AGG_MAX_KEYS];
	const struct dec_field *vf;	/* hist: the value field */
	struct kkey kk[KERNEL_KEYS_MAX + 1];
	int nkk;
	int vkk;			/* the kernel key of the value */
	const char *kwhy;		/* why the kernel cannot aggregate it, or NULL */
	bool kplanned;
	char *fmt;			/* latency: its format text (symbolic names) */
	int8_t jside[2];		/* latency: its sides (index + 1), the END first */
	const struct dec_field *woken;	/* latency, infer_in: a wakeup's task woken */
	bool strings;			/* a --strings probe: its strings may be faults */
};

/* ---------------------------------------------------------------- latency */


/* Where a latency key comes from and how its slot of the row key is made. */
enum lk {
	LK_INT,		/* a number field: 8 bytes */
	LK_STR,		/* a string field: 2-byte length and bytes */
	LK_NAMES,	/* a number field shown by name (__print_symbolic, syscalls) */
	LK_PID,		/* the pair's task: 4 bytes */
	LK_COMM,	/* its name: a string field, or its pid (4 bytes) looked up later */
	LK_CPU,		/* the END's CPU: 4 bytes */
	LK_EVENT,	/* the START's event name */
	LK_STACK,	/* the START's kernel stack: 2-byte count and the frames */
};

struct names {
	const char **v;		/* value -> name, NULL where there is none */
	size_t n;
};

struct jside {
	int ev;				/* a->ev index */
	bool end;
	const struct dec_field *m[AGG_MATCH_MAX];
	int nm;
	const struct dec_field *pid, *comm, *cond;
	const struct dec_field *kf[AGG_MAX_KEYS];	/* key k's field here (its role's sides) */
	struct names kn[AGG_MAX_KEYS];
	bool task;			/* a START of it waits on its task (matched on the pid) */
};

/* A START waiting for its END. */
struct jopen {
	uint64_t hash;
	uint64_t ts;
	uint32_t chain;			/* next in the hash bucket, index + 1 */
	uint32_t older, newer;		/* insertion order, index + 1 */
	uint8_t mlen;
	bool used;
	unsigned char mkey[AGG_MATCH_MAX * 8 + 4];
	unsigned char *skey;		/* the START's part of the row key */
	uint32_t slen, salloc;
	unsigned char *srec;		/* --over: the START's record */
	uint32_t sreclen, srecalloc;
	int scpu;
	int32_t tpid;			/* the task it waits on (its match is the pid); 0: none */
	bool orphan;			/* its task was gone at the last reap */
};

#define JOIN_OPEN_DEFAULT 65536

struct pcomm {
	int pid;
	bool used;
	char comm[TASK_COMM + 1];
	int32_t key;			/* its name's key (agg_comm_key); 0: not made yet */
	unsigned long long start;	/* when the task began (/proc); 0: gone when met */
};

/* A record that names a task (agg_task.c: names at the event's time). */
struct nameev {
	int id;
	const struct dec_field *pid;	/* NULL: the task that traced it */
	const struct dec_field *comm;
	bool path;			/* comm is an exec's file: its basename */
	bool fork;			/* sched_process_fork: the child of an own task is own */
};
#define NAMEEV_MAX COMM_RENAME_EVENTS

/* The name of the tasks that are gone, folded into one pid of their own (-1 - index). */
struct dname {
	char comm[TASK_COMM + 1];
};

struct agg {
	const struct agg_spec *spec;
	unsigned long long faults;	/* --strings keys the kernel could not fetch */
	struct tep_handle *tep;
	struct decoder *dec;
	struct ev *ev;
	int nev;
	uint32_t *by_id;		/* event id -> index + 1 */
	int nid;
	enum agg_col_type type[AGG_MAX_KEYS];
	bool vsign;
	struct tab cur, total;
	struct tab kprev;		/* kernel engine: the counts last read, exact keys */
	bool kcomm;			/* kernel engine: a comm key is the entry's name, not a pid */
	struct pcomm *pc;		/* pid -> its name when first counted (pcomm_set) */
	size_t npc, npcused;
	struct dname *dn;		/* the names of the tasks gone (agg_tasks_reap) */
	uint32_t *dnslot;		/* index + 1, hashed by name; a power of two in size */
	size_t ndn, adn, ndnslot;
	struct comm_saved names;	/* saved_cmdlines as last read (comm_of) */
	struct nameev nameev[NAMEEV_MAX];	/* the events that name tasks, in tep */
	int nnameev;
	uint64_t lost_cur, lost_total;
	uint64_t refused;		/* events not counted: their row would pass the bound */
	comm_load_fn comm_fn;
	void *comm_ctx;
	/* a stack key: the events waiting for their stack record, per CPU */
	int stack_col;			/* the key that is the stack, -1: none */
	int kstack_id;			/* ftrace:kernel_stack */
	const struct dec_event *kstack;
	struct pend *pend;
	int npend;
	/* latency (spec->join) */
	struct jside js[AGG_SIDES_MAX];
	int njs;
	int jev;			/* the rows' own ev: the layout of their keys */
	enum lk lk[AGG_MAX_KEYS];
	bool kend[AGG_MAX_KEYS];	/* key k comes from the END */
	struct jopen *open;
	uint32_t *heads;
	size_t cap, maxopen, nbucket, nopen;
	uint32_t oldest, newest, free_list;
	uint64_t unmatched;
	uint64_t vdiv;			/* log2 buckets of latency count microseconds */
	uint64_t runnable_mask;		/* prev_state bits that say "not runnable" */
	uint64_t state_keep;		/* a START's condition: the prev_state bits kept */
	bool state_runnable;		/* ... and a task that could still run */
	struct names sysnames;
	bool sysnames_read;
	/* latency: what takes a record (agg_join.c, set by agg_ready()) */
	void (*join_record)(struct agg *a, const struct ev *e, const struct tep_record *rec);
	/* ftrace:kernel_stack's record: the stack of the START waiting on its CPU */
	void (*join_stack)(struct agg *a, const struct tep_record *rec);
	agg_pair_fn pair_fn;		/* --over */
	void *pair_ctx;
	uint64_t over;
	/* latency: the target's tasks (agg_own), an open-addressed set of pids */
	int *own;
	size_t nown, aown;
	bool own_on, own_follow;
	/* infer_in: who runs where by the records, the switches in inferred */
	struct oncpu on;
	/* a stack key: the STARTs waiting for their stack record, per CPU */
	struct jpend *jpend;
	int njpend;
};

/* A START of a join with a stack key, waiting for the stack record after it. */
struct jpend {
	bool on;
	int pid;			/* its common_pid, the stack's too */
	int32_t tpid;
	uint64_t h, ts;
	size_t mlen, plen, at;		/* at: the stack's place in part */
	uint32_t reclen;
	unsigned char mkey[AGG_MATCH_MAX * 8 + 4];
	unsigned char part[KEY_MAX];
	unsigned char rec[512];
};

/* An event waiting for its stack: its key before and after the stack's place. */
struct pend {
	bool on;
	int pid;
	uint64_t v;
	uint32_t pre, post;		/* bytes of key before and after the stack */
	unsigned char key[KEY_MAX];
};

struct gone {
	int32_t pid, to;		/* a task gone, the pid of its name */
};


/* ---------------------------------------------------------------- agg.c */

/* Key k is the stack: ftrace:kernel_stack's decoder found (an error said: TP_FAIL). */
int agg_stack_key(struct agg *a, int k);
/* A stack key's slot at out: its count of frames (2 bytes), the n frames; its length. */
size_t agg_stack_slot(unsigned char *out, const struct dec_event *de, const void *data, int n);

struct row *agg_tab_get(struct tab *t, const void *key, uint32_t klen, uint64_t h);
/* Row s added to row r (of the same key, or of the key s folds into). */
void agg_row_merge(const struct agg *a, struct row *r, const struct row *s);
/* key holds k bytes of keys; the bucket goes after them (room for it is there). */
void agg_rows_add(struct agg *a, struct tab *t, unsigned char *key, size_t k, uint64_t v,
		  uint64_t n);
/* src's rows added to dst's (a's tables); a row beyond dst's bound is refused. */
void agg_tab_merge(struct agg *a, struct tab *dst, const struct tab *src);
void agg_tab_clear(struct tab *t);

static inline const struct dec_field *agg_field_find(const struct dec_event *de,
						     const char *name)
{
	int i;

	for (i = 0; i < de->nfields; i++)
		if (!strcmp(de->fields[i].name, name))
			return &de->fields[i];
	return NULL;
}
int agg_field_unknown(const struct dec_event *de, const char *what, const char *name,
		      const char *label);
enum agg_col_type agg_col_type_of(const struct col *c);
struct ev *agg_ev_append(struct agg *a);
int agg_names_set(struct names *n, unsigned long long v, const char *name, size_t len);
void agg_names_syscalls(struct names *n);

static inline size_t put_str(unsigned char *key, const char *s, size_t len)
{
	uint16_t l = len > KEY_STR_MAX ? KEY_STR_MAX : len;

	memcpy(key, &l, 2);
	memcpy(key + 2, s, l);
	return 2 + l;
}

/* ---------------------------------------------------------------- agg_task.c */

/*
 * pid -> the task's name when it was first counted (agg_task.c): an
 * open-addressed table of a power of two in size.
 */
static inline struct pcomm *pcomm_slot(struct pcomm *pc, size_t n, int pid)
{
	size_t i;

	for (i = (unsigned)pid & (n - 1); pc[i].used && pc[i].pid != pid; i = (i + 1) & (n - 1))
		;
	return &pc[i];
}

static inline struct pcomm *pcomm_get(struct agg *a, int pid)
{
	struct pcomm *p;

	if (!a->npc)
		return NULL;
	p = pcomm_slot(a->pc, a->npc, pid);
	return p->used ? p : NULL;
}

static inline const struct pcomm *pcomm_find(const struct agg *a, int pid)
{
	return pcomm_get((struct agg *)a, pid);
}

void agg_pcomm_set(struct agg *a, int pid, const char *comm, size_t len,
		   unsigned long long start);
/* User engine: the name of a pid met for the first time, while it (likely) still runs. */
void agg_pcomm_learn(struct agg *a, int pid, unsigned long long ts);
/* The name of a pid in the tables; *reloaded: saved_cmdlines read again once. */
const char *agg_comm_of(struct agg *a, int pid, bool *reloaded);
/* The pid of the tasks gone under a name, made when new; 0: out of memory. */
int32_t agg_dname_pid(struct agg *a, const char *comm);
/* The events that name tasks, found in tep (agg_ready). */
void agg_nameev_find(struct agg *a);
/* rec names a task (its name from now on): true when it is one of those events. */
bool agg_nameev_record(struct agg *a, int id, const struct tep_record *rec);
/*
 * The cell of a comm key for pid's record now: the pid of its name
 * (agg_dname_pid) when its name is known, else pid (named at print time).
 */
int32_t agg_comm_key(struct agg *a, int pid);
/* Is the task met as p still there (the idle task always is)? */
bool agg_task_alive(const struct pcomm *p);
/* Is pid one of agg_own()'s (true when there are none: every task counts)? */
bool agg_own_has(const struct agg *a, int pid);
int agg_own_add(struct agg *a, int pid);

/* ---------------------------------------------------------------- agg_join.c */

/* A waiting START goes (its END came, or it is dropped). */
void agg_open_unlink(struct agg *a, uint32_t idx);
/* The length of key k's slot in a START's part of a row key at p. */
size_t agg_slot_len(const struct agg *a, int k, const unsigned char *p);

#endif
