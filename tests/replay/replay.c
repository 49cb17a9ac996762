// SPDX-License-Identifier: GPL-2.0
/*
 * damon_perf_replay: record a context's report stream as the kdamond
 * drains it, and replay it both ways (core.c) in both access modes (test
 * builds only; tests/vm/kdamond_replay.sh).
 *
 * debugfs damon_perf_replay/:
 *
 * record	write "start N": record up to N reports (and their passes and
 *		regions) of the first context that drains from now on, through
 *		drain.c's test hook; "stop": stop (after the context stopped,
 *		so its last drain is in). Read: "passes P aggregations A
 *		regions G reports R lost L other O".
 * stream	read: the stream, as text; write: a stream in that text,
 *		replacing the recorded one (tests/replay/mkheader.sh turns the
 *		text into the C array KUnit replays). Lines:
 *		  S OPS PID SAMPLE_NS NR_PASSES NR_REGIONS NR_REPORTS
 *		  B IDX USED FREQ SAMPLE_PERIOD WEIGHT        (a probe)
 *		  P SEQ LEN START_NS STALE_BEFORE AGGR NEW    (a pass; NEW: 0
 *		        when it has the regions of the pass before, else
 *		        the number of G lines that follow)
 *		  G START END                                 (a region)
 *		  R CPU TIME_NS ADDR PERIOD PROBE SIZE TGID   (a report of
 *		        the pass above, in drain order)
 * run		read: the replay in presence and count mode, one line each
 *		(counts, both ways' credited reports and digests, mismatches
 *		and, of them, regions)
 *		and the first difference, if any.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "drain.h"
#include "replay.h"

#define NAME	"damon_perf_replay"
/* the largest recording: reports, passes and regions */
#define MAX_REPORTS	BIT(18)

struct rec {
	struct damon_perf_replay_stream st;
	struct damon_perf_replay_pass *passes;
	struct damon_perf_replay_region *regions;
	struct damon_perf_replay_report *reports;
	u32 cap_passes;
	u32 cap_regions;
	u32 cap_reports;
	/* recording */
	bool recording;
	const struct damon_perf_ctx *ctx;
	u64 aggr_start_ns;
	u32 lost;
	u32 other;
	/* parsing: the line being written */
	char line[160];
	size_t len;
	u32 new_regions;
	int parse_err;
};

static struct rec rec;
static DEFINE_MUTEX(rec_mutex);		/* everything but the hook */
static DEFINE_SPINLOCK(rec_lock);	/* the hook against start/stop */
static struct dentry *dir;

static void rec_free(void)
{
	kvfree(rec.passes);
	kvfree(rec.regions);
	kvfree(rec.reports);
	memset(&rec, 0, sizeof(rec));
}

static int rec_alloc(u32 passes, u32 regions, u32 reports)
{
	rec_free();
	rec.passes = kvcalloc(max(passes, 1U), sizeof(*rec.passes),
			      GFP_KERNEL);
	rec.regions = kvcalloc(max(regions, 1U), sizeof(*rec.regions),
			       GFP_KERNEL);
	rec.reports = kvcalloc(max(reports, 1U), sizeof(*rec.reports),
			       GFP_KERNEL);
	if (!rec.passes || !rec.regions || !rec.reports) {
		rec_free();
		return -ENOMEM;
	}
	rec.cap_passes = passes;
	rec.cap_regions = regions;
	rec.cap_reports = reports;
	rec.st.passes = rec.passes;
	rec.st.regions = rec.regions;
	rec.st.reports = rec.reports;
	return 0;
}

/* A new pass of the recorded context: its regions unless unchanged. */
static struct damon_perf_replay_pass *
rec_pass(const struct damon_perf_drain *d)
{
	const struct damon_perf_drain_seg *seg = &d->segs[0];
	struct damon_perf_replay_pass *p, *prev = NULL;
	u64 aggr = READ_ONCE(d->ctx->aggr_start_ns);
	u32 i;

	if (rec.st.nr_passes == rec.cap_passes)
		return NULL;
	p = &rec.passes[rec.st.nr_passes];
	if (rec.st.nr_passes)
		prev = p - 1;
	p->seq = d->seq;
	p->start_ns = d->pass_start_ns;
	p->stale_before = d->stale_before;
	p->len = d->pass_len;
	p->aggr = prev ? prev->aggr + (aggr != rec.aggr_start_ns) : 0;
	rec.aggr_start_ns = aggr;
	p->first_report = rec.st.nr_reports;
	p->nr_reports = 0;
	p->nr_regions = seg->nr;
	if (prev && prev->nr_regions == seg->nr) {
		for (i = 0; i < seg->nr; i++)
			if (rec.regions[prev->first_region + i].start !=
			    d->ents[seg->first + i].start ||
			    rec.regions[prev->first_region + i].end !=
			    d->ents[seg->first + i].end)
				break;
		if (i == seg->nr) {
			p->first_region = prev->first_region;
			return p;
		}
	}
	if (rec.st.nr_regions + seg->nr > rec.cap_regions)
		return NULL;
	p->first_region = rec.st.nr_regions;
	for (i = 0; i < seg->nr; i++) {
		rec.regions[rec.st.nr_regions].start =
			d->ents[seg->first + i].start;
		rec.regions[rec.st.nr_regions++].end =
			d->ents[seg->first + i].end;
	}
	return p;
}

