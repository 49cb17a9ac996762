// SPDX-License-Identifier: GPL-2.0
/*
 * ARM SPE packet and record parser (pure code, kernel and userspace).
 *
 * The packet format follows the Arm ARM (DDI 0487, "Statistical Profiling
 * Extension: packet format") as decoded by Linux's perf tool. Every read
 * is bounds checked against the length the caller gives; the payload is
 * assembled byte by byte, so unaligned or big-endian hosts need no care.
 */
#include "spe_parse.h"

#define ADDR_MASK_56	((1ULL << 56) - 1)
#define ADDR_BIT_55	(1ULL << 55)
#define ADDR_TOP_BYTE	(0xffULL << 56)
#define ADDR_NS		(1ULL << 63)
#define ADDR_EL(v)	((unsigned int)(((v) >> 61) & 3))

static const char *const pkt_names[DAMON_PERF_SPE_PKT_NR] = {
	[DAMON_PERF_SPE_PKT_BAD]		= "BAD",
	[DAMON_PERF_SPE_PKT_PAD]		= "PAD",
	[DAMON_PERF_SPE_PKT_END]		= "END",
	[DAMON_PERF_SPE_PKT_TIMESTAMP]		= "TS",
	[DAMON_PERF_SPE_PKT_ADDRESS]		= "ADDR",
	[DAMON_PERF_SPE_PKT_COUNTER]		= "LAT",
	[DAMON_PERF_SPE_PKT_CONTEXT]		= "CONTEXT",
	[DAMON_PERF_SPE_PKT_OP_TYPE]		= "OP-TYPE",
	[DAMON_PERF_SPE_PKT_EVENTS]		= "EVENTS",
	[DAMON_PERF_SPE_PKT_DATA_SOURCE]	= "DATA-SOURCE",
};

/**
 * damon_perf_spe_pkt_name() - Short name of a packet type, as perf prints.
 * @type: &enum damon_perf_spe_pkt_type.
 *
 * Context: any.
 * Return: a static string; "BAD" for an unknown type.
 */
const char *damon_perf_spe_pkt_name(unsigned int type)
{
	if (type >= DAMON_PERF_SPE_PKT_NR)
		type = DAMON_PERF_SPE_PKT_BAD;
	return pkt_names[type];
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_spe_pkt_name);

/* Payload bytes encoded in the size field (bits 5:4) of a header byte. */
static __always_inline unsigned int payload_len(u8 hdr)
{
	return 1U << ((hdr >> 4) & 3);
}

/*
 * Little-endian payload of @plen (1, 2, 4 or 8) bytes, assembled byte by
 * byte; the fixed shifts let the compiler merge them into one load.
 */
static __always_inline u64 le_payload(const u8 *p, unsigned int plen)
{
	switch (plen) {
	case 1:
		return p[0];
	case 2:
		return (u64)p[0] | (u64)p[1] << 8;
	case 4:
		return (u64)p[0] | (u64)p[1] << 8 | (u64)p[2] << 16 |
		       (u64)p[3] << 24;
	default:
		return (u64)p[0] | (u64)p[1] << 8 | (u64)p[2] << 16 |
		       (u64)p[3] << 24 | (u64)p[4] << 32 | (u64)p[5] << 40 |
		       (u64)p[6] << 48 | (u64)p[7] << 56;
	}
}

/* Fill @pkt's payload from the @plen bytes after a @hlen-byte header. */
static __always_inline int get_payload(const u8 *buf, size_t len,
				       unsigned int hlen, unsigned int plen,
				       struct damon_perf_spe_pkt *pkt)
{
	if (len < hlen + plen)
		return DAMON_PERF_SPE_NEED_MORE;
	pkt->payload = le_payload(buf + hlen, plen);
	pkt->hdr_len = (u8)hlen;
	pkt->len = (u8)(hlen + plen);
	return pkt->len;
}

static __always_inline int get_simple(const u8 *buf, size_t len, u8 type,
				      u8 index,
				      struct damon_perf_spe_pkt *pkt)
{
	pkt->type = type;
	pkt->index = index;
	return get_payload(buf, len, 1, payload_len(buf[0]), pkt);
}

