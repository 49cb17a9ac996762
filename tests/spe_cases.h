/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Byte-exact SPE parser cases shared by the KUnit suite
 * (tests/kunit/spe_kunit.c) and GoogleTest (tests/user/test_spe_parse.cpp).
 * Plain C that also compiles as C++20 (designated initializers in
 * declaration order). Include after kmod/spe_parse.h.
 */
#ifndef _DAMON_PERF_SPE_CASES_H
#define _DAMON_PERF_SPE_CASES_H

/* Little-endian payload bytes. */
#define SPE_B(v, n)	((u8)(((u64)(v) >> (8 * (n))) & 0xff))
#define SPE_LE16(v)	SPE_B(v, 0), SPE_B(v, 1)
#define SPE_LE32(v)	SPE_LE16(v), SPE_B(v, 2), SPE_B(v, 3)
#define SPE_LE64(v)	SPE_LE32(v), SPE_B(v, 4), SPE_B(v, 5), \
			SPE_B(v, 6), SPE_B(v, 7)

/* Packets: header byte(s) and payload. */
#define P_PAD		0x00
#define P_END		0x01
#define P_TS(v)		0x71, SPE_LE64(v)
#define P_PC(v)		0xb0, SPE_LE64(v)
#define P_BR(v)		0xb1, SPE_LE64(v)
#define P_VA(v)		0xb2, SPE_LE64(v)
#define P_PA(v)		0xb3, SPE_LE64(v)
#define P_LAT(v)	0x98, SPE_LE16(v)
#define P_ISSUE(v)	0x99, SPE_LE16(v)
#define P_XLAT(v)	0x9a, SPE_LE16(v)
#define P_EV8(v)	0x42, SPE_B(v, 0)
#define P_EV16(v)	0x52, SPE_LE16(v)
#define P_EV32(v)	0x62, SPE_LE32(v)
#define P_EV64(v)	0x72, SPE_LE64(v)
#define P_DS8(v)	0x43, SPE_B(v, 0)
#define P_DS16(v)	0x53, SPE_LE16(v)
#define P_CTX(v)	0x65, SPE_LE32(v)
#define P_OP_LD(v)	0x49, SPE_B(v, 0)
#define P_OP_ST		0x49, 0x01
#define P_OP_BR		0x4a, 0x00
#define P_OP_OTHER	0x48, 0x00
/* extended (two-byte) headers, index 0..31 */
#define P_XADDR(i, v)	(u8)(0x20 | (((i) >> 3) & 3)), (u8)(0xb0 | ((i) & 7)), \
			SPE_LE64(v)
#define P_XCNT(i, v)	(u8)(0x20 | (((i) >> 3) & 3)), (u8)(0x98 | ((i) & 7)), \
			SPE_LE16(v)
/* alignment to 2 << n bytes of the stream, n = 0..3 */
#define P_ALIGN(n)	(u8)(0x20 | (n)), 0x00

/* Address payload top bytes. */
#define SPE_NS		(1ULL << 63)
#define SPE_EL(n)	((u64)(n) << 61)

/* A load at EL1 by pid 1234, every field present, ended by END. */
#define REC_LOAD \
	P_PC(SPE_NS | SPE_EL(1) | 0x00ff800008123456ULL), \
	P_VA(0x5a00ffffb7e01230ULL), \
	P_PA(SPE_NS | 0x81234230ULL), \
	P_LAT(42), P_ISSUE(7), P_XLAT(3), \
	P_EV16(0x0006), P_DS16(0x000e), P_CTX(1234), P_OP_LD(0x00), \
	P_END

#define REC_LOAD_EXPECT { \
	.vaddr = 0x0000ffffb7e01230ULL, \
	.paddr = 0x81234230ULL, \
	.pc = 0xffff800008123456ULL, \
	.branch_target = 0, .timestamp = 0, \
	.context_id = 1234, \
	.events = 0x0006, \
	.latency = 42, .issue_latency = 7, .xlat_latency = 3, \
	.flags = DAMON_PERF_SPE_REC_PC | DAMON_PERF_SPE_REC_PC_NS | \
		 DAMON_PERF_SPE_REC_VADDR | DAMON_PERF_SPE_REC_PADDR | \
		 DAMON_PERF_SPE_REC_PA_NS | DAMON_PERF_SPE_REC_LATENCY | \
		 DAMON_PERF_SPE_REC_ISSUE_LAT | DAMON_PERF_SPE_REC_XLAT_LAT | \
		 DAMON_PERF_SPE_REC_EVENTS | DAMON_PERF_SPE_REC_DATA_SOURCE | \
		 DAMON_PERF_SPE_REC_CONTEXT | DAMON_PERF_SPE_REC_LOAD, \
	.data_source = 0x000e, .el = 1, .op = 0x00, \
}

