// SPDX-License-Identifier: GPL-2.0
/*
 * Drops as the producer rate rises, natively: the module's own ring code
 * (kmod/ring.c over tests/kshim, through drops_glue.c) between
 * two threads, with this host's real thread wake-up latency. The producer
 * thread is CPU 0 of the rings: it offers reports paced by the clock to
 * the target rate, each through damon_perf_report_access(), and runs the
 * irq_work a watermark crossing queues, which wakes the consumer. The
 * consumer thread is the kdamond: it sleeps until its sample interval ends
 * or the wake arrives, then drains every ring (kmod/kdamond.c's loop; an
 * early wake stays in the same interval).
 *
 * A step is a count of reports (rate x --seconds), offered once with the
 * wake callback (on) and once without (off: only the interval drains).
 * Printed as a reStructuredText table (legend below it). A rate-stepped
 * experiment, not a Google Benchmark; the numbers are measurements, not
 * verdicts, but the accounting is checked: offered == enqueued + dropped, every
 * enqueued report drained in the end; a mismatch exits 1.
 *
 *   build/bench/ring_drops [--rates=10000,50000] [--seconds=1]
 *       [--sample-us=5000] [--ring-size=0] [--pin]
 *
 * Run by `make bench` (scripts/bench.sh, native part).
 */
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "glue.h"

namespace {

using Clock = std::chrono::steady_clock;

int64_t now_ns()
{
	return std::chrono::duration_cast<std::chrono::nanoseconds>(
		       Clock::now().time_since_epoch())
		.count();
}

Clock::time_point at_ns(int64_t ns)
{
	return Clock::time_point(std::chrono::duration_cast<Clock::duration>(
		std::chrono::nanoseconds(ns)));
}

void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

struct Options {
	std::vector<unsigned long> rates{10000,  50000,  100000,
					 200000, 500000, 1000000};
	double seconds = 1.0;
	unsigned int sample_us = 5000; // the default sample interval
	unsigned int ring_size = 0;    // the default ring (256)
	bool pin = false; // producer on host CPU 0, consumer on CPU 1
};

// --pin: the calling thread on host CPU @cpu only.
void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		std::fprintf(stderr, "ring_drops: cannot pin to CPU %d\n", cpu);
		std::exit(2);
	}
}

// The kdamond's wait queue and wake flag (kdamond.c kdamond_wake).
struct Waker {
	std::mutex m;
	std::condition_variable cv;
	bool wake = false;
	bool sleeping = false; // the consumer waits on cv
	bool wake_slept = false;
	bool stop = false;
	int64_t wake_ns = 0;
	int wake_cpu = -1;       // host CPU the wake callback ran on
	unsigned long calls = 0; // wake callbacks (producer's irq_work)
};

// damon_perf_kdamond_wake(): runs in the producer's irq_work.
void wake_cb(void *arg)
{
	auto *w = static_cast<Waker *>(arg);
	const int64_t t = now_ns();
	const int cpu = sched_getcpu();

	{
		std::lock_guard<std::mutex> lk(w->m);
		w->calls++;
		if (!w->wake) {
			w->wake = true;
			w->wake_ns = t;
			w->wake_cpu = cpu;
			w->wake_slept = w->sleeping;
		}
	}
	w->cv.notify_one();
}

struct Consumer {
	std::vector<int64_t> wake_lat;  // wake call to the drain's start
	std::vector<int64_t> tick_late; // interval end to running
	unsigned long wakes_slept = 0;  // wakes that found it asleep
	unsigned long wakes_same = 0;   // of those, run on the waker's CPU
	unsigned long passes = 0;
};

// kdamond_fn() without aggregation: sleep_until, clear the flag, drain.
void consume(bench_drops *d, Waker &w, Consumer &c, int64_t sample_ns, bool pin)
{
	if (pin)
		pin_to(1);
	int64_t next = now_ns() + sample_ns;

	bench_drops_set_cpu(1);
	for (;;) {
		bool stop = false;
		{
			std::unique_lock<std::mutex> lk(w.m);
			w.sleeping = true;
			w.cv.wait_until(lk, at_ns(next),
					[&] { return w.wake || w.stop; });
			w.sleeping = false;
			const int64_t t = now_ns();
			if (w.wake) {
				// a wake that found it draining waits too
				c.wake_lat.push_back(t - w.wake_ns);
				if (w.wake_slept) {
					c.wakes_slept++;
					c.wakes_same +=
						sched_getcpu() == w.wake_cpu;
				}
				w.wake = false;
			} else if (t >= next) {
				c.tick_late.push_back(t - next);
			}
			stop = w.stop;
		}
		if (stop)
			break;
		bench_drops_drain(d);
		c.passes++;
		const int64_t t = now_ns();
		if (t >= next) { // the interval ended; early wakes stay in it
			next += sample_ns;
			if (next <= t)
				next = t + sample_ns;
		}
	}
	// the producer is gone: the last drain looks at every ring
	bench_drops_drain_all(d);
}

