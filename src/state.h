/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state - a journal of every tracefs file tpctl changed, and every instance it
 * created, so that it can be put back: on failure of a command (nothing
 * changed on error), at the exit of stream/record (their changes are
 * temporary), and on INT, TERM, HUP.  SIGPIPE is ignored so that a closed
 * stdout shows up as EPIPE on write and the command exits through its normal
 * path.
 *
 * The undo path uses only open/write/close/rmdir on paths and values saved
 * in advance, so it is safe to run from a signal handler.
 */
#ifndef TPCTL_STATE_H
#define TPCTL_STATE_H

#include <signal.h>
#include <stdbool.h>

/* Installs the signal handlers; call once before any change. */
void state_init(void);

/*
 * Write val to the tracefs file at path, first saving what restore must
 * write back (restore_val; NULL: derive it from the file's current content
 * via kind).  Returns 0 or -1 with errno set by the failing write.
 */
enum state_kind {
	STATE_PLAIN,	/* write back the old content as read */
	STATE_ENABLE,	/* "1"/"1*" -> "1", anything else -> "0" */
	STATE_FILTER,	/* "none" -> "0" (clear), else the old expression */
	STATE_LIST,	/* every line, joined by spaces (set_event_pid: one pid a line) */
	STATE_FTRACE,	/* ftrace lists: entries joined by spaces, headers and "no pid" dropped */
	STATE_TRIGGER,	/* val adds a trigger "cmd[ if ...]": "!cmd" removes it again */
};
int state_write(const char *path, const char *val, enum state_kind kind);

/*
 * A change the caller makes itself (through a library that writes the file):
 * on rollback, path is opened with O_TRUNC and restore_val written.  For an
 * event's trigger file that open alone removes every trigger of the event.
 */
int state_journal(const char *path, const char *restore_val);

/*
 * A line the caller appended to a list file (a probe added to dynamic_events
 * through libtracefs): on rollback, undo ("-:group/event") is appended to
 * path, never truncating it.  Journal it with the signals blocked around the
 * change and this call, after the change succeeded: a journal entry made
 * first would remove another process's probe of the same name.
 */
int state_journal_append(const char *path, const char *undo);
/* Block (and then restore) the signals whose handler rolls back. */
void state_block_signals(sigset_t *old);

/*
 * The same, undone only after everything else, instances removed: for a
 * global object that what is inside an instance refers to (a synthetic
 * event named by the triggers of a private instance cannot go before them).
 */
int state_journal_late(const char *path, const char *restore_val);

/*
 * An instance directory we created: rmdir it on rollback.  The writes made
 * inside it are undone only if the kernel refuses the rmdir (see state.c).
 */
int state_created_instance(const char *path);

/* Reader fds to close before an instance can be removed during an emergency rollback. */
void state_register_fd(int fd);
void state_unregister_fd(int fd);

/* Keep what has been done so far: forget the journal (enable, disable, filter). */
void state_commit(void);
/* Undo the journal in reverse order; idempotent; async-signal-safe. */
void state_rollback(void);

/*
 * Long-running commands (stream, record) set "graceful" mode: the first
 * signal only sets state_stop (and interrupts poll with EINTR) so the loop
 * can drain and exit normally; a second signal rolls back and dies.  In
 * the default mode a signal rolls back at once and re-raises.
 */
extern volatile sig_atomic_t state_stop;
void state_set_graceful(bool on);

/*
 * The wake-up pipe.  A signal that comes after a loop has looked at
 * state_stop (or at its COMMAND) but before it sleeps in poll() would not
 * end that sleep: so the handlers also call state_wake() (async-signal-
 * safe), which leaves the read end state_wake_fd() readable, and every wait
 * of a reading loop polls it too: state_pause() is poll() with no
 * descriptor but that one (timeout_ms -1: until a wake-up), >0 woken (the
 * wake-ups taken), 0 timed out, -1 with errno (EINTR).  state_wake_drain()
 * takes the wake-ups after a poll of one's own found the descriptor ready.
 */
void state_wake(void);
int state_wake_fd(void);
void state_wake_drain(void);
int state_pause(int timeout_ms);

/*
 * From now on every write entry of the journal (those made so far too) is
 * also appended to the file at path, a line "PATH<TAB>OLD" each, and the
 * file is removed by the rollback: a process that finds it with its writer
 * gone (KILL) puts the values back with state_replay() (tpctl reset).
 */
int state_mirror(const char *path);
/* Write back the values of a state_mirror() file, last first. */
int state_replay(const char *path);

#endif
