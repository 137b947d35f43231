// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * names - the names of tpctl's own kernel objects and whether the process
 * that made one still runs; see names.h.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

/* tpctl-<pid> of a process that no longer runs: left by a SIGKILLed stream or record. */
bool names_instance_orphaned(const char *name)
{
	return names_orphaned(name, INSTANCE_PREFIX);
}

/* PREFIX<pid> of a process that no longer runs (tpctl_<pid>: the probes of one run). */
bool names_orphaned(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	char *end;
	long pid;

	if (strncmp(name, prefix, len) != 0)
		return false;
	errno = 0;
	pid = strtol(name + len, &end, 10);
	if (errno || *end || pid <= 0)
		return false;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

bool names_synth_orphaned(const char *name)
{
	long pid;
	int n;

	if (sscanf(name, LAT_SYNTH_PREFIX "%ld_%d", &pid, &n) != 2 &&
	    sscanf(name, STRINGS_SYNTH_PREFIX "%ld_%d", &pid, &n) != 2)
		return false;
	return pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

bool names_ident_valid(const char *s, size_t len, size_t most, bool letter_first)
{
	size_t i;

	if (!len || len > most || (letter_first && !isalpha((unsigned char)s[0]) && s[0] != '_'))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}
