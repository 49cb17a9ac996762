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

/*
 * What the parse loop does with a packet, from its first header byte.
 * From HK_TS on, apply() folds the packet into the record. The ADDRESS
 * and COUNTER kinds come last (an extended header must be followed by one
 * of them); HK_ADDR and HK_CNT are the indexes the record does not keep.
 */
enum hdr_kind {
	HK_BAD,
	HK_PAD,
	HK_END,
	HK_EXT,
	HK_TS,		/* first kind for apply() */
	HK_EV1,
	HK_EV2,
	HK_EV4,
	HK_EV8,
	HK_DS1,
	HK_DS2,
	HK_DS4,
	HK_DS8,
	HK_CTX,
	HK_OP_OTHER,
	HK_OP_LDST,
	HK_OP_BRANCH,
	HK_PC,		/* first ADDRESS kind */
	HK_BRANCH,
	HK_VA,
	HK_PA,
	HK_ADDR,
	HK_LAT,		/* first COUNTER kind */
	HK_ISSUE,
	HK_XLAT,
	HK_CNT,
};

/**
 * struct hdr_info - What a first (or, after an extended header, second)
 * header byte says.
 * @kind:	&enum hdr_kind.
 * @len:	one header byte plus the payload bytes; 0 for HK_BAD and 2
 *		for HK_EXT (the bytes needed to read the second byte).
 * @type:	&enum damon_perf_spe_pkt_type, for
 *		damon_perf_spe_get_packet().
 * @index:	index or class in the byte (bits 2:0 or 1:0).
 */
struct hdr_info {
	u8 kind;
	u8 len;
	u8 type;
	u8 index;
};

#define HDR(k, l, t, i) { HK_##k, l, DAMON_PERF_SPE_PKT_##t, i }

/*
 * The header encodings of the Arm ARM, one entry per byte value; the
 * payload length is 1 << bits 5:4 of the byte. Every byte not listed
 * starts no packet (HK_BAD); so does OP_TYPE class 3 (0x4b, reserved).
 */
static const struct hdr_info hdr_tab[256] = {
	[0x00]		= HDR(PAD, 1, PAD, 0),
	[0x01]		= HDR(END, 1, END, 0),
	[0x20 ... 0x23]	= HDR(EXT, 2, BAD, 0),
	[0x42]		= HDR(EV1, 2, EVENTS, 0),
	[0x52]		= HDR(EV2, 3, EVENTS, 0),
	[0x62]		= HDR(EV4, 5, EVENTS, 0),
	[0x72]		= HDR(EV8, 9, EVENTS, 0),
	[0x43]		= HDR(DS1, 2, DATA_SOURCE, 0),
	[0x53]		= HDR(DS2, 3, DATA_SOURCE, 0),
	[0x63]		= HDR(DS4, 5, DATA_SOURCE, 0),
	[0x73]		= HDR(DS8, 9, DATA_SOURCE, 0),
	[0x48]		= HDR(OP_OTHER, 2, OP_TYPE, 0),
	[0x49]		= HDR(OP_LDST, 2, OP_TYPE, 1),
	[0x4a]		= HDR(OP_BRANCH, 2, OP_TYPE, 2),
	[0x64]		= HDR(CTX, 5, CONTEXT, 0),
	[0x65]		= HDR(CTX, 5, CONTEXT, 1),
	[0x66]		= HDR(CTX, 5, CONTEXT, 2),
	[0x67]		= HDR(CTX, 5, CONTEXT, 3),
	[0x71]		= HDR(TS, 9, TIMESTAMP, 0),
	[0x98]		= HDR(LAT, 3, COUNTER, 0),
	[0x99]		= HDR(ISSUE, 3, COUNTER, 1),
	[0x9a]		= HDR(XLAT, 3, COUNTER, 2),
	[0x9b]		= HDR(CNT, 3, COUNTER, 3),
	[0x9c]		= HDR(CNT, 3, COUNTER, 4),
	[0x9d]		= HDR(CNT, 3, COUNTER, 5),
	[0x9e]		= HDR(CNT, 3, COUNTER, 6),
	[0x9f]		= HDR(CNT, 3, COUNTER, 7),
	[0xb0]		= HDR(PC, 9, ADDRESS, 0),
	[0xb1]		= HDR(BRANCH, 9, ADDRESS, 1),
	[0xb2]		= HDR(VA, 9, ADDRESS, 2),
	[0xb3]		= HDR(PA, 9, ADDRESS, 3),
	[0xb4]		= HDR(ADDR, 9, ADDRESS, 4),
	[0xb5]		= HDR(ADDR, 9, ADDRESS, 5),
	[0xb6]		= HDR(ADDR, 9, ADDRESS, 6),
	[0xb7]		= HDR(ADDR, 9, ADDRESS, 7),
};

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

/* Alignment: skip to the next multiple of 2..16 bytes of the stream. */
static __always_inline unsigned int align_skip(u64 offset, u8 hdr0)
{
	unsigned int align = 1U << ((hdr0 & 0xf) + 1);

	return align - (unsigned int)(offset & (align - 1));
}