/* A store at EL0 (secure PA), ended by TIMESTAMP. */
#define REC_STORE \
	P_PC(SPE_NS | SPE_EL(0) | 0x0000aaaab0001000ULL), \
	P_OP_ST, \
	P_VA(0x0000ffffc0000008ULL), \
	P_PA(0x40000008ULL), \
	P_LAT(9), \
	P_TS(0x123456789abcdef0ULL)

#define REC_STORE_EXPECT { \
	.vaddr = 0x0000ffffc0000008ULL, \
	.paddr = 0x40000008ULL, \
	.pc = 0x0000aaaab0001000ULL, \
	.branch_target = 0, \
	.timestamp = 0x123456789abcdef0ULL, \
	.context_id = 0, .events = 0, \
	.latency = 9, .issue_latency = 0, .xlat_latency = 0, \
	.flags = DAMON_PERF_SPE_REC_PC | DAMON_PERF_SPE_REC_PC_NS | \
		 DAMON_PERF_SPE_REC_VADDR | DAMON_PERF_SPE_REC_PADDR | \
		 DAMON_PERF_SPE_REC_LATENCY | DAMON_PERF_SPE_REC_STORE | \
		 DAMON_PERF_SPE_REC_TIMESTAMP, \
	.data_source = 0, .el = 0, .op = 0x01, \
}

/* Data VA sign extension: kernel (bit 55 set) and tagged user address. */
#define REC_KVA \
	P_OP_LD(0x00), P_VA(0xf0ff800012345678ULL), P_END
#define REC_KVA_EXPECT { \
	.vaddr = 0xffff800012345678ULL, \
	.paddr = 0, .pc = 0, .branch_target = 0, .timestamp = 0, \
	.context_id = 0, .events = 0, \
	.latency = 0, .issue_latency = 0, .xlat_latency = 0, \
	.flags = DAMON_PERF_SPE_REC_VADDR | DAMON_PERF_SPE_REC_LOAD, \
	.data_source = 0, .el = 0, .op = 0x00, \
}

/* Bit 54 without bit 55 is an ordinary (user) address: no extension. */
#define REC_VA54 \
	P_OP_ST, P_VA(0x1240000000001000ULL), P_END
#define REC_VA54_EXPECT { \
	.vaddr = 0x0040000000001000ULL, \
	.paddr = 0, .pc = 0, .branch_target = 0, .timestamp = 0, \
	.context_id = 0, .events = 0, \
	.latency = 0, .issue_latency = 0, .xlat_latency = 0, \
	.flags = DAMON_PERF_SPE_REC_VADDR | DAMON_PERF_SPE_REC_STORE, \
	.data_source = 0, .el = 0, .op = 0x01, \
}

/*
 * Extended headers: data VA (index 2) and total latency (index 0) in the
 * two-byte form, and an unknown address index (10) that is skipped.
 */
#define REC_EXT \
	P_XADDR(2, 0x0000ffff00001000ULL), P_XCNT(0, 300), \
	P_XADDR(10, 0x1122334455667788ULL), P_XCNT(17, 5), \
	P_OP_ST, P_END
#define REC_EXT_EXPECT { \
	.vaddr = 0x0000ffff00001000ULL, \
	.paddr = 0, .pc = 0, .branch_target = 0, .timestamp = 0, \
	.context_id = 0, .events = 0, \
	.latency = 300, .issue_latency = 0, .xlat_latency = 0, \
	.flags = DAMON_PERF_SPE_REC_VADDR | DAMON_PERF_SPE_REC_LATENCY | \
		 DAMON_PERF_SPE_REC_STORE, \
	.data_source = 0, .el = 0, .op = 0x01, \
}

/* A branch record: PC and target at EL2, 64-bit events. */
#define REC_BRANCH \
	P_PC(SPE_NS | SPE_EL(2) | 0x00ff000000400000ULL), \
	P_BR(SPE_NS | SPE_EL(2) | 0x00ff000000400800ULL), \
	P_OP_BR, P_EV64(0x80ULL), P_END
