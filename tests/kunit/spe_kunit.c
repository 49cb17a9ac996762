// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the SPE packet/record parser, byte-exact, from the case table
 * shared with GoogleTest (tests/spe_cases.h). Inputs are copied into
 * buffers of exactly their length so KASAN reports any over-read.
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "aux.h"
#include "ring.h"
#include "spe.h"
#include "spe_parse.h"
#include "../spe_cases.h"

static void expect_record(struct kunit *test,
			  const struct damon_perf_spe_record *got,
			  const struct damon_perf_spe_record *want)
{
	KUNIT_EXPECT_EQ(test, got->vaddr, want->vaddr);
	KUNIT_EXPECT_EQ(test, got->paddr, want->paddr);
	KUNIT_EXPECT_EQ(test, got->pc, want->pc);
	KUNIT_EXPECT_EQ(test, got->branch_target, want->branch_target);
	KUNIT_EXPECT_EQ(test, got->timestamp, want->timestamp);
	KUNIT_EXPECT_EQ(test, got->context_id, want->context_id);
	KUNIT_EXPECT_EQ(test, got->events, want->events);
	KUNIT_EXPECT_EQ(test, got->latency, want->latency);
	KUNIT_EXPECT_EQ(test, got->issue_latency, want->issue_latency);
	KUNIT_EXPECT_EQ(test, got->xlat_latency, want->xlat_latency);
	KUNIT_EXPECT_EQ(test, got->flags, want->flags);
	KUNIT_EXPECT_EQ(test, got->data_source, want->data_source);
	KUNIT_EXPECT_EQ(test, got->el, want->el);
	KUNIT_EXPECT_EQ(test, got->op, want->op);
}

/* An exact-length copy; kmalloc(0) gives ZERO_SIZE_PTR, never read. */
static u8 *dup_exact(struct kunit *test, const u8 *bytes, size_t len)
{
	u8 *buf = kunit_kmalloc(test, len, GFP_KERNEL);

	if (len) {
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
		memcpy(buf, bytes, len);
	}
	return buf;
}

KUNIT_ARRAY_PARAM_DESC(spe_cases, spe_cases, desc);

static void spe_parse_should_decode_records_byte_exact(struct kunit *test)
{
	const struct spe_case *c = test->param_value;
	struct damon_perf_spe_stats st = { 0 };
	struct spe_collect col = { 0 };
	unsigned int i;
	size_t used;
	u8 *buf;

	buf = dup_exact(test, c->bytes, c->len);
	used = damon_perf_spe_parse(buf, c->len, c->offset, &st,
				    spe_collect_fn, &col);
	KUNIT_EXPECT_EQ(test, used, c->consumed);
	KUNIT_ASSERT_EQ(test, col.nr, c->nr_recs);
	KUNIT_EXPECT_EQ(test, st.records, (u64)c->nr_recs);
	KUNIT_EXPECT_EQ(test, st.errors, c->errors);
	KUNIT_EXPECT_EQ(test, st.dropped, c->dropped);
	KUNIT_EXPECT_EQ(test, st.refused, 0ULL);
	for (i = 0; i < c->nr_recs && i < SPE_CASE_MAX_RECS; i++)
		expect_record(test, &col.recs[i], &c->recs[i]);
}

KUNIT_ARRAY_PARAM_DESC(spe_pkt_cases, spe_pkt_cases, desc);

static void spe_get_packet_should_decode_header_and_payload(struct kunit *test)
{
	const struct spe_pkt_case *c = test->param_value;
	struct damon_perf_spe_pkt pkt;
	u8 *buf;
	int ret;

	buf = dup_exact(test, c->bytes, c->len);
	ret = damon_perf_spe_get_packet(buf, c->len, c->offset, &pkt);
	KUNIT_ASSERT_EQ(test, ret, c->ret);
	if (ret <= 0)
		return;
	KUNIT_EXPECT_EQ(test, pkt.type, c->type);
	KUNIT_EXPECT_EQ(test, pkt.index, c->index);
	KUNIT_EXPECT_EQ(test, pkt.payload, c->payload);
	KUNIT_EXPECT_EQ(test, (int)pkt.len, ret);
}

static void spe_cases_should_have_the_documented_layout(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, sizeof(spe_rec_load), (size_t)SPE_REC_LOAD_LEN);
}