/* Alignment: skip to the next multiple of 2..16 bytes of the stream. */
static int get_alignment(size_t len, u64 offset, u8 hdr0,
			 struct damon_perf_spe_pkt *pkt)
{
	unsigned int align = 1U << ((hdr0 & 0xf) + 1);
	unsigned int skip = align - (unsigned int)(offset & (align - 1));

	if (len < skip)
		return DAMON_PERF_SPE_NEED_MORE;
	pkt->type = DAMON_PERF_SPE_PKT_PAD;
	pkt->hdr_len = 2;
	pkt->len = (u8)skip;
	return (int)skip;
}

/*
 * damon_perf_spe_get_packet() without clearing @pkt first: on success it
 * sets type, index, hdr_len, len and (for packets with one) payload,
 * which is all damon_perf_spe_parse() reads.
 */
static __always_inline int decode(const u8 *buf, size_t len, u64 offset,
				  struct damon_perf_spe_pkt *pkt)
{
	unsigned int hlen = 1;
	u8 hdr, idx_hi = 0;

	if (!len)
		return DAMON_PERF_SPE_NEED_MORE;

	hdr = buf[0];
	switch (hdr) {
	case DAMON_PERF_SPE_HDR_PAD:
		pkt->type = DAMON_PERF_SPE_PKT_PAD;
		pkt->hdr_len = 1;
		pkt->len = 1;
		return 1;
	case DAMON_PERF_SPE_HDR_END:
		pkt->type = DAMON_PERF_SPE_PKT_END;
		pkt->hdr_len = 1;
		pkt->len = 1;
		return 1;
	case DAMON_PERF_SPE_HDR_TIMESTAMP:
		return get_simple(buf, len, DAMON_PERF_SPE_PKT_TIMESTAMP, 0,
				  pkt);
	}

	if ((hdr & DAMON_PERF_SPE_HDR_MASK_EV_DS) == DAMON_PERF_SPE_HDR_EVENTS)
		return get_simple(buf, len, DAMON_PERF_SPE_PKT_EVENTS, 0, pkt);
	if ((hdr & DAMON_PERF_SPE_HDR_MASK_EV_DS) ==
	    DAMON_PERF_SPE_HDR_DATA_SOURCE)
		return get_simple(buf, len, DAMON_PERF_SPE_PKT_DATA_SOURCE, 0,
				  pkt);
	if ((hdr & DAMON_PERF_SPE_HDR_MASK_CTX_OP) ==
	    DAMON_PERF_SPE_HDR_CONTEXT)
		return get_simple(buf, len, DAMON_PERF_SPE_PKT_CONTEXT,
				  hdr & 3, pkt);
	if ((hdr & DAMON_PERF_SPE_HDR_MASK_CTX_OP) ==
	    DAMON_PERF_SPE_HDR_OP_TYPE) {
		/* class 3 is reserved */
		if ((hdr & 3) == 3)
			return DAMON_PERF_SPE_BAD;
		return get_simple(buf, len, DAMON_PERF_SPE_PKT_OP_TYPE,
				  hdr & 3, pkt);
	}

	if ((hdr & DAMON_PERF_SPE_HDR_MASK_CTX_OP) ==
	    DAMON_PERF_SPE_HDR_EXTENDED) {
		if (len < 2)
			return DAMON_PERF_SPE_NEED_MORE;
		if (buf[1] == DAMON_PERF_SPE_HDR1_ALIGNMENT)
			return get_alignment(len, offset, hdr, pkt);
		idx_hi = (u8)((hdr & 3) << 3);
		hlen = 2;
		hdr = buf[1];
	}

	/* ADDRESS and COUNTER share the encoding of the last header byte. */
	if ((hdr & DAMON_PERF_SPE_HDR_MASK_ADDR_CNT) ==
	    DAMON_PERF_SPE_HDR_ADDRESS)
		pkt->type = DAMON_PERF_SPE_PKT_ADDRESS;
	else if ((hdr & DAMON_PERF_SPE_HDR_MASK_ADDR_CNT) ==
		 DAMON_PERF_SPE_HDR_COUNTER)
		pkt->type = DAMON_PERF_SPE_PKT_COUNTER;
	else
		return DAMON_PERF_SPE_BAD;
	pkt->index = idx_hi | (hdr & 7);
	return get_payload(buf, len, hlen, payload_len(hdr), pkt);
}