struct Producer {
	unsigned long offered = 0, queued = 0, stalls = 0;
	int64_t elapsed_ns = 0;
};

/*
 * Report i is due at start + i / rate. Late by more than kMaxBurst
 * periods (the thread was descheduled: an NMI producer never is), the
 * time beyond is lost rather than caught up in one burst; counted.
 */
constexpr double kMaxBurst = 16;

void produce(bench_drops *d, Producer &p, unsigned long n, double rate,
	     bool pin)
{
	if (pin)
		pin_to(0);
	const double period = 1e9 / rate;
	const auto max_late = static_cast<int64_t>(kMaxBurst * period);
	const int64_t start = now_ns();
	int64_t shift = 0;

	bench_drops_set_cpu(0);
	for (unsigned long i = 0; i < n; i++) {
		const int64_t due =
			start + shift + static_cast<int64_t>(i * period);
		int64_t t;

		while ((t = now_ns()) < due)
			cpu_relax();
		if (t - due > max_late) {
			shift += t - due;
			p.stalls++;
		}
		p.queued += static_cast<unsigned long>(bench_drops_report(d));
		p.offered++;
	}
	p.elapsed_ns = now_ns() - start;
}

struct Row {
	bool wake;
	unsigned long rate;
	Producer p;
	bench_drops_stats st;
	Consumer c;
	unsigned long wake_calls;
};

double pct(std::vector<int64_t> v, double q)
{
	std::sort(v.begin(), v.end());
	auto i = static_cast<size_t>(q * static_cast<double>(v.size() - 1));
	return static_cast<double>(v[i]) / 1000.0;
}

std::string us(const std::vector<int64_t> &v, double q)
{
	if (v.empty())
		return "-";
	char b[32];
	std::snprintf(b, sizeof(b), "%.1f", pct(v, q));
	return b;
}

bool fail(const Row &r, const char *what)
{
	std::fprintf(stderr,
		     "ring_drops: FAIL wake %s rate %lu: %s (offered %lu "
		     "queued %lu enqueue %lu dequeue %lu drained %lu "
		     "overflow %lu busy_drop %lu no_probe %lu occupancy %u "
		     "early_wake %lu wake calls %lu)\n",
		     r.wake ? "on" : "off", r.rate, what, r.p.offered,
		     r.p.queued, r.st.enqueue, r.st.dequeue, r.st.drained,
		     r.st.overflow, r.st.busy_drop, r.st.no_probe,
		     r.st.occupancy, r.st.early_wake, r.wake_calls);
	return false;
}

bool check(const Row &r)
{
	const bench_drops_stats &s = r.st;

	if (r.p.queued != s.enqueue)
		return fail(r, "report_access's true returns != enqueue");
	if (r.p.offered != s.enqueue + s.overflow + s.busy_drop + s.no_probe)
		return fail(r, "offered != enqueued + dropped");
	if (s.busy_drop || s.no_probe)
		return fail(r, "refused other than full");
	if (s.dequeue != s.enqueue || s.drained != s.enqueue || s.occupancy)
		return fail(r, "enqueued reports left undrained");
	if (r.wake_calls != (r.wake ? s.early_wake : 0))
		return fail(r, "wake callbacks != early_wake");
	return true;
}