static void spe_parse_should_keep_every_truncated_packet(struct kunit *test)
{
	const size_t n = sizeof(spe_every_packet);
	struct damon_perf_spe_stats st;
	struct spe_collect col;
	size_t cut, used;
	u8 *buf;

	for (cut = 0; cut < n; cut++) {
		memset(&st, 0, sizeof(st));
		memset(&col, 0, sizeof(col));
		buf = dup_exact(test, spe_every_packet, cut);
		used = damon_perf_spe_parse(buf, cut, 0, &st, spe_collect_fn,
					    &col);
		/* only the leading PAD is consumed */
		KUNIT_EXPECT_EQ_MSG(test, used, (size_t)(cut ? 1 : 0),
				    "cut at %zu", cut);
		KUNIT_EXPECT_EQ_MSG(test, col.nr, 0U, "cut at %zu", cut);
		KUNIT_EXPECT_EQ_MSG(test, st.errors, 0ULL, "cut at %zu", cut);
		kunit_kfree(test, buf);
	}
	memset(&st, 0, sizeof(st));
	memset(&col, 0, sizeof(col));
	used = damon_perf_spe_parse(spe_every_packet, n, 0, &st,
				    spe_collect_fn, &col);
	KUNIT_EXPECT_EQ(test, used, n);
	KUNIT_ASSERT_EQ(test, col.nr, 1U);
	KUNIT_EXPECT_EQ(test, col.recs[0].vaddr, 0x0000ffff00003000ULL);
	KUNIT_EXPECT_EQ(test, col.recs[0].latency, 4U);
	KUNIT_EXPECT_EQ(test, col.recs[0].timestamp, 99ULL);
}

static void spe_parse_should_not_consume_a_refused_record(struct kunit *test)
{
	struct damon_perf_spe_stats st = { 0 };
	struct spe_collect col = { .limit = 1 };
	size_t used;

	used = damon_perf_spe_parse(spe_load_store, sizeof(spe_load_store), 0,
				    &st, spe_collect_fn, &col);
	KUNIT_EXPECT_EQ(test, used, sizeof(spe_rec_load));
	KUNIT_EXPECT_EQ(test, col.nr, 1U);
	KUNIT_EXPECT_EQ(test, st.records, 1ULL);
	KUNIT_EXPECT_EQ(test, st.refused, 1ULL);

	col.limit = 0;
	used = damon_perf_spe_parse(spe_load_store + used,
				    sizeof(spe_load_store) - used, used, &st,
				    spe_collect_fn, &col);
	KUNIT_EXPECT_EQ(test, used, sizeof(spe_rec_store));
	KUNIT_EXPECT_EQ(test, st.records, 2ULL);
	KUNIT_ASSERT_EQ(test, col.nr, 2U);
	expect_record(test, &col.recs[1],
		      &(const struct damon_perf_spe_record)REC_STORE_EXPECT);
}

/* Fill @n bytes with DATA_VA ADDRESS packets (9 bytes) and PAD: no END. */
static void fill_unterminated(u8 *buf, size_t n)
{
	static const u8 va[] = { P_VA(0x1000) };
	size_t i;

	for (i = 0; i + sizeof(va) <= n; i += sizeof(va))
		memcpy(buf + i, va, sizeof(va));
	memset(buf + i, P_PAD, n - i);
}