/**
 * damon_perf_spe_get_packet() - Decode the packet at the start of a buffer.
 * @buf:	bytes of the stream.
 * @len:	bytes available at @buf; nothing past @buf + @len is read.
 * @offset:	stream offset of @buf[0] (alignment packets pad to it).
 * @pkt:	decoded packet.
 *
 * Context: any; no side effect but on @pkt.
 * Return: the packet length (> 0); DAMON_PERF_SPE_NEED_MORE when @len ends
 * inside the packet; DAMON_PERF_SPE_BAD when @buf[0] starts no packet.
 */
int damon_perf_spe_get_packet(const u8 *buf, size_t len, u64 offset,
			      struct damon_perf_spe_pkt *pkt)
{
	*pkt = (struct damon_perf_spe_pkt){ 0 };
	return decode(buf, len, offset, pkt);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_spe_get_packet);

/* Instruction or branch target address: kernel ones get the top byte. */
static u64 insn_addr(u64 payload)
{
	u64 addr = payload & ADDR_MASK_56;
	unsigned int el = ADDR_EL(payload);

	if ((payload & ADDR_NS) && (el == 1 || el == 2))
		addr |= ADDR_TOP_BYTE;
	return addr;
}

static void apply_address(struct damon_perf_spe_record *rec,
			  const struct damon_perf_spe_pkt *pkt)
{
	u64 v = pkt->payload;

	switch (pkt->index) {
	case DAMON_PERF_SPE_ADDR_PC:
		rec->pc = insn_addr(v);
		rec->el = (u8)ADDR_EL(v);
		rec->flags |= DAMON_PERF_SPE_REC_PC;
		if (v & ADDR_NS)
			rec->flags |= DAMON_PERF_SPE_REC_PC_NS;
		else
			rec->flags &= ~DAMON_PERF_SPE_REC_PC_NS;
		break;
	case DAMON_PERF_SPE_ADDR_BRANCH:
		rec->branch_target = insn_addr(v);
		rec->flags |= DAMON_PERF_SPE_REC_BRANCH;
		break;
	case DAMON_PERF_SPE_ADDR_DATA_VA:
		/* drop the top-byte tag, sign-extend from bit 55 (TBI) */
		v &= ADDR_MASK_56;
		if (v & ADDR_BIT_55)
			v |= ADDR_TOP_BYTE;
		rec->vaddr = v;
		rec->flags |= DAMON_PERF_SPE_REC_VADDR;
		break;
	case DAMON_PERF_SPE_ADDR_DATA_PA:
		rec->paddr = v & ADDR_MASK_56;
		rec->flags |= DAMON_PERF_SPE_REC_PADDR;
		if (v & ADDR_NS)
			rec->flags |= DAMON_PERF_SPE_REC_PA_NS;
		else
			rec->flags &= ~DAMON_PERF_SPE_REC_PA_NS;
		break;
	}
}

static void apply_counter(struct damon_perf_spe_record *rec,
			  const struct damon_perf_spe_pkt *pkt)
{
	u32 v = (u32)pkt->payload;

	switch (pkt->index) {
	case DAMON_PERF_SPE_CNT_TOTAL_LAT:
		rec->latency = v;
		rec->flags |= DAMON_PERF_SPE_REC_LATENCY;
		break;
	case DAMON_PERF_SPE_CNT_ISSUE_LAT:
		rec->issue_latency = v;
		rec->flags |= DAMON_PERF_SPE_REC_ISSUE_LAT;
		break;
	case DAMON_PERF_SPE_CNT_XLAT_LAT:
		rec->xlat_latency = v;
		rec->flags |= DAMON_PERF_SPE_REC_XLAT_LAT;
		break;
	}
}

#define OP_FLAGS (DAMON_PERF_SPE_REC_LOAD | DAMON_PERF_SPE_REC_STORE | \
		  DAMON_PERF_SPE_REC_OP_OTHER | DAMON_PERF_SPE_REC_OP_BRANCH)

static void apply_op(struct damon_perf_spe_record *rec,
		     const struct damon_perf_spe_pkt *pkt)
{
	rec->op = (u8)pkt->payload;
	rec->flags &= ~OP_FLAGS;
	switch (pkt->index) {
	case DAMON_PERF_SPE_OP_LDST:
		if (pkt->payload & DAMON_PERF_SPE_OP_LDST_ST)
			rec->flags |= DAMON_PERF_SPE_REC_STORE;
		else
			rec->flags |= DAMON_PERF_SPE_REC_LOAD;
		break;
	case DAMON_PERF_SPE_OP_BRANCH:
		rec->flags |= DAMON_PERF_SPE_REC_OP_BRANCH;
		break;
	default:
		rec->flags |= DAMON_PERF_SPE_REC_OP_OTHER;
		break;
	}
}