static void rec_hook(const struct damon_perf_drain *d,
		     const struct damon_perf_report *report)
{
	struct damon_perf_replay_report *x;
	struct damon_perf_replay_pass *p = NULL;
	struct damon_perf_ctx *ctx = d->ctx;
	int i;

	spin_lock(&rec_lock);
	if (!rec.recording)
		goto out;
	if (!rec.ctx) {
		rec.ctx = ctx;
		rec.st.ops = ctx->ops;
		rec.st.sample_ns = d->sample_ns;
		if (d->nr_segs)
			rec.st.pid = d->segs[0].t->pid;
		for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
			rec.st.probes[i].used = ctx->probes[i].used;
			rec.st.probes[i].freq = ctx->probes[i].attr.freq;
			rec.st.probes[i].sample_period =
				ctx->probes[i].attr.sample_period;
			rec.st.probes[i].weight = ctx->probes[i].attr.weight;
		}
	}
	/* one context of one live target, without filters */
	if (rec.ctx != ctx || d->nr_segs != 1 || ctx->nr_filters ||
	    d->sample_ns != rec.st.sample_ns) {
		rec.other++;
		goto out;
	}
	if (rec.st.nr_passes)
		p = &rec.passes[rec.st.nr_passes - 1];
	if (!p || p->seq != d->seq) {
		p = rec_pass(d);
		if (!p) {
			rec.lost++;
			goto out;
		}
		rec.st.nr_passes++;
	}
	if (rec.st.nr_reports == rec.cap_reports) {
		rec.lost++;
		goto out;
	}
	x = &rec.reports[rec.st.nr_reports++];
	x->time_ns = report->time_ns;
	x->addr = ctx->ops == DAMON_PERF_OPS_VADDR ? report->vaddr :
		  report->paddr;
	x->period = report->period;
	x->cpu = report->cpu;
	x->tgid = report->tgid;
	x->size = report->size;
	x->probe_idx = report->probe_idx;
	p->nr_reports++;
out:
	spin_unlock(&rec_lock);
}

static void rec_stop(void)
{
	spin_lock(&rec_lock);
	rec.recording = false;
	spin_unlock(&rec_lock);
	RCU_INIT_POINTER(damon_perf_drain_record_hook, NULL);
	synchronize_rcu();
}

static ssize_t record_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos)
{
	char cmd[32];
	u32 n;
	int err = 0;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, buf, count))
		return -EFAULT;
	cmd[count] = '\0';
	mutex_lock(&rec_mutex);
	if (sscanf(cmd, "start %u", &n) == 1 && n && n <= MAX_REPORTS) {
		rec_stop();
		/* a pass and a layout change at most per report */
		err = rec_alloc(n, 64 * 1024, n);
		if (!err) {
			rec.recording = true;
			rcu_assign_pointer(damon_perf_drain_record_hook,
					   rec_hook);
		}
	} else if (!strcmp(strim(cmd), "stop")) {
		rec_stop();
	} else {
		err = -EINVAL;
	}
	mutex_unlock(&rec_mutex);
	return err ?: count;
}

static int record_show(struct seq_file *m, void *v)
{
	mutex_lock(&rec_mutex);
	spin_lock(&rec_lock);
	seq_printf(m, "passes %u aggregations %u regions %u reports %u lost %u other %u\n",
		   rec.st.nr_passes, rec.st.nr_passes ?
		   rec.passes[rec.st.nr_passes - 1].aggr + 1 : 0,
		   rec.st.nr_regions, rec.st.nr_reports, rec.lost, rec.other);
	spin_unlock(&rec_lock);
	mutex_unlock(&rec_mutex);
	return 0;
}

static int record_open(struct inode *inode, struct file *file)
{
	return single_open(file, record_show, NULL);
}

static const struct file_operations record_fops = {
	.owner = THIS_MODULE,
	.open = record_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = record_write,
};

/* The stream as text, one pass (and its regions and reports) per call. */
static void *text_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&rec_mutex);
	if (rec.recording || *pos > rec.st.nr_passes)
		return NULL;
	return pos;
}