static void spe_parse_should_resync_after_an_overlong_record(struct kunit *test)
{
	const size_t junk = 3 * DAMON_PERF_SPE_REC_MAX;
	const size_t n = junk + 1 + sizeof(spe_rec_load);
	struct damon_perf_spe_stats st = { 0 };
	struct spe_collect col = { 0 };
	size_t used;
	u8 *buf;

	buf = kunit_kmalloc(test, n, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	/* a record that never ends, an END, then a good load */
	fill_unterminated(buf, junk);
	buf[junk] = P_END;
	memcpy(buf + junk + 1, spe_rec_load, sizeof(spe_rec_load));
	used = damon_perf_spe_parse(buf, n, 0, &st, spe_collect_fn, &col);
	KUNIT_EXPECT_EQ(test, used, n);
	KUNIT_EXPECT_EQ(test, st.overlong, 1ULL);
	KUNIT_EXPECT_EQ(test, st.dropped, 1ULL);
	KUNIT_EXPECT_EQ(test, st.records, 1ULL);
	KUNIT_ASSERT_EQ(test, col.nr, 1U);
	expect_record(test, &col.recs[0],
		      &(const struct damon_perf_spe_record)REC_LOAD_EXPECT);

	/* cut before the END: everything is consumed, nothing delivered */
	memset(&st, 0, sizeof(st));
	memset(&col, 0, sizeof(col));
	used = damon_perf_spe_parse(buf, junk, 0, &st, spe_collect_fn, &col);
	KUNIT_EXPECT_EQ(test, used, junk);
	KUNIT_EXPECT_EQ(test, st.overlong, 1ULL);
	KUNIT_EXPECT_EQ(test, col.nr, 0U);

	/* a record of exactly the longest size is still a record */
	memset(&st, 0, sizeof(st));
	memset(&col, 0, sizeof(col));
	fill_unterminated(buf, DAMON_PERF_SPE_REC_MAX - 1);
	buf[DAMON_PERF_SPE_REC_MAX - 1] = P_END;
	used = damon_perf_spe_parse(buf, DAMON_PERF_SPE_REC_MAX, 0, &st,
				    spe_collect_fn, &col);
	KUNIT_EXPECT_EQ(test, used, (size_t)DAMON_PERF_SPE_REC_MAX);
	KUNIT_EXPECT_EQ(test, st.overlong, 0ULL);
	KUNIT_EXPECT_EQ(test, col.nr, 1U);
}

static struct kunit_case spe_parse_cases[] = {
	KUNIT_CASE(spe_cases_should_have_the_documented_layout),
	KUNIT_CASE_PARAM(spe_parse_should_decode_records_byte_exact,
			 spe_cases_gen_params),
	KUNIT_CASE_PARAM(spe_get_packet_should_decode_header_and_payload,
			 spe_pkt_cases_gen_params),
	KUNIT_CASE(spe_parse_should_keep_every_truncated_packet),
	KUNIT_CASE(spe_parse_should_not_consume_a_refused_record),
	KUNIT_CASE(spe_parse_should_resync_after_an_overlong_record),
	{}
};

static struct kunit_suite spe_parse_suite = {
	.name = "damon_perf_spe_parse",
	.test_cases = spe_parse_cases,
};

/*
 * The SPE backend's drain over buffers filled by hand: a fake user page,
 * data ring and AUX area of plain memory on one online CPU.
 */
struct drain_fix {
	struct perf_event_mmap_page *up;
	u8 *data;
	u8 *aux;
	unsigned long aux_size;
	struct damon_perf_aux_event *event;
	struct damon_perf_rings rings;
	struct damon_perf_aux_cpu *pc;
	int cpu;
};

/* vzalloc() as a test resource: freed with the test, even on failure. */
static int vz_init(struct kunit_resource *res, void *size)
{
	res->data = vzalloc(*(unsigned long *)size);
	return res->data ? 0 : -ENOMEM;
}

static void vz_free(struct kunit_resource *res)
{
	vfree(res->data);
}

static void *kunit_vzalloc(struct kunit *test, unsigned long size)
{
	return kunit_alloc_resource(test, vz_init, vz_free, GFP_KERNEL, &size);
}

static void fix_setup(struct kunit *test, struct drain_fix *f,
		      unsigned long aux_size, unsigned int ring_size)
{
	memset(f, 0, sizeof(*f));
	f->aux_size = aux_size;
	f->up = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	f->data = kunit_kzalloc(test, 256, GFP_KERNEL);
	f->aux = kunit_vzalloc(test, aux_size);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->up);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->data);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->aux);
	KUNIT_ASSERT_EQ(test, damon_perf_rings_alloc(&f->rings, ring_size,
						     NULL, NULL), 0);
	f->event = damon_perf_aux_event_new(NULL, 1, 0, 4242);
	KUNIT_ASSERT_NOT_NULL(test, f->event);
	f->cpu = cpumask_first(cpu_online_mask);
}

static void fix_attach(struct kunit *test, struct drain_fix *f)
{
	KUNIT_ASSERT_EQ(test, damon_perf_spe_test_attach(f->event, f->cpu,
							 f->up, f->data, 256,
							 f->aux, f->aux_size),
			0);
	f->pc = per_cpu_ptr(f->event->pcpu, f->cpu);
}

static void fix_teardown(struct drain_fix *f)
{
	damon_perf_aux_event_free(f->event);
	damon_perf_rings_free(&f->rings);
}

/* Write @n bytes at AUX stream position @pos, wrapping as hardware does. */
static void aux_put(struct drain_fix *f, u64 pos, const u8 *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		f->aux[(pos + i) & (f->aux_size - 1)] = src[i];
}

struct ring_count {
	unsigned int n;
	unsigned int writes;
	bool tgid_ok;
};