/* Fold one packet into @rec; true when it ends the record. */
static bool apply(struct damon_perf_spe_record *rec,
		  const struct damon_perf_spe_pkt *pkt)
{
	switch (pkt->type) {
	case DAMON_PERF_SPE_PKT_END:
		return true;
	case DAMON_PERF_SPE_PKT_TIMESTAMP:
		rec->timestamp = pkt->payload;
		rec->flags |= DAMON_PERF_SPE_REC_TIMESTAMP;
		return true;
	case DAMON_PERF_SPE_PKT_ADDRESS:
		apply_address(rec, pkt);
		break;
	case DAMON_PERF_SPE_PKT_COUNTER:
		apply_counter(rec, pkt);
		break;
	case DAMON_PERF_SPE_PKT_CONTEXT:
		rec->context_id = pkt->payload;
		rec->flags |= DAMON_PERF_SPE_REC_CONTEXT;
		break;
	case DAMON_PERF_SPE_PKT_OP_TYPE:
		apply_op(rec, pkt);
		break;
	case DAMON_PERF_SPE_PKT_EVENTS:
		rec->events = pkt->payload;
		rec->flags |= DAMON_PERF_SPE_REC_EVENTS;
		break;
	case DAMON_PERF_SPE_PKT_DATA_SOURCE:
		rec->data_source = (u16)pkt->payload;
		rec->flags |= DAMON_PERF_SPE_REC_DATA_SOURCE;
		break;
	}
	return false;
}

/**
 * damon_perf_spe_parse() - Parse the SPE records of a byte range.
 * @buf:	bytes of the stream.
 * @len:	bytes available at @buf; nothing past @buf + @len is read.
 * @offset:	stream offset of @buf[0] (for alignment packets).
 * @stats:	running totals to add to; may be NULL.
 * @fn:		called for each complete, non-empty record; returns true
 *		when it took the record, false to stop parsing before it
 *		(the record is then not consumed); may be NULL.
 * @arg:	passed to @fn.
 *
 * Parsing stops at the end of @buf, at a record cut by the end of @buf, or
 * before the first record @fn refuses. PAD bytes and alignment between
 * records are consumed; a byte that starts no valid packet is skipped and
 * counted in @stats->errors, and the record it interrupted is discarded
 * (counted in @stats->dropped). A record is empty, and not passed to @fn,
 * when its END or TIMESTAMP follows no other packet. A record that grows
 * past DAMON_PERF_SPE_REC_MAX bytes is dropped (@stats->overlong) and
 * everything up to and including the next END or TIMESTAMP is consumed
 * unparsed: the resync point is the next record boundary. Should @buf end
 * before that boundary, the skipped bytes are consumed all the same and
 * @stats->resync stays set, so that a call resuming there goes on
 * skipping.
 *
 * Context: any; runs in time linear in @len and calls only @fn.
 * Return: the bytes consumed: everything up to the end of the last record
 * taken, plus padding and skipped bytes after it. The caller keeps
 * @buf[return value..@len) and passes it again with more data. Unless @fn
 * refused a record, or an alignment packet between records needs more
 * bytes than @len holds, at most DAMON_PERF_SPE_REC_MAX +
 * DAMON_PERF_SPE_PKT_MAX bytes stay unconsumed.
 */