#define REC_BRANCH_EXPECT { \
	.vaddr = 0, .paddr = 0, \
	.pc = 0xffff000000400000ULL, \
	.branch_target = 0xffff000000400800ULL, \
	.timestamp = 0, .context_id = 0, .events = 0x80, \
	.latency = 0, .issue_latency = 0, .xlat_latency = 0, \
	.flags = DAMON_PERF_SPE_REC_PC | DAMON_PERF_SPE_REC_PC_NS | \
		 DAMON_PERF_SPE_REC_BRANCH | DAMON_PERF_SPE_REC_OP_BRANCH | \
		 DAMON_PERF_SPE_REC_EVENTS, \
	.data_source = 0, .el = 2, .op = 0x00, \
}

/* Bytes that start no packet: reserved headers and op class 3. */
#define GARBAGE		0xff, 0x4b, 0x8f, 0xc0

static const u8 spe_rec_load[] = { REC_LOAD };
static const u8 spe_rec_store[] = { REC_STORE };
static const u8 spe_rec_kva[] = { REC_KVA };
static const u8 spe_rec_va54[] = { REC_VA54 };
static const u8 spe_rec_ext[] = { REC_EXT };
static const u8 spe_rec_branch[] = { REC_BRANCH };
static const u8 spe_load_store[] = { REC_LOAD, REC_STORE };
static const u8 spe_pad_load[] = { P_PAD, P_PAD, P_PAD, REC_LOAD, P_PAD };
/* 50-byte load at offset 0, then align to 16: 14 bytes up to 64 */
#define SPE_REC_LOAD_LEN 50
static const u8 spe_align_16[] = {
	REC_LOAD, P_ALIGN(3), 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee,
	0xee, 0xee, 0xee, 0xee, REC_STORE
};
static const u8 spe_align_skip[] = {
	P_ALIGN(2), 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, REC_KVA
};
static const u8 spe_garbage_load[] = { GARBAGE, REC_LOAD };
static const u8 spe_mid_garbage[] = {
	P_VA(0x1000), 0xff, P_OP_ST, P_VA(0x2000), P_END
};
static const u8 spe_trunc_second[] = {
	REC_LOAD, P_OP_ST, P_VA(0x2000), 0xb3, 0x01, 0x02
};
static const u8 spe_trunc_ext[] = { REC_KVA, 0x20 };
static const u8 spe_trunc_ts[] = { P_OP_LD(0), P_VA(0x1000), 0x71, 1, 2, 3 };
static const u8 spe_empty[] = { P_END, P_END, P_TS(5), P_PAD };
static const u8 spe_only_garbage[] = { GARBAGE };

#define SPE_CASE_MAX_RECS 2

/**
 * struct spe_case - One parse of a byte string and what must come out.
 * @desc:	what the case shows.
 * @bytes:	input.
 * @len:	bytes given to the parser (a prefix of @bytes when cut).
 * @offset:	stream offset of @bytes[0].
 * @consumed:	expected return of damon_perf_spe_parse().
 * @nr_recs:	records expected.
 * @errors:	expected damon_perf_spe_stats.errors.
 * @dropped:	expected damon_perf_spe_stats.dropped.
 * @recs:	the first SPE_CASE_MAX_RECS records expected, byte-exact.
 */
struct spe_case {
	const char *desc;
	const u8 *bytes;
	size_t len;
	u64 offset;
	size_t consumed;
	unsigned int nr_recs;
	u64 errors;
	u64 dropped;
	struct damon_perf_spe_record recs[SPE_CASE_MAX_RECS];
};

#define SPE_ALL(a)	(a), sizeof(a)

