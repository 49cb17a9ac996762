// SPDX-License-Identifier: GPL-2.0
/* PLACEHOLDER: replaced by its owner. */
#include <linux/types.h>
