/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SPE byte streams for the parser benchmarks (spe_bench, bench_count):
 *   clean  the load and store records of spe_cases.h back to back;
 *   noisy  the same with a PAD and a reserved byte after each pair;
 *   mixed  what a Neoverse core writes to the AUX buffer with ts_enable:
 *          60% loads, 25% stores, 10% branches, 5% other ops, each ended
 *          by a TIMESTAMP and padded to 64 bytes, with varying addresses,
 *          latencies and data sources.
 * Each is 1 MiB (whole records only).
 */
#ifndef _DAMON_PERF_SPE_STREAM_H
#define _DAMON_PERF_SPE_STREAM_H

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "spe_parse.h"
#include "spe_cases.h"

enum class spe_stream_kind { clean, noisy, mixed };

inline void spe_put(std::vector<u8> &s, std::initializer_list<u8> bytes)
{
	s.insert(s.end(), bytes.begin(), bytes.end());
}

inline void spe_mixed_record(std::vector<u8> &s, uint64_t &rnd)
{
	uint64_t va, pa, pc, ts;
	unsigned int kind, lat;
	size_t start = s.size();

	rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
	kind = unsigned((rnd >> 33) % 100);
	va = 0x0000ffff80000000ULL + ((rnd >> 20) & 0x3ffffff8ULL);
	pa = 0x80000000ULL + ((rnd >> 12) & 0x3ffffff8ULL);
	pc = SPE_NS | SPE_EL(0) | (0x0000aaaab0000000ULL + ((rnd >> 40) << 2));
	ts = rnd >> 8;
	lat = unsigned(rnd >> 52);

	spe_put(s, {P_PC(pc)});
	if (kind < 85) {
		spe_put(s, {P_CTX(uint32_t(rnd >> 44))});
		if (kind < 60)
			spe_put(s, {P_OP_LD(0x00)});
		else
			spe_put(s, {P_OP_ST});
		spe_put(s, {P_EV16(0x0002 | ((rnd >> 30) & 0x0f04))});
		spe_put(s, {P_ISSUE(lat & 0x3f), P_LAT(lat)});
		spe_put(s, {P_VA(va), P_XLAT(lat & 0x1f), P_PA(SPE_NS | pa)});
		if (kind < 60)
			spe_put(s, {P_DS16(uint16_t((rnd >> 24) & 0xf))});
	} else if (kind < 95) {
		spe_put(s, {P_OP_BR, P_EV16(0x0002), P_BR(pc + 0x400)});
	} else {
		spe_put(s, {P_OP_OTHER, P_EV8(0x02), P_ISSUE(lat & 0x3f),
			    P_LAT(lat)});
	}
	spe_put(s, {P_TS(ts)});
	while ((s.size() - start) % 64)
		s.push_back(P_PAD);
}

inline std::vector<u8> spe_stream(spe_stream_kind kind)
{
	std::vector<u8> s;
	uint64_t rnd = 1;

	while (s.size() < (1u << 20)) {
		if (kind == spe_stream_kind::mixed) {
			spe_mixed_record(s, rnd);
			continue;
		}
		s.insert(s.end(), spe_rec_load,
			 spe_rec_load + sizeof(spe_rec_load));
		s.insert(s.end(), spe_rec_store,
			 spe_rec_store + sizeof(spe_rec_store));
		if (kind == spe_stream_kind::noisy) {
			s.push_back(P_PAD);
			s.push_back(0xff);
		}
	}
	return s;
}

#endif /* _DAMON_PERF_SPE_STREAM_H */
