/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ARM Statistical Profiling Extension (SPE) packet and record parser.
 *
 * Pure code: no allocation, no locks, no global state; it only reads the
 * bytes it is given and never past @len. It builds in the kernel and in
 * userspace (see portable_types.h).
 *
 * An SPE record is a sequence of packets ended by an END or a TIMESTAMP
 * packet. Packets have a one-byte header, or a two-byte "extended" header
 * for ADDRESS and COUNTER packets with an index above 7, followed by a
 * little-endian payload of 0, 1, 2, 4 or 8 bytes. PAD bytes (0x00) and
 * alignment packets may appear between and inside records.
 */
#ifndef _DAMON_PERF_SPE_PARSE_H
#define _DAMON_PERF_SPE_PARSE_H

#include "portable_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Header bytes and masks of the packet format. */
#define DAMON_PERF_SPE_HDR_PAD		0x00
#define DAMON_PERF_SPE_HDR_END		0x01
#define DAMON_PERF_SPE_HDR_TIMESTAMP	0x71
#define DAMON_PERF_SPE_HDR_MASK_EV_DS	0xcf	/* bits 7:6 and 3:0 */
#define DAMON_PERF_SPE_HDR_EVENTS	0x42
#define DAMON_PERF_SPE_HDR_DATA_SOURCE	0x43
#define DAMON_PERF_SPE_HDR_MASK_CTX_OP	0xfc	/* bits 7:2 */
#define DAMON_PERF_SPE_HDR_CONTEXT	0x64
#define DAMON_PERF_SPE_HDR_OP_TYPE	0x48
#define DAMON_PERF_SPE_HDR_EXTENDED	0x20
#define DAMON_PERF_SPE_HDR_MASK_ADDR_CNT 0xf8	/* bits 7:3 */
#define DAMON_PERF_SPE_HDR_ADDRESS	0xb0
#define DAMON_PERF_SPE_HDR_COUNTER	0x98
#define DAMON_PERF_SPE_HDR1_ALIGNMENT	0x00

/* ADDRESS packet indexes. */
#define DAMON_PERF_SPE_ADDR_PC		0
#define DAMON_PERF_SPE_ADDR_BRANCH	1
#define DAMON_PERF_SPE_ADDR_DATA_VA	2
#define DAMON_PERF_SPE_ADDR_DATA_PA	3

/* COUNTER packet indexes. */
#define DAMON_PERF_SPE_CNT_TOTAL_LAT	0
#define DAMON_PERF_SPE_CNT_ISSUE_LAT	1
#define DAMON_PERF_SPE_CNT_XLAT_LAT	2

/* OP_TYPE packet classes (low two header bits). */
#define DAMON_PERF_SPE_OP_OTHER		0
#define DAMON_PERF_SPE_OP_LDST		1
#define DAMON_PERF_SPE_OP_BRANCH	2
#define DAMON_PERF_SPE_OP_LDST_ST	0x01	/* payload bit: store */

/* Largest packet: two-byte header and an eight-byte payload. */
#define DAMON_PERF_SPE_PKT_MAX		10

/*
 * Largest record, padding inside it included: 2 KiB, the largest
 * PMSIDR_EL1.MaxSize Linux's arm_spe_pmu driver accepts. A record still
 * unterminated past it is not one: the parser drops it and resyncs at the
 * next END or TIMESTAMP, so no byte is parsed more than a bounded number
 * of times however the stream was corrupted.
 */
#define DAMON_PERF_SPE_REC_MAX		2048

/* damon_perf_spe_get_packet() results besides a positive length. */
#define DAMON_PERF_SPE_NEED_MORE	0
#define DAMON_PERF_SPE_BAD		(-1)

enum damon_perf_spe_pkt_type {
	DAMON_PERF_SPE_PKT_BAD,
	DAMON_PERF_SPE_PKT_PAD,
	DAMON_PERF_SPE_PKT_END,
	DAMON_PERF_SPE_PKT_TIMESTAMP,
	DAMON_PERF_SPE_PKT_ADDRESS,
	DAMON_PERF_SPE_PKT_COUNTER,
	DAMON_PERF_SPE_PKT_CONTEXT,
	DAMON_PERF_SPE_PKT_OP_TYPE,
	DAMON_PERF_SPE_PKT_EVENTS,
	DAMON_PERF_SPE_PKT_DATA_SOURCE,
	DAMON_PERF_SPE_PKT_NR,
};

/**
 * struct damon_perf_spe_pkt - One decoded packet.
 * @type:	&enum damon_perf_spe_pkt_type.
 * @index:	address/counter index, context index or operation class.
 * @hdr_len:	header bytes (1, or 2 for an extended header).
 * @len:	whole packet length in bytes, padding included for PAD.
 * @payload:	little-endian payload, zero-extended.
 */