static void *text_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return *pos > rec.st.nr_passes ? NULL : pos;
}

static void text_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&rec_mutex);
}

static int text_show(struct seq_file *m, void *v)
{
	const struct damon_perf_replay_stream *st = &rec.st;
	const struct damon_perf_replay_pass *p, *prev;
	const struct damon_perf_replay_report *x;
	loff_t i = *(loff_t *)v;
	u32 k, n;

	if (!i) {
		seq_printf(m, "S %u %d %llu %u %u %u\n", st->ops, st->pid,
			   st->sample_ns, st->nr_passes, st->nr_regions,
			   st->nr_reports);
		for (k = 0; k < DAMON_PERF_MAX_PROBES; k++)
			if (st->probes[k].used)
				seq_printf(m, "B %u %u %u %llu %u\n", k + 1,
					   st->probes[k].used,
					   st->probes[k].freq,
					   st->probes[k].sample_period,
					   st->probes[k].weight);
		return 0;
	}
	p = &st->passes[i - 1];
	prev = i > 1 ? p - 1 : NULL;
	n = prev && prev->first_region == p->first_region ? 0 : p->nr_regions;
	seq_printf(m, "P %llu %u %llu %llu %u %u\n", p->seq, p->len,
		   p->start_ns, p->stale_before, p->aggr, n);
	for (k = 0; k < n; k++)
		seq_printf(m, "G %lu %lu\n",
			   st->regions[p->first_region + k].start,
			   st->regions[p->first_region + k].end);
	for (k = 0; k < p->nr_reports; k++) {
		x = &st->reports[p->first_report + k];
		seq_printf(m, "R %d %llu %lu %llu %u %u %d\n", x->cpu,
			   x->time_ns, x->addr, x->period, x->probe_idx,
			   x->size, x->tgid);
	}
	return 0;
}

static const struct seq_operations text_sops = {
	.start = text_start,
	.next = text_next,
	.stop = text_stop,
	.show = text_show,
};

/* One line of a stream written in: 0, or -EINVAL. */
static int parse_line(const char *l)
{
	struct damon_perf_replay_stream *st = &rec.st;
	struct damon_perf_replay_pass *p;
	struct damon_perf_replay_report *x;
	u32 a, b, c, d, e, f;
	u64 u, v, w;
	unsigned long s, t;
	int cpu, tgid;

	switch (l[0]) {
	case '\0':
		return 0;
	case 'S':
		if (sscanf(l, "S %u %d %llu %u %u %u", &a, &cpu, &u, &b, &c,
			   &d) != 6 || b > MAX_REPORTS || c > 64 * 1024 ||
		    d > MAX_REPORTS || rec_alloc(b, c, d))
			return -EINVAL;
		st->ops = a;
		st->pid = cpu;
		st->sample_ns = u;
		return 0;
	case 'B':
		if (!rec.passes || sscanf(l, "B %u %u %u %llu %u", &a, &b, &c,
					  &u, &d) != 5 ||
		    !a || a > DAMON_PERF_MAX_PROBES)
			return -EINVAL;
		st->probes[a - 1].used = b;
		st->probes[a - 1].freq = c;
		st->probes[a - 1].sample_period = u;
		st->probes[a - 1].weight = d;
		return 0;
	case 'P':
		if (!rec.passes || rec.new_regions ||
		    st->nr_passes == rec.cap_passes ||
		    sscanf(l, "P %llu %u %llu %llu %u %u", &u, &a, &v, &w, &b,
			   &c) != 6 || (!c && !st->nr_passes) ||
		    c > rec.cap_regions - st->nr_regions)
			return -EINVAL;
		p = &rec.passes[st->nr_passes++];
		p->seq = u;
		p->len = a;
		p->start_ns = v;
		p->stale_before = w;
		p->aggr = b;
		p->first_report = st->nr_reports;
		if (c) {
			p->first_region = st->nr_regions;
			p->nr_regions = c;
		} else {
			p->first_region = p[-1].first_region;
			p->nr_regions = p[-1].nr_regions;
		}
		rec.new_regions = c;
		return 0;
	case 'G':
		if (!rec.new_regions || sscanf(l, "G %lu %lu", &s, &t) != 2)
			return -EINVAL;
		rec.regions[st->nr_regions].start = s;
		rec.regions[st->nr_regions++].end = t;
		rec.new_regions--;
		return 0;
	case 'R':
		if (!st->nr_passes || rec.new_regions ||
		    st->nr_reports == rec.cap_reports ||
		    sscanf(l, "R %d %llu %lu %llu %u %u %d", &cpu, &u, &s, &v,
			   &e, &f, &tgid) != 7 || e > U8_MAX)
			return -EINVAL;
		x = &rec.reports[st->nr_reports++];
		x->cpu = cpu;
		x->time_ns = u;
		x->addr = s;
		x->period = v;
		x->probe_idx = e;
		x->size = f;
		x->tgid = tgid;
		rec.passes[st->nr_passes - 1].nr_reports++;
		return 0;
	}
	return -EINVAL;
}

