/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kallsyms - the print helpers libtraceevent calls for the conversions
 * printfmt_convert() rewrites: __tpctl_symoff (%pS, %pF), __tpctl_sym (%ps,
 * %pf), __tpctl_symoff_b (%pB).  decode.c registers them; the rest of the
 * symbol table's interface (decode_ksym(), ...) is in decode.h.
 */
#ifndef TPCTL_KALLSYMS_H
#define TPCTL_KALLSYMS_H

struct trace_seq;

unsigned long long kallsyms_symoff(struct trace_seq *s, unsigned long long *args);
unsigned long long kallsyms_sym(struct trace_seq *s, unsigned long long *args);
unsigned long long kallsyms_symoff_b(struct trace_seq *s, unsigned long long *args);

#endif