static void ring_count_fn(const struct damon_perf_report *r, void *arg)
{
	struct ring_count *c = arg;

	c->n++;
	c->writes += r->is_write;
	c->tgid_ok &= r->tgid == 4242 && r->src == DAMON_PERF_SRC_AUX;
}

static unsigned int fix_consume(struct drain_fix *f, struct ring_count *c)
{
	return damon_perf_ring_drain(&f->rings, f->cpu, ring_count_fn, c);
}

static void
spe_drain_should_parse_a_record_across_the_buffer_end(struct kunit *test)
{
	struct ring_count c = { .tgid_ok = true };
	struct drain_fix f;
	u64 pos = 200;
	int i;

	fix_setup(test, &f, 256, 16);
	/* three 50-byte loads from 200: the second one wraps at 256 */
	for (i = 0; i < 3; i++, pos += sizeof(spe_rec_load))
		aux_put(&f, pos, spe_rec_load, sizeof(spe_rec_load));
	WRITE_ONCE(f.up->aux_tail, 200);
	WRITE_ONCE(f.up->aux_head, pos);
	fix_attach(test, &f);

	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_drain(f.event, &f.rings),
			3U);
	KUNIT_EXPECT_EQ(test, f.up->aux_tail, pos);
	KUNIT_EXPECT_EQ(test, f.pc->records, 3ULL);
	KUNIT_EXPECT_EQ(test, f.pc->errors, 0ULL);
	KUNIT_EXPECT_EQ(test, fix_consume(&f, &c), 3U);
	KUNIT_EXPECT_EQ(test, c.writes, 0U);
	fix_teardown(&f);
}

static void spe_drain_should_keep_what_a_full_ring_refused(struct kunit *test)
{
	struct ring_count c = { .tgid_ok = true };
	const unsigned int nr = 20;
	struct drain_fix f;
	unsigned int i;

	fix_setup(test, &f, 1024, 16);
	for (i = 0; i < nr; i++)
		aux_put(&f, i * sizeof(spe_rec_store), spe_rec_store,
			sizeof(spe_rec_store));
	WRITE_ONCE(f.up->aux_head, nr * sizeof(spe_rec_store));
	fix_attach(test, &f);

	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_drain(f.event, &f.rings),
			16U);
	/* the tail stops at the start of the first refused record */
	KUNIT_EXPECT_EQ(test, f.up->aux_tail, 16 * sizeof(spe_rec_store));
	KUNIT_EXPECT_EQ(test, f.pc->refused, 1ULL);
	KUNIT_EXPECT_EQ(test, fix_consume(&f, &c), 16U);
	KUNIT_EXPECT_EQ(test, c.writes, 16U);
	/* records without CONTEXT carry the tgid the event is bound to */
	KUNIT_EXPECT_TRUE(test, c.tgid_ok);

	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_drain(f.event, &f.rings),
			nr - 16);
	KUNIT_EXPECT_EQ(test, f.up->aux_tail, (u64)nr * sizeof(spe_rec_store));
	KUNIT_EXPECT_EQ(test, f.pc->records, (u64)nr);
	KUNIT_EXPECT_EQ(test, f.pc->errors, 0ULL);
	fix_teardown(&f);
}

static void spe_drain_should_wait_for_a_record_being_written(struct kunit *test)
{
	struct drain_fix f;

	fix_setup(test, &f, 256, 16);
	aux_put(&f, 0, spe_rec_store, sizeof(spe_rec_store));
	/* only part of the record is published */
	WRITE_ONCE(f.up->aux_head, sizeof(spe_rec_store) - 3);
	fix_attach(test, &f);
	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_drain(f.event, &f.rings),
			0U);
	KUNIT_EXPECT_EQ(test, f.up->aux_tail, 0ULL);
	WRITE_ONCE(f.up->aux_head, sizeof(spe_rec_store));
	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_drain(f.event, &f.rings),
			1U);
	KUNIT_EXPECT_EQ(test, f.up->aux_tail, (u64)sizeof(spe_rec_store));
	fix_teardown(&f);
}