struct damon_perf_spe_pkt {
	u8 type;
	u8 index;
	u8 hdr_len;
	u8 len;
	u64 payload;
};

/* damon_perf_spe_record.flags: which fields the record carried. */
#define DAMON_PERF_SPE_REC_PC		(1U << 0)
#define DAMON_PERF_SPE_REC_BRANCH	(1U << 1)
#define DAMON_PERF_SPE_REC_VADDR	(1U << 2)
#define DAMON_PERF_SPE_REC_PADDR	(1U << 3)
#define DAMON_PERF_SPE_REC_PA_NS	(1U << 4)	/* PA is non-secure */
#define DAMON_PERF_SPE_REC_PC_NS	(1U << 5)	/* PC is non-secure */
#define DAMON_PERF_SPE_REC_CONTEXT	(1U << 6)
#define DAMON_PERF_SPE_REC_TIMESTAMP	(1U << 7)
#define DAMON_PERF_SPE_REC_EVENTS	(1U << 8)
#define DAMON_PERF_SPE_REC_DATA_SOURCE	(1U << 9)
#define DAMON_PERF_SPE_REC_LATENCY	(1U << 10)
#define DAMON_PERF_SPE_REC_ISSUE_LAT	(1U << 11)
#define DAMON_PERF_SPE_REC_XLAT_LAT	(1U << 12)
#define DAMON_PERF_SPE_REC_LOAD		(1U << 13)
#define DAMON_PERF_SPE_REC_STORE	(1U << 14)
#define DAMON_PERF_SPE_REC_OP_OTHER	(1U << 15)
#define DAMON_PERF_SPE_REC_OP_BRANCH	(1U << 16)

/**
 * struct damon_perf_spe_record - What one SPE record says.
 * @vaddr:		data virtual address, top-byte tag stripped and
 *			sign-extended from bit 55.
 * @paddr:		data physical address (bits 55:0).
 * @pc:			instruction address; kernel addresses (EL1/EL2,
 *			non-secure) get their top byte set as perf does.
 * @branch_target:	branch target address, same rules as @pc.
 * @timestamp:		TIMESTAMP payload when the record ended with one.
 * @context_id:		CONTEXT payload (CONTEXTIDR, the pid on Linux).
 * @events:		raw EVENTS payload (bit 0 exception, 1 retired,
 *			2 L1D access, 3 L1D refill, 4 TLB access, 5 TLB walk,
 *			8 LLC access, 9 LLC miss, 10 remote ...).
 * @latency:		total latency (COUNTER index 0), in cycles.
 * @issue_latency:	issue latency (COUNTER index 1).
 * @xlat_latency:	translation latency (COUNTER index 2).
 * @flags:		DAMON_PERF_SPE_REC_* bits for the fields present.
 * @data_source:	DATA_SOURCE payload.
 * @el:			exception level of @pc (0-3).
 * @op:			raw OP_TYPE payload of the last OP_TYPE packet.
 */
struct damon_perf_spe_record {
	u64 vaddr;
	u64 paddr;
	u64 pc;
	u64 branch_target;
	u64 timestamp;
	u64 context_id;
	u64 events;
	u32 latency;
	u32 issue_latency;
	u32 xlat_latency;
	u32 flags;
	u16 data_source;
	u8 el;
	u8 op;
};

/**
 * struct damon_perf_spe_stats - Running totals of a parser user.
 * @records:	records delivered and accepted.
 * @errors:	bytes skipped because they started no valid packet.
 * @dropped:	partial records discarded because of such an error.
 * @refused:	times the record callback refused a record.
 * @overlong:	records dropped because they ran past
 *		DAMON_PERF_SPE_REC_MAX bytes without an END or TIMESTAMP
 *		(also counted in @dropped).
 * @resync:	not a total but parser state, in and out: true while the
 *		stream is skipped up to the next END or TIMESTAMP after an
 *		overlong record. A caller that resumes the stream where the
 *		parser stopped keeps it between calls (and clears it when it
 *		jumps elsewhere in the stream).
 */
struct damon_perf_spe_stats {
	u64 records;
	u64 errors;
	u64 dropped;
	u64 refused;
	u64 overlong;
	bool resync;
};

int damon_perf_spe_get_packet(const u8 *buf, size_t len, u64 offset,
			      struct damon_perf_spe_pkt *pkt);
size_t damon_perf_spe_parse(const u8 *buf, size_t len, u64 offset,
			    struct damon_perf_spe_stats *stats,
			    bool (*fn)(const struct damon_perf_spe_record *rec,
				       void *arg),
			    void *arg);
const char *damon_perf_spe_pkt_name(unsigned int type);

#ifdef __cplusplus
}
#endif

#endif /* _DAMON_PERF_SPE_PARSE_H */