Row step(const Options &o, unsigned long rate, bool wake)
{
	Row r{};
	Waker w;
	const auto n = static_cast<unsigned long>(static_cast<double>(rate) *
						  o.seconds);

	r.wake = wake;
	r.rate = rate;
	r.c.wake_lat.reserve(n / 64 + 16);
	r.c.tick_late.reserve(
		static_cast<size_t>(o.seconds * 1e6 / o.sample_us) * 2 + 16);
	bench_drops *d = bench_drops_new(o.ring_size, wake ? wake_cb : nullptr,
					 wake ? &w : nullptr);
	std::thread consumer(consume, d, std::ref(w), std::ref(r.c),
			     int64_t(o.sample_us) * 1000, o.pin);
	std::thread producer(produce, d, std::ref(r.p), n,
			     static_cast<double>(rate), o.pin);
	producer.join();
	{
		std::lock_guard<std::mutex> lk(w.m);
		w.stop = true;
	}
	w.cv.notify_one();
	consumer.join();
	bench_drops_read(d, &r.st);
	r.wake_calls = w.calls;
	bench_drops_free(d);
	return r;
}

std::string loadavg()
{
	std::ifstream f("/proc/loadavg");
	std::string a, b, c;

	if (!(f >> a >> b >> c))
		return "?";
	return a + " " + b + " " + c;
}

std::string group(unsigned long v)
{
	std::string s = std::to_string(v);

	for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
		s.insert(static_cast<size_t>(i), ",");
	return s;
}

// One reStructuredText simple table; a header cell per line and column.
void print_table(const std::vector<Row> &rows)
{
	const std::vector<std::vector<std::string>> head = {
		{"wake", "target/s", "achieved/s", "offered", "dropped",
		 "drop %", "early", "wake", "wake", "wake", "wakes", "same",
		 "peak", "tick", "stalls"},
		{"", "per CPU", "", "", "", "", "wakes", "lat med", "lat p99",
		 "lat max", "late", "CPU", "", "late", ""},
		{"", "", "", "", "", "", "", "us", "us", "us", "", "%", "",
		 "p99 us", ""},
	};
	std::vector<std::vector<std::string>> body;

	for (const Row &r : rows) {
		const double achieved = static_cast<double>(r.p.offered) * 1e9 /
					static_cast<double>(r.p.elapsed_ns);
		const double drop =
			100.0 * static_cast<double>(r.st.overflow) /
			static_cast<double>(std::max(1UL, r.p.offered));
		const double same =
			r.c.wakes_slept == 0
				? -1
				: 100.0 * static_cast<double>(r.c.wakes_same) /
					  static_cast<double>(r.c.wakes_slept);
		// the free entries above the watermark last margin ns
		const double margin =
			static_cast<double>(r.st.size - r.st.hiwat) * 1e9 /
			static_cast<double>(r.rate);
		const auto late = std::count_if(
			r.c.wake_lat.begin(), r.c.wake_lat.end(),
			[&](int64_t l) {
				return static_cast<double>(l) > margin;
			});
		char dp[16], sp[16];

		std::snprintf(dp, sizeof(dp), "%.2f", drop);
		std::snprintf(sp, sizeof(sp), "%.0f", same);
		body.push_back(
			{r.wake ? "on" : "off", group(r.rate),
			 group(static_cast<unsigned long>(achieved)),
			 group(r.p.offered), group(r.st.overflow), dp,
			 std::to_string(r.st.early_wake), us(r.c.wake_lat, 0.5),
			 us(r.c.wake_lat, 0.99), us(r.c.wake_lat, 1.0),
			 r.c.wake_lat.empty() ? "-" : std::to_string(late),
			 same < 0 ? "-" : sp, std::to_string(r.st.peak),
			 us(r.c.tick_late, 0.99), std::to_string(r.p.stalls)});
	}
	std::vector<size_t> width(head[0].size(), 0);
	for (const auto *t : {&head, &std::as_const(body)})
		for (const auto &line : *t)
			for (size_t i = 0; i < line.size(); i++)
				width[i] = std::max(width[i], line[i].size());
	std::string rule;
	for (size_t i = 0; i < width.size(); i++)
		rule += (i ? " " : "") + std::string(width[i], '=');
	auto line = [&](const std::vector<std::string> &cells) {
		std::string l;

		for (size_t i = 0; i < cells.size(); i++) {
			std::string c = cells[i];

			if (i + 1 < cells.size())
				c.resize(width[i], ' ');
			l += (i ? " " : "") + c;
		}
		while (!l.empty() && l.back() == ' ')
			l.pop_back();
		std::printf("%s\n", l.c_str());
	};
	std::printf("%s\n", rule.c_str());
	for (const auto &h : head)
		line(h);
	std::printf("%s\n", rule.c_str());
	for (const auto &b : body)
		line(b);
	std::printf("%s\n", rule.c_str());
}