/*
 * The end of the PAD run that goes on at @buf[@pos], or @len: eight bytes
 * at a time while eight are left (the first non-zero byte of a word is
 * its lowest set byte, the word being assembled little-endian).
 */
static __always_inline size_t skip_pad(const u8 *buf, size_t len,
				       size_t pos)
{
	u64 w;

	while (len - pos >= 8) {
		w = le_payload(buf + pos, 8);
		if (w)
			return pos + __ffs64(w) / 8;
		pos += 8;
	}
	while (pos < len && buf[pos] == DAMON_PERF_SPE_HDR_PAD)
		pos++;
	return pos;
}

/*
 * The header entry of an extended packet at @buf (@len >= 2, @buf[1] not
 * an alignment), its index completed from bits 1:0 of @buf[0]; NULL when
 * @buf[1] is no ADDRESS or COUNTER header.
 */
static __always_inline const struct hdr_info *
ext_hdr(const u8 *buf, unsigned int *index)
{
	const struct hdr_info *h = &hdr_tab[buf[1]];

	if (h->kind < HK_PC)
		return NULL;
	*index = (buf[0] & 3U) << 3 | h->index;
	return h;
}

/*
 * For the parse loop, out of line (extended headers are rare): the kind
 * of the extended packet at @buf (@buf[1] not an alignment) and, in
 * @plen, its length; HK_BAD when @buf[1] is no ADDRESS or COUNTER header.
 */
static noinline unsigned int ext_kind(const u8 *buf, unsigned int *plen)
{
	const struct hdr_info *h;
	unsigned int index;

	h = ext_hdr(buf, &index);
	if (!h)
		return HK_BAD;
	*plen = h->len + 1U;
	/* an index above 7 is one the record does not keep */
	if (index > 7)
		return h->kind >= HK_LAT ? HK_CNT : HK_ADDR;
	return h->kind;
}

/*
 * damon_perf_spe_get_packet() without clearing @pkt first: on success it
 * sets type, index, hdr_len, len and (for packets with one) payload;
 * when the packet is cut, type and index as far as they are known.
 */
static int decode(const u8 *buf, size_t len, u64 offset,
		  struct damon_perf_spe_pkt *pkt)
{
	const struct hdr_info *h;
	unsigned int hlen = 1, index, plen, skip;

	if (!len)
		return DAMON_PERF_SPE_NEED_MORE;
	h = &hdr_tab[buf[0]];
	index = h->index;
	if (h->kind == HK_BAD)
		return DAMON_PERF_SPE_BAD;
	if (h->kind == HK_EXT) {
		if (len < 2)
			return DAMON_PERF_SPE_NEED_MORE;
		if (buf[1] == DAMON_PERF_SPE_HDR1_ALIGNMENT) {
			skip = align_skip(offset, buf[0]);
			if (len < skip)
				return DAMON_PERF_SPE_NEED_MORE;
			pkt->type = DAMON_PERF_SPE_PKT_PAD;
			pkt->hdr_len = 2;
			pkt->len = (u8)skip;
			return (int)skip;
		}
		h = ext_hdr(buf, &index);
		if (!h)
			return DAMON_PERF_SPE_BAD;
		hlen = 2;
	}
	pkt->type = h->type;
	pkt->index = (u8)index;
	plen = h->len - 1U;
	if (len < hlen + plen)
		return DAMON_PERF_SPE_NEED_MORE;
	if (plen)
		pkt->payload = le_payload(buf + hlen, plen);
	pkt->hdr_len = (u8)hlen;
	pkt->len = (u8)(hlen + plen);
	return pkt->len;
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

#define OP_FLAGS (DAMON_PERF_SPE_REC_LOAD | DAMON_PERF_SPE_REC_STORE | \
		  DAMON_PERF_SPE_REC_OP_OTHER | DAMON_PERF_SPE_REC_OP_BRANCH)

/*
 * Fold the packet of @kind (HK_TS or after), payload at @q, into @rec;
 * true when it ends the record (a TIMESTAMP). The reads stay within the
 * packet's length.
 */