size_t damon_perf_spe_parse(const u8 *buf, size_t len, u64 offset,
			    struct damon_perf_spe_stats *stats,
			    bool (*fn)(const struct damon_perf_spe_record *rec,
				       void *arg),
			    void *arg)
{
	struct damon_perf_spe_stats dummy;
	struct damon_perf_spe_record rec = { 0 };
	struct damon_perf_spe_pkt pkt = { 0 };
	size_t pos = 0, start = 0;
	bool in_rec = false;
	int ret;

	if (!stats) {
		dummy = (struct damon_perf_spe_stats){ 0 };
		stats = &dummy;
	}
	/*
	 * Outside a record start == pos, so only a record can grow past
	 * DAMON_PERF_SPE_REC_MAX, and its length only grows until it ends.
	 * The limit is therefore tested lazily, once per record, where the
	 * record's fate is decided: at its END or TIMESTAMP, at a bad byte,
	 * at a cut and at the end of @buf. There, pos - start (or the end of
	 * the ending packet - start) exceeds the limit exactly when a test
	 * after every packet would have dropped it already; the packets
	 * folded into @rec past the limit are thrown away with it. Dropping
	 * it then enters the resync loop, as the per-packet test did at the
	 * crossing, so records, statistics and the bytes consumed are the
	 * same.
	 */
	if (stats->resync)
		goto resync;
parse:
	while (pos < len) {
		/* PAD runs fill records up to their alignment: skip them */
		if (buf[pos] == DAMON_PERF_SPE_HDR_PAD) {
			do
				pos++;
			while (pos < len && buf[pos] == DAMON_PERF_SPE_HDR_PAD);
			if (!in_rec)
				start = pos;
			continue;
		}
		ret = decode(buf + pos, len - pos, offset + pos, &pkt);
		if (ret == DAMON_PERF_SPE_NEED_MORE) {
			if (in_rec && pos - start > DAMON_PERF_SPE_REC_MAX)
				goto overlong;
			/* only an alignment packet is longer than PKT_MAX */
			if (len - pos <= DAMON_PERF_SPE_PKT_MAX)
				break;
			/* it cannot end within the longest record: drop it */
			if (in_rec && len - start > DAMON_PERF_SPE_REC_MAX) {
				stats->overlong++;
				stats->dropped++;
				start = pos;
				stats->resync = true;
				return start;
			}
			break;
		}
		if (ret < 0) {
			if (in_rec && pos - start > DAMON_PERF_SPE_REC_MAX) {
				/* dropped before this byte, then skipped */
				stats->overlong++;
				stats->dropped++;
				stats->errors++;
				pos++;
				start = pos;
				in_rec = false;
				goto resync;
			}
			stats->errors++;
			if (in_rec)
				stats->dropped++;
			pos++;
			start = pos;
			in_rec = false;
			rec = (struct damon_perf_spe_record){ 0 };
			continue;
		}
		pos += (size_t)ret;
		if (pkt.type == DAMON_PERF_SPE_PKT_PAD) {
			if (!in_rec)
				start = pos;
			continue;
		}
		if (!apply(&rec, &pkt)) {
			in_rec = true;
			continue;
		}
		if (in_rec) {
			if (pos - start > DAMON_PERF_SPE_REC_MAX) {
				/* too long a record; the boundary is here */
				stats->overlong++;
				stats->dropped++;
			} else {
				if (fn && !fn(&rec, arg)) {
					stats->refused++;
					stats->resync = false;
					return start;
				}
				stats->records++;
			}
		}
		start = pos;
		in_rec = false;
		rec = (struct damon_perf_spe_record){ 0 };
	}
	if (in_rec && pos - start > DAMON_PERF_SPE_REC_MAX)
		goto overlong;
	stats->resync = false;
	return start;

overlong:
	/* no record is this long: drop it, find a boundary */
	stats->overlong++;
	stats->dropped++;
	start = pos;
resync:
	/*
	 * Inside a dropped record: consume everything up to and including
	 * the next END or TIMESTAMP unparsed (still decoded, so that a
	 * payload byte is not taken for a boundary); start stays at pos.
	 */
	while (pos < len) {
		if (buf[pos] == DAMON_PERF_SPE_HDR_PAD) {
			pos++;
			continue;
		}
		ret = decode(buf + pos, len - pos, offset + pos, &pkt);
		if (ret == DAMON_PERF_SPE_NEED_MORE)
			break;
		if (ret < 0) {
			stats->errors++;
			pos++;
			continue;
		}
		pos += (size_t)ret;
		if (pkt.type == DAMON_PERF_SPE_PKT_END ||
		    pkt.type == DAMON_PERF_SPE_PKT_TIMESTAMP) {
			/* the boundary: parse on from there */
			start = pos;
			in_rec = false;
			rec = (struct damon_perf_spe_record){ 0 };
			goto parse;
		}
	}
	stats->resync = true;
	return pos;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_spe_parse);