[[noreturn]] void usage(int rc)
{
	std::fprintf(rc ? stderr : stdout,
		     "usage: ring_drops [--rates=R1,R2,...] [--seconds=S] "
		     "[--sample-us=N] [--ring-size=N] [--pin]\n"
		     "  --rates      reports/s per CPU (default "
		     "10000,50000,100000,200000,500000,1000000)\n"
		     "  --seconds    reports per step = rate x S (default 1)\n"
		     "  --sample-us  the consumer's sample interval (default "
		     "5000)\n"
		     "  --ring-size  entries per CPU, power of two 16..65536 "
		     "(default 0: 256)\n"
		     "  --pin        producer on CPU 0, consumer on CPU 1 "
		     "(default: where the scheduler puts them)\n");
	std::exit(rc);
}

bool number(const std::string &s, double lo, double hi, double &v)
{
	char *end = nullptr;

	if (s.empty())
		return false;
	v = std::strtod(s.c_str(), &end);
	return *end == '\0' && v >= lo && v <= hi;
}

[[noreturn]] void bad(const std::string &arg)
{
	std::fprintf(stderr, "ring_drops: bad argument '%s' (--help)\n",
		     arg.c_str());
	std::exit(2);
}

Options parse(int argc, char **argv)
{
	Options o;

	for (int i = 1; i < argc; i++) {
		const std::string a = argv[i];
		const auto eq = a.find('=');
		const std::string key = a.substr(0, eq);
		const std::string val =
			eq == std::string::npos ? "" : a.substr(eq + 1);
		double v = 0;

		if (a == "--help" || a == "-h")
			usage(0);
		if (a == "--pin") {
			o.pin = true;
		} else if (key == "--rates") {
			std::stringstream ss(val);
			std::string t;

			o.rates.clear();
			while (std::getline(ss, t, ','))
				if (number(t, 1, 1e8, v))
					o.rates.push_back(
						static_cast<unsigned long>(v));
				else
					bad(a);
			if (o.rates.empty())
				bad(a);
		} else if (key == "--seconds" && number(val, 0.01, 60, v)) {
			o.seconds = v;
		} else if (key == "--sample-us" && number(val, 100, 1e6, v)) {
			o.sample_us = static_cast<unsigned int>(v);
		} else if (key == "--ring-size" &&
			   number(val, 0, 1u << 30, v) &&
			   v == static_cast<unsigned int>(v) &&
			   (v == 0 || bench_drops_valid_size(
					      static_cast<unsigned int>(v)))) {
			o.ring_size = static_cast<unsigned int>(v);
		} else {
			bad(a);
		}
	}
	return o;
}

} // namespace

int main(int argc, char **argv)
{
	const Options o = parse(argc, argv);
	const std::string load = loadavg();
	std::vector<Row> rows;
	bool ok = true;

	for (unsigned long rate : o.rates)
		for (bool wake : {false, true}) {
			rows.push_back(step(o, rate, wake));
			ok = check(rows.back()) && ok;
		}

	const bench_drops_stats &s0 = rows.front().st;
	std::printf("ring %u entries per CPU, high watermark %u (%u free), "
		    "sample interval %u us, %g s of reports per step\n",
		    s0.size, s0.hiwat, s0.size - s0.hiwat, o.sample_us,
		    o.seconds);
	std::printf("host: %u CPUs, load average %s at start, %s after; "
		    "threads %s\n",
		    std::thread::hardware_concurrency(), load.c_str(),
		    loadavg().c_str(),
		    o.pin ? "pinned (producer CPU 0, consumer CPU 1)"
			  : "not pinned");
	print_table(rows);
	std::printf("wake latency: from the wake callback (the producer's "
		    "irq_work) to the consumer starting its drain; wakes late: "
		    "those longer than the free entries above the watermark "
		    "last at the target rate; same CPU: of the wakes that "
		    "found the consumer asleep, the share it ran on the "
		    "producer's CPU; tick late: its timed sleep's overshoot; "
		    "stalls: producer late by > %g periods (time lost, not "
		    "caught up)\n",
		    kMaxBurst);
	if (!ok) {
		std::fprintf(stderr, "ring_drops: accounting check failed\n");
		return 1;
	}
	return 0;
}
