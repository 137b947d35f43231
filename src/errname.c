// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * errname - errno names from the system's headers; see errname.h.
 */
#include <stddef.h>

#include "errname.h"
#include "errname_tab.h"

_Static_assert(ERRNAME_LEN <= ERRNAME_LEN_MAX, "errno names fit ERRNAME_LEN_MAX");

const char *errname(int64_t e)
{
	return e > 0 && e <= ERRNAME_MAX ? errname_tab[e] : NULL;
}