static void spe_drain_should_see_truncation_in_the_data_ring(struct kunit *test)
{
	struct {
		struct perf_event_header hdr;
		u64 aux_offset, aux_size, flags;
	} rec = {
		.hdr = { .type = PERF_RECORD_AUX, .size = sizeof(rec) },
		.flags = PERF_AUX_FLAG_TRUNCATED,
	};
	const u8 *p = (const u8 *)&rec;
	struct drain_fix f;
	unsigned int i;

	fix_setup(test, &f, 256, 16);
	/* the record wraps around the end of the 256-byte data ring */
	for (i = 0; i < sizeof(rec); i++)
		f.data[(240 + i) & 255] = p[i];
	WRITE_ONCE(f.up->data_tail, 240);
	WRITE_ONCE(f.up->data_head, 240 + sizeof(rec));
	fix_attach(test, &f);
	damon_perf_aux_event_drain(f.event, &f.rings);
	KUNIT_EXPECT_EQ(test, f.pc->restarts, 1ULL);
	KUNIT_EXPECT_EQ(test, f.up->data_tail, (u64)(240 + sizeof(rec)));

	/* the same record without the flag restarts nothing */
	rec.flags = 0;
	for (i = 0; i < sizeof(rec); i++)
		f.data[(240 + sizeof(rec) + i) & 255] = p[i];
	WRITE_ONCE(f.up->data_head, 240 + 2 * sizeof(rec));
	damon_perf_aux_event_drain(f.event, &f.rings);
	KUNIT_EXPECT_EQ(test, f.pc->restarts, 1ULL);
	KUNIT_EXPECT_EQ(test, f.up->data_tail, (u64)(240 + 2 * sizeof(rec)));
	fix_teardown(&f);
}

static void spe_drain_should_skip_overwritten_data(struct kunit *test)
{
	struct drain_fix f;

	fix_setup(test, &f, 256, 16);
	/* a head more than one buffer ahead: the data was overwritten */
	WRITE_ONCE(f.up->aux_head, 1000);
	fix_attach(test, &f);
	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_drain(f.event, &f.rings),
			0U);
	KUNIT_EXPECT_EQ(test, f.up->aux_tail, 1000ULL);
	KUNIT_EXPECT_EQ(test, f.pc->errors, 1ULL);
	fix_teardown(&f);
}

/*
 * A full buffer of valid but never-terminated packets, starting near the
 * end so that it wraps: each drain consumes a bounded share of it, the
 * work (bytes handed to the parser) stays linear in the data, and a few
 * drains consume all of it. Before the resync a drain advanced a byte per
 * pass over the rest of the buffer, and stopped for good at the wrap.
 */
static void
spe_drain_should_consume_unterminated_data_in_linear_work(struct kunit *test)
{
	const unsigned long size = 1UL << 20;	/* 1 MiB, 1/4 of a budget */
	const u64 start = size - 1000;
	unsigned int drains = 0;
	struct drain_fix f;
	u8 *lin;

	fix_setup(test, &f, size, 16);
	lin = vmalloc(size);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, lin);
	fill_unterminated(lin, size);
	aux_put(&f, start, lin, size);
	vfree(lin);
	WRITE_ONCE(f.up->aux_tail, start);
	WRITE_ONCE(f.up->aux_head, start + size);
	fix_attach(test, &f);

	while (READ_ONCE(f.up->aux_tail) != start + size && drains < 8) {
		KUNIT_EXPECT_EQ(test,
				damon_perf_aux_event_drain(f.event, &f.rings),
				0U);
		drains++;
	}
	KUNIT_EXPECT_EQ(test, f.up->aux_tail, start + size);
	/* 1 MiB is a quarter of one drain's budget */
	KUNIT_EXPECT_EQ(test, drains, 1U);
	KUNIT_EXPECT_EQ(test, f.pc->records, 0ULL);
	KUNIT_EXPECT_GE(test, f.pc->overlong, 1ULL);
	/* every byte parsed about once: at most twice, plus one bounce */
	KUNIT_EXPECT_LE(test, f.pc->scanned, 2 * (u64)size + 4096);
	fix_teardown(&f);
}