static const struct spe_case spe_cases[] = {
	{ "load record ended by END, NS PA, kernel PC, tagged VA",
	  SPE_ALL(spe_rec_load), 0, sizeof(spe_rec_load), 1, 0, 0,
	  { REC_LOAD_EXPECT } },
	{ "store record ended by TIMESTAMP, secure PA, EL0 PC",
	  SPE_ALL(spe_rec_store), 0, sizeof(spe_rec_store), 1, 0, 0,
	  { REC_STORE_EXPECT } },
	{ "kernel data VA sign-extended from bit 55, tag dropped",
	  SPE_ALL(spe_rec_kva), 0, sizeof(spe_rec_kva), 1, 0, 0,
	  { REC_KVA_EXPECT } },
	{ "data VA with bit 54 but not bit 55 is not sign-extended",
	  SPE_ALL(spe_rec_va54), 0, sizeof(spe_rec_va54), 1, 0, 0,
	  { REC_VA54_EXPECT } },
	{ "extended headers decode index and skip unknown ones",
	  SPE_ALL(spe_rec_ext), 0, sizeof(spe_rec_ext), 1, 0, 0,
	  { REC_EXT_EXPECT } },
	{ "branch record with target at EL2 and 64-bit events",
	  SPE_ALL(spe_rec_branch), 0, sizeof(spe_rec_branch), 1, 0, 0,
	  { REC_BRANCH_EXPECT } },
	{ "two records back to back, END then TIMESTAMP",
	  SPE_ALL(spe_load_store), 0, sizeof(spe_load_store), 2, 0, 0,
	  { REC_LOAD_EXPECT, REC_STORE_EXPECT } },
	{ "padding around a record is consumed",
	  SPE_ALL(spe_pad_load), 0, sizeof(spe_pad_load), 1, 0, 0,
	  { REC_LOAD_EXPECT } },
	{ "alignment packet pads to 16 bytes of the stream",
	  SPE_ALL(spe_align_16), 0, sizeof(spe_align_16), 2, 0, 0,
	  { REC_LOAD_EXPECT, REC_STORE_EXPECT } },
	{ "alignment counts from the stream offset, skipping any bytes",
	  SPE_ALL(spe_align_skip), 8, sizeof(spe_align_skip), 1, 0, 0,
	  { REC_KVA_EXPECT } },
	{ "alignment cut by the end of the buffer waits for more",
	  spe_align_skip, 5, 8, 0, 0, 0, 0, { } },
	{ "garbage before a record resyncs byte by byte",
	  SPE_ALL(spe_garbage_load), 0, sizeof(spe_garbage_load), 1, 4, 0,
	  { REC_LOAD_EXPECT } },
	{ "garbage inside a record drops it and resyncs",
	  SPE_ALL(spe_mid_garbage), 0, sizeof(spe_mid_garbage), 1, 1, 1,
	  { { .vaddr = 0x2000, .paddr = 0, .pc = 0, .branch_target = 0,
	      .timestamp = 0, .context_id = 0, .events = 0, .latency = 0,
	      .issue_latency = 0, .xlat_latency = 0,
	      .flags = DAMON_PERF_SPE_REC_VADDR | DAMON_PERF_SPE_REC_STORE,
	      .data_source = 0, .el = 0, .op = 0x01 } } },
	{ "only garbage is consumed and counted",
	  SPE_ALL(spe_only_garbage), 0, sizeof(spe_only_garbage), 0, 4, 0,
	  { } },
	{ "truncated second record keeps its bytes",
	  SPE_ALL(spe_trunc_second), 0, sizeof(spe_rec_load), 1, 0, 0,
	  { REC_LOAD_EXPECT } },
	{ "extended header cut after its first byte",
	  SPE_ALL(spe_trunc_ext), 0, sizeof(spe_rec_kva), 1, 0, 0,
	  { REC_KVA_EXPECT } },
	{ "TIMESTAMP cut in its payload consumes nothing",
	  SPE_ALL(spe_trunc_ts), 0, 0, 0, 0, 0, { } },
	{ "empty END and TIMESTAMP deliver no record",
	  SPE_ALL(spe_empty), 0, sizeof(spe_empty), 0, 0, 0, { } },
	{ "empty input consumes nothing",
	  spe_rec_load, 0, 0, 0, 0, 0, 0, { } },
};

/*
 * Every packet type, the extended forms and an alignment in one record:
 * each strict prefix must consume nothing, deliver nothing and count no
 * error (truncation in the middle of every packet type).
 */
static const u8 spe_every_packet[] = {
	P_PAD,
	P_PC(SPE_NS | SPE_EL(1) | 0x00ff800008123456ULL),
	P_BR(SPE_NS | SPE_EL(1) | 0x00ff800008123460ULL),
	P_VA(0x0000ffff00002000ULL), P_PA(0x80002000ULL),
	P_XADDR(2, 0x0000ffff00003000ULL),
	P_LAT(1), P_ISSUE(2), P_XLAT(3), P_XCNT(0, 4),
	P_EV8(0x02), P_EV32(0x06), P_DS8(0x0e), P_DS16(0x0e),
	P_CTX(77), P_OP_LD(0x04), P_OP_OTHER, P_ALIGN(0), P_PAD,
	P_TS(99),
};

