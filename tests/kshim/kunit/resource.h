/* SPDX-License-Identifier: GPL-2.0 */
/* The shim's <kunit/resource.h>: in its <kunit/test.h>. */
#include "kunit/test.h"