/* More data than one drain's budget: the drain stops and resumes. */
static void spe_drain_should_bound_its_work_per_drain(struct kunit *test)
{
	const unsigned long size = 8UL << 20;	/* twice the budget */
	unsigned int drains = 0, i;
	struct drain_fix f;
	u8 *lin;

	fix_setup(test, &f, size, 256);
	lin = vmalloc(size);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, lin);
	/*
	 * 64 KiB blocks of unterminated junk, each but the last ended by an
	 * END at a packet boundary and followed by a load record.
	 */
	for (i = 0; i < size >> 16; i++) {
		u8 *blk = lin + ((size_t)i << 16);
		size_t off = 0, end = 1 << 16;

		if (i) {
			memcpy(blk, spe_rec_load, sizeof(spe_rec_load));
			off = sizeof(spe_rec_load);
		}
		if (i + 1 < size >> 16)
			blk[--end] = P_END;
		fill_unterminated(blk + off, end - off);
	}
	aux_put(&f, 0, lin, size);
	vfree(lin);
	WRITE_ONCE(f.up->aux_head, size);
	fix_attach(test, &f);

	while (READ_ONCE(f.up->aux_tail) != size && drains < 8) {
		damon_perf_aux_event_drain(f.event, &f.rings);
		/* no drain parses much more than its budget */
		KUNIT_EXPECT_LE(test, f.pc->scanned,
				(u64)(drains + 1) *
				((4UL << 20) + (16UL << 10)));
		drains++;
		damon_perf_ring_drain(&f.rings, f.cpu, ring_count_fn,
				      &(struct ring_count){ .tgid_ok = true });
	}
	KUNIT_EXPECT_EQ(test, f.up->aux_tail, (u64)size);
	KUNIT_EXPECT_GE(test, drains, 2U);
	KUNIT_EXPECT_LE(test, drains, 3U);
	KUNIT_EXPECT_GE(test, f.pc->budget_stops, 1ULL);
	KUNIT_EXPECT_EQ(test, f.pc->records, (u64)(size >> 16) - 1);
	fix_teardown(&f);
}

static int wait_for_stop(void *unused)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static bool tid_alive(pid_t tid)
{
	bool alive;

	rcu_read_lock();
	alive = pid_task(find_pid_ns(tid, &init_pid_ns), PIDTYPE_PID);
	rcu_read_unlock();
	return alive;
}

static void tgid_fn(const struct damon_perf_report *r, void *arg)
{
	*(pid_t *)arg = r->tgid;
}

/*
 * A CONTEXT id is resolved when a drain parses it: once its thread has
 * exited (its id free, or already another thread's), a later drain must
 * not take the thread group from what an earlier drain resolved.
 */
static void spe_drain_should_resolve_each_tid_anew(struct kunit *test)
{
	struct task_struct *t;
	struct drain_fix f;
	pid_t tid, tgid;
	size_t len;
	int i;

	fix_setup(test, &f, 256, 16);
	t = kthread_run(wait_for_stop, NULL, "damon_perf_spe_tid");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	tid = task_pid_nr(t);
	{
		const u8 rec[] = { P_OP_LD(0), P_VA(0x1000), P_CTX(tid),
				   P_END };

		len = sizeof(rec);
		aux_put(&f, 0, rec, len);
		aux_put(&f, len, rec, len);
	}
	WRITE_ONCE(f.up->aux_head, len);
	fix_attach(test, &f);
	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_drain(f.event, &f.rings),
			1U);
	tgid = -1;
	damon_perf_ring_drain(&f.rings, f.cpu, tgid_fn, &tgid);
	/* a kernel thread leads its own thread group */
	KUNIT_EXPECT_EQ(test, tgid, tid);

	kthread_stop(t);
	/* reaped (unhashed) shortly after it completes the stop */
	for (i = 0; i < 1000 && tid_alive(tid); i++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_FALSE(test, tid_alive(tid));
	WRITE_ONCE(f.up->aux_head, 2 * len);
	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_drain(f.event, &f.rings),
			1U);
	tgid = -1;
	damon_perf_ring_drain(&f.rings, f.cpu, tgid_fn, &tgid);
	/* no thread now: no process's report (the drain counts miss_tgid) */
	KUNIT_EXPECT_EQ(test, tgid, 0);
	fix_teardown(&f);
}

static struct kunit_case spe_drain_cases[] = {
	KUNIT_CASE(spe_drain_should_parse_a_record_across_the_buffer_end),
	KUNIT_CASE(spe_drain_should_keep_what_a_full_ring_refused),
	KUNIT_CASE(spe_drain_should_wait_for_a_record_being_written),
	KUNIT_CASE(spe_drain_should_see_truncation_in_the_data_ring),
	KUNIT_CASE(spe_drain_should_skip_overwritten_data),
	KUNIT_CASE(spe_drain_should_consume_unterminated_data_in_linear_work),
	KUNIT_CASE(spe_drain_should_bound_its_work_per_drain),
	KUNIT_CASE(spe_drain_should_resolve_each_tid_anew),
	{}
};

static struct kunit_suite spe_drain_suite = {
	.name = "damon_perf_spe_drain",
	.test_cases = spe_drain_cases,
};

kunit_test_suites(&spe_parse_suite, &spe_drain_suite);