/* Packet-level cases of damon_perf_spe_get_packet(). */
struct spe_pkt_case {
	const char *desc;
	u8 bytes[DAMON_PERF_SPE_PKT_MAX];
	size_t len;
	u64 offset;
	int ret;
	u8 type;
	u8 index;
	u64 payload;
};

static const struct spe_pkt_case spe_pkt_cases[] = {
	{ "PAD", { P_PAD }, 1, 0, 1, DAMON_PERF_SPE_PKT_PAD, 0, 0 },
	{ "END", { P_END }, 1, 0, 1, DAMON_PERF_SPE_PKT_END, 0, 0 },
	{ "TIMESTAMP", { P_TS(0x0102030405060708ULL) }, 9, 0, 9,
	  DAMON_PERF_SPE_PKT_TIMESTAMP, 0, 0x0102030405060708ULL },
	{ "EVENTS one byte", { P_EV8(0x81) }, 2, 0, 2,
	  DAMON_PERF_SPE_PKT_EVENTS, 0, 0x81 },
	{ "EVENTS eight bytes", { P_EV64(0x8000000000000001ULL) }, 9, 0, 9,
	  DAMON_PERF_SPE_PKT_EVENTS, 0, 0x8000000000000001ULL },
	{ "DATA_SOURCE two bytes", { P_DS16(0xbeef) }, 3, 0, 3,
	  DAMON_PERF_SPE_PKT_DATA_SOURCE, 0, 0xbeef },
	{ "CONTEXT index 1", { P_CTX(0xdeadbeef) }, 5, 0, 5,
	  DAMON_PERF_SPE_PKT_CONTEXT, 1, 0xdeadbeef },
	{ "OP_TYPE load/store class", { P_OP_ST }, 2, 0, 2,
	  DAMON_PERF_SPE_PKT_OP_TYPE, 1, 1 },
	{ "OP_TYPE class 3 is reserved", { 0x4b, 0x00 }, 2, 0, -1, 0, 0, 0 },
	{ "ADDRESS data PA keeps the NS bit in the payload",
	  { P_PA(SPE_NS | 0x1234ULL) }, 9, 0, 9,
	  DAMON_PERF_SPE_PKT_ADDRESS, 3, SPE_NS | 0x1234ULL },
	{ "COUNTER issue latency", { P_ISSUE(0x1234) }, 3, 0, 3,
	  DAMON_PERF_SPE_PKT_COUNTER, 1, 0x1234 },
	{ "extended ADDRESS index 26", { P_XADDR(26, 0x42) }, 10, 0, 10,
	  DAMON_PERF_SPE_PKT_ADDRESS, 26, 0x42 },
	{ "extended COUNTER index 9", { P_XCNT(9, 0x77) }, 4, 0, 4,
	  DAMON_PERF_SPE_PKT_COUNTER, 9, 0x77 },
	{ "extended header with a bad second byte", { 0x20, 0xff }, 2, 0, -1,
	  0, 0, 0 },
	{ "alignment to 4 at offset 1 takes 3 bytes", { P_ALIGN(1), 0 }, 3,
	  1, 3, DAMON_PERF_SPE_PKT_PAD, 0, 0 },
	{ "alignment to 8 at offset 8 takes 8 bytes", { P_ALIGN(2) }, 8, 8,
	  8, DAMON_PERF_SPE_PKT_PAD, 0, 0 },
	{ "ADDRESS cut in its payload", { P_VA(1) }, 8, 0, 0, 0, 0, 0 },
	{ "COUNTER cut after its header", { P_LAT(1) }, 1, 0, 0, 0, 0, 0 },
	{ "extended header cut after one byte", { 0x20 }, 1, 0, 0, 0, 0, 0 },
	{ "empty buffer", { 0 }, 0, 0, 0, 0, 0, 0 },
	{ "reserved header 0xff", { 0xff }, 1, 0, -1, 0, 0, 0 },
};

/* Collects up to SPE_CASE_MAX_RECS records; refuses after @limit. */
struct spe_collect {
	struct damon_perf_spe_record recs[SPE_CASE_MAX_RECS];
	unsigned int nr;
	unsigned int limit;
};

static inline bool spe_collect_fn(const struct damon_perf_spe_record *rec,
				  void *arg)
{
	struct spe_collect *c = (struct spe_collect *)arg;

	if (c->limit && c->nr >= c->limit)
		return false;
	if (c->nr < SPE_CASE_MAX_RECS)
		c->recs[c->nr] = *rec;
	c->nr++;
	return true;
}

#endif /* _DAMON_PERF_SPE_CASES_H */