static __always_inline bool apply(struct damon_perf_spe_record *rec,
				  unsigned int kind, const u8 *q)
{
	u64 v;

	switch (kind) {
	case HK_TS:
		rec->timestamp = le_payload(q, 8);
		rec->flags |= DAMON_PERF_SPE_REC_TIMESTAMP;
		return true;
	case HK_PC:
		v = le_payload(q, 8);
		rec->pc = insn_addr(v);
		rec->el = (u8)ADDR_EL(v);
		rec->flags |= DAMON_PERF_SPE_REC_PC;
		if (v & ADDR_NS)
			rec->flags |= DAMON_PERF_SPE_REC_PC_NS;
		else
			rec->flags &= ~DAMON_PERF_SPE_REC_PC_NS;
		break;
	case HK_BRANCH:
		rec->branch_target = insn_addr(le_payload(q, 8));
		rec->flags |= DAMON_PERF_SPE_REC_BRANCH;
		break;
	case HK_VA:
		/* drop the top-byte tag, sign-extend from bit 55 (TBI) */
		v = le_payload(q, 8) & ADDR_MASK_56;
		if (v & ADDR_BIT_55)
			v |= ADDR_TOP_BYTE;
		rec->vaddr = v;
		rec->flags |= DAMON_PERF_SPE_REC_VADDR;
		break;
	case HK_PA:
		v = le_payload(q, 8);
		rec->paddr = v & ADDR_MASK_56;
		rec->flags |= DAMON_PERF_SPE_REC_PADDR;
		if (v & ADDR_NS)
			rec->flags |= DAMON_PERF_SPE_REC_PA_NS;
		else
			rec->flags &= ~DAMON_PERF_SPE_REC_PA_NS;
		break;
	case HK_LAT:
		rec->latency = (u32)le_payload(q, 2);
		rec->flags |= DAMON_PERF_SPE_REC_LATENCY;
		break;
	case HK_ISSUE:
		rec->issue_latency = (u32)le_payload(q, 2);
		rec->flags |= DAMON_PERF_SPE_REC_ISSUE_LAT;
		break;
	case HK_XLAT:
		rec->xlat_latency = (u32)le_payload(q, 2);
		rec->flags |= DAMON_PERF_SPE_REC_XLAT_LAT;
		break;
	case HK_CTX:
		rec->context_id = le_payload(q, 4);
		rec->flags |= DAMON_PERF_SPE_REC_CONTEXT;
		break;
	case HK_OP_OTHER:
		rec->op = q[0];
		rec->flags = (rec->flags & ~OP_FLAGS) |
			     DAMON_PERF_SPE_REC_OP_OTHER;
		break;
	case HK_OP_LDST:
		rec->op = q[0];
		rec->flags = (rec->flags & ~OP_FLAGS) |
			     (q[0] & DAMON_PERF_SPE_OP_LDST_ST ?
			      DAMON_PERF_SPE_REC_STORE :
			      DAMON_PERF_SPE_REC_LOAD);
		break;
	case HK_OP_BRANCH:
		rec->op = q[0];
		rec->flags = (rec->flags & ~OP_FLAGS) |
			     DAMON_PERF_SPE_REC_OP_BRANCH;
		break;
	case HK_EV1:
		rec->events = q[0];
		rec->flags |= DAMON_PERF_SPE_REC_EVENTS;
		break;
	case HK_EV2:
		rec->events = le_payload(q, 2);
		rec->flags |= DAMON_PERF_SPE_REC_EVENTS;
		break;
	case HK_EV4:
		rec->events = le_payload(q, 4);
		rec->flags |= DAMON_PERF_SPE_REC_EVENTS;
		break;
	case HK_EV8:
		rec->events = le_payload(q, 8);
		rec->flags |= DAMON_PERF_SPE_REC_EVENTS;
		break;
	case HK_DS1:
		rec->data_source = q[0];
		rec->flags |= DAMON_PERF_SPE_REC_DATA_SOURCE;
		break;
	case HK_DS2:
	case HK_DS4:
	case HK_DS8:
		/* the field keeps the low 16 bits of any payload size */
		rec->data_source = (u16)le_payload(q, 2);
		rec->flags |= DAMON_PERF_SPE_REC_DATA_SOURCE;
		break;
	}
	/* HK_ADDR, HK_CNT: an index the record does not keep */
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
		const u8 *p = buf + pos;
		const struct hdr_info *h = &hdr_tab[p[0]];
		unsigned int kind = h->kind, plen = h->len, skip;
		const u8 *q = p + 1;

		if (len - pos < plen)
			goto need_more;
dispatch:
		if (kind >= HK_TS) {
			pos += plen;
			if (!apply(&rec, kind, q)) {
				in_rec = true;
				continue;
			}
		} else if (kind == HK_END) {
			pos++;
		} else if (kind == HK_PAD) {
			/* PAD runs fill records up to their alignment */
			pos = skip_pad(buf, len, pos + 1);
			if (!in_rec)
				start = pos;
			continue;
		} else if (kind == HK_EXT) {
			if (p[1] == DAMON_PERF_SPE_HDR1_ALIGNMENT) {
				skip = align_skip(offset + pos, p[0]);
				if (len - pos < skip)
					goto need_more;
				pos += skip;
				if (!in_rec)
					start = pos;
				continue;
			}
			kind = ext_kind(p, &plen);
			if (kind == HK_BAD)
				goto bad;
			q = p + 2;
			if (len - pos < plen)
				goto need_more;
			goto dispatch;
		} else {
			goto bad;
		}
		/* an END or a TIMESTAMP: the record ends here */
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
	goto done;

need_more:
	if (in_rec && pos - start > DAMON_PERF_SPE_REC_MAX)
		goto overlong;
	/* only an alignment packet is longer than PKT_MAX */
	if (len - pos > DAMON_PERF_SPE_PKT_MAX &&
	    in_rec && len - start > DAMON_PERF_SPE_REC_MAX) {
		/* it cannot end within the longest record: drop it */
		stats->overlong++;
		stats->dropped++;
		start = pos;
		stats->resync = true;
		return start;
	}
	goto done;

bad:
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
	goto parse;

done:
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
