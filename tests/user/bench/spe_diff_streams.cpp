// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's realistic SPE streams (spe_stream.h) for spe_diff.c,
 * which is C: kind 0 clean, 1 noisy, 2 mixed; copies at most @max bytes
 * to @out and returns the stream's length.
 */
#include <cstring>

#include "spe_stream.h"

extern "C" size_t spe_diff_bench_stream(int kind, u8 *out, size_t max)
{
	static const spe_stream_kind kinds[] = {spe_stream_kind::clean,
						spe_stream_kind::noisy,
						spe_stream_kind::mixed};
	std::vector<u8> s = spe_stream(kinds[kind]);
	size_t n = s.size() < max ? s.size() : max;

	memcpy(out, s.data(), n);
	return s.size();
}
