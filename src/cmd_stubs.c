// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Weak fallbacks for commands whose implementation is not part of this build
 * (the real ones in cmd_<name>.c take precedence at link time).
 */
#include "tpctl.h"

static int unavailable(void)
{
	tp_error("this command is not available in this build");
	return TP_FAIL;
}

__attribute__((weak)) int cmd_stream(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return unavailable();
}

__attribute__((weak)) int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return unavailable();
}

__attribute__((weak)) int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return unavailable();
}