static ssize_t text_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	size_t i;
	char ch;

	mutex_lock(&rec_mutex);
	if (rec.recording) {
		mutex_unlock(&rec_mutex);
		return -EBUSY;
	}
	for (i = 0; i < count && !rec.parse_err; i++) {
		if (get_user(ch, buf + i)) {
			rec.parse_err = -EFAULT;
			break;
		}
		if (ch != '\n') {
			if (rec.len == sizeof(rec.line) - 1)
				rec.parse_err = -EINVAL;
			else
				rec.line[rec.len++] = ch;
			continue;
		}
		rec.line[rec.len] = '\0';
		rec.len = 0;
		rec.parse_err = parse_line(rec.line);
	}
	mutex_unlock(&rec_mutex);
	return rec.parse_err ?: count;
}

static int text_open(struct inode *inode, struct file *file)
{
	if (file->f_mode & FMODE_WRITE) {
		mutex_lock(&rec_mutex);
		if (rec.recording) {
			mutex_unlock(&rec_mutex);
			return -EBUSY;
		}
		rec_free();
		mutex_unlock(&rec_mutex);
		return 0;
	}
	return seq_open(file, &text_sops);
}

static int text_release(struct inode *inode, struct file *file)
{
	if (!(file->f_mode & FMODE_WRITE))
		return seq_release(inode, file);
	mutex_lock(&rec_mutex);
	if (!rec.parse_err && (rec.len || rec.new_regions))
		rec.parse_err = -EINVAL;
	if (rec.parse_err)
		pr_warn("stream: parse error %d at pass %u report %u\n",
			rec.parse_err, rec.st.nr_passes, rec.st.nr_reports);
	mutex_unlock(&rec_mutex);
	return 0;
}

static const struct file_operations text_fops = {
	.owner = THIS_MODULE,
	.open = text_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = text_release,
	.write = text_write,
};

static int run_show(struct seq_file *m, void *v)
{
	static const u32 modes[] = { DAMON_PERF_MODE_PRESENCE,
				     DAMON_PERF_MODE_COUNT };
	struct damon_perf_replay_result *res;
	int i, err = 0;

	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	mutex_lock(&rec_mutex);
	if (rec.recording || rec.parse_err || !rec.st.nr_passes)
		err = -EINVAL;
	for (i = 0; i < ARRAY_SIZE(modes) && !err; i++) {
		err = damon_perf_replay_run(&rec.st, modes[i], res);
		if (err)
			break;
		seq_printf(m, "%s aggregations %u passes %u intervals %llu reports %u late_first %u late %u straddling %u credited %u %u stale %u %u nr_accesses %llu hits %llu samples %llu %llu multi %u max %u digest %016llx %016llx mismatches %u regions %u\n",
			   modes[i] == DAMON_PERF_MODE_COUNT ? "count" :
			   "presence", res->aggrs, res->passes,
			   res->intervals, res->reports, res->late_first,
			   res->late, res->straddling, res->credited[0],
			   res->credited[1], res->stale[0], res->stale[1],
			   res->nr_accesses, res->hits, res->samples[0],
			   res->samples[1], res->multi, res->max_nr_accesses,
			   res->digest[0], res->digest[1], res->mismatches,
			   res->region_mismatches);
		if (res->mismatches)
			seq_printf(m, "first difference: %s\n", res->first);
	}
	mutex_unlock(&rec_mutex);
	kfree(res);
	return err;
}

static int run_open(struct inode *inode, struct file *file)
{
	return single_open(file, run_show, NULL);
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.open = run_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init replay_init(void)
{
	dir = debugfs_create_dir(NAME, NULL);
	debugfs_create_file("record", 0600, dir, NULL, &record_fops);
	debugfs_create_file("stream", 0600, dir, NULL, &text_fops);
	debugfs_create_file("run", 0400, dir, NULL, &run_fops);
	return 0;
}

static void __exit replay_exit(void)
{
	debugfs_remove(dir);
	mutex_lock(&rec_mutex);
	rec_stop();
	rec_free();
	mutex_unlock(&rec_mutex);
}

module_init(replay_init);
module_exit(replay_exit);
MODULE_DESCRIPTION("damon_perf: record a report stream, replay it both ways");
MODULE_LICENSE("GPL");
DAMON_PERF_IMPORT_KUNIT_NS();
