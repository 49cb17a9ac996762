// SPDX-License-Identifier: GPL-2.0
/*
 * The replay of a recorded report stream (tests/replay/core.c), for
 * drain_kunit.c's recorded stream (replay_stream.h).
 */
#include "../replay/core.c"
