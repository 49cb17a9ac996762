// SPDX-License-Identifier: GPL-2.0
// migrate_hot and migrate_cold through move_pages(2), over a fake of the
// kernel's do_pages_move() (mm/migrate.c, 6.1 to 7.2): pages present or
// not, pinned pages whose migration fails (O_DIRECT, VFIO: the call
// returns how many pages it did not migrate and leaves their statuses
// unwritten), pages off the LRU (-EBUSY) and transparent huge pages (one
// folio for many addresses: its first address isolates it, the next one
// finds it isolated, -EBUSY, and flushes the batch).
#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheme.hpp"
#include "scheme_file.hpp"
#include "scheme_engine.hpp"
#include "scheme_migrate.hpp"

using namespace damonctl;

namespace {

const uint64_t PAGE = 4096;
const uint64_t HPAGE = 512 * PAGE;
const uint64_t B = 0x40000000; // 2 MiB aligned

class FakeMm : public PageMover {
public:
	struct Folio {
		int node = 1;
		uint64_t size = PAGE;
		bool pinned = false;  // isolated, but its migration fails
		bool off_lru = false; // cannot be isolated: -EBUSY
	};
	// folios by their first address; an address not in one is absent
	std::map<uint64_t, Folio> folios;
	bool gone = false;
	size_t calls = 0;      // move_pages() calls
	size_t queried = 0;    // pages given to a query
	size_t moved = 0;      // pages given to a move
	uint64_t migrated = 0; // bytes migrated (pgmigrate_success)

	void add(uint64_t start, uint64_t end, int node)
	{
		for (uint64_t a = start; a < end; a += PAGE)
			folios[a] = {node, PAGE, false, false};
	}
	void add_huge(uint64_t start, int node)
	{
		folios[start] = {node, HPAGE, false, false};
	}
	// the folio of @a, or null
	Folio *folio(uint64_t a, uint64_t *head = nullptr)
	{
		auto it = folios.upper_bound(a);
		if (it == folios.begin())
			return nullptr;
		--it;
		if (a >= it->first + it->second.size)
			return nullptr;
		if (head)
			*head = it->first;
		return &it->second;
	}
	int node_of(uint64_t a)
	{
		Folio *f = folio(a);
		return f ? f->node : -1;
	}
	uint64_t pages_on(int node, uint64_t start, uint64_t end)
	{
		uint64_t n = 0;
		for (uint64_t a = start; a < end; a += PAGE)
			n += node_of(a) == node;
		return n;
	}

	bool alive() override { return !gone; }

	long move_pages(unsigned long count, void *const *pages,
			const int *nodes, int *status, int flags) override
	{
		(void)flags;
		calls++;
		if (!nodes) {
			queried += count;
			for (unsigned long i = 0; i < count; i++) {
				Folio *f = folio(addr(pages[i]));
				status[i] = f ? f->node : -ENOENT;
			}
			return 0;
		}
		moved += count;
		return do_pages_move(count, pages, nodes, status);
	}

private:
	std::vector<uint64_t> list_; // isolated folios (heads)

	static uint64_t addr(void *p)
	{
		return uint64_t(reinterpret_cast<uintptr_t>(p));
	}

	// add_folio_for_migration(): 1 queued, 0 already on @node, or -errno
	int add(uint64_t a, int node)
	{
		uint64_t head = 0;
		Folio *f = folio(a, &head);
		if (!f)
			return -ENOENT;
		if (f->node == node)
			return 0;
		for (uint64_t h : list_)
			if (h == head)
				return -EBUSY; // isolated already
		if (f->off_lru)
			return -EBUSY;
		list_.push_back(head);
		return 1;
	}

	// do_move_pages_to_node(): the number of folios not migrated
	long migrate(int node)
	{
		long failed = 0;
		for (uint64_t h : list_) {
			Folio &f = folios[h];
			if (f.pinned) {
				failed++;
				continue;
			}
			f.node = node;
			migrated += f.size;
		}
		list_.clear();
		return failed;
	}

	// move_pages_and_store_status()
	long flush(int node, unsigned long start, unsigned long i,
		   unsigned long nr, int *status)
	{
		if (list_.empty())
			return 0;
		long err = migrate(node);
		if (err > 0)
			return err + long(nr - i);
		for (unsigned long k = start; k < i; k++)
			status[k] = node;
		return 0;
	}

	// do_pages_move() of mm/migrate.c
	long do_pages_move(unsigned long nr, void *const *pages,
			   const int *nodes, int *status)
	{
		const int NONE = -1;
		int current = NONE;
		unsigned long start = 0, i;
		long err = 0;

		for (i = 0; i < nr; i++) {
			int node = nodes[i];
			if (current == NONE) {
				current = node;
				start = i;
			} else if (node != current) {
				err = flush(current, start, i, nr, status);
				if (err)
					return err;
				start = i;
				current = node;
			}
			err = add(addr(pages[i]), current);
			if (err > 0)
				continue;
			status[i] = err ? int(err) : current;
			err = flush(current, start, i, nr, status);
			if (err) {
				if (err > 0)
					err--;
				return err;
			}
			current = NONE;
		}
		return flush(current, start, i, nr, status);
	}
};

} // namespace

TEST(SchemeMigrate, MovesWhatIsOffTheNode)
{
	FakeMm mm;
	mm.add(B, B + 8 * PAGE, 1);
	mm.folios[B + 2 * PAGE].node = 0; // already there
	mm.folios.erase(B + 5 * PAGE);    // never touched

	ApplyResult r = migrate_range(mm, 0, B, B + 8 * PAGE);
	EXPECT_EQ(r.sz_applied, 6 * PAGE);
	EXPECT_TRUE(r.failed.empty());
	EXPECT_EQ(mm.pages_on(0, B, B + 8 * PAGE), 7u);
	EXPECT_EQ(mm.migrated, 6 * PAGE);
}

// A pinned page: the call returns 1 (pages not migrated) and writes no
// status of its batch; statuses that started at 0, node 0, counted every
// page of the batch as moved to node 0.
TEST(SchemeMigrate, PartialMoveCountsOnlyWhatMoved)
{
	FakeMm mm;
	mm.add(B, B + 8 * PAGE, 1);
	mm.folios[B + 3 * PAGE].pinned = true;

	ApplyResult r = migrate_range(mm, 0, B, B + 8 * PAGE);
	EXPECT_EQ(mm.pages_on(0, B, B + 8 * PAGE), 7u);
	EXPECT_EQ(r.sz_applied, 7 * PAGE);
	EXPECT_EQ(r.failed, (std::map<int, uint64_t>{{EBUSY, 1}}));
}

// A failed batch ends the call: the pages after it are not tried (their
// statuses unwritten, counted in the return); they are moved by another
// call, the pinned page counted failed once.
TEST(SchemeMigrate, PagesAfterAFailedBatchAreMovedToo)
{
	FakeMm mm;
	mm.add(B, B + 16 * PAGE, 1);
	mm.folios[B + PAGE].pinned = true;
	// off the LRU, -EBUSY: it flushes the batch before it, whose
	// migration fails, and the call returns
	mm.folios[B + 4 * PAGE].off_lru = true;

	ApplyResult r = migrate_range(mm, 0, B, B + 16 * PAGE);
	EXPECT_EQ(mm.pages_on(0, B, B + 16 * PAGE), 14u);
	EXPECT_EQ(r.sz_applied, 14 * PAGE);
	EXPECT_EQ(r.failed, (std::map<int, uint64_t>{{EBUSY, 2}}));
}

// Every page pinned: nothing counted as moved, each page failed once.
TEST(SchemeMigrate, NothingMovedNothingApplied)
{
	FakeMm mm;
	mm.add(B, B + 4 * PAGE, 1);
	for (auto &[a, f] : mm.folios)
		f.pinned = true;

	ApplyResult r = migrate_range(mm, 0, B, B + 4 * PAGE);
	EXPECT_EQ(r.sz_applied, 0u);
	EXPECT_EQ(r.failed, (std::map<int, uint64_t>{{EBUSY, 4}}));
	EXPECT_EQ(mm.pages_on(0, B, B + 4 * PAGE), 0u);
}

TEST(SchemeMigrate, TargetGoneDuringTheCall)
{
	FakeMm mm;
	mm.add(B, B + 4 * PAGE, 1);
	mm.gone = true;

	ApplyResult r = migrate_range(mm, 0, B, B + 4 * PAGE);
	EXPECT_EQ(r.sz_applied, 0u);
	EXPECT_EQ(r.failed, (std::map<int, uint64_t>{{ESRCH, 4}}));
}

// A transparent huge page: its first address isolates the folio, the
// second finds it isolated (-EBUSY) and the folio moves whole; the other
// 510 are on the node by then. Every page moved, none failed: not one
// spurious EBUSY per huge page with sz_applied a page short.
TEST(SchemeMigrate, HugePageMovesWholeWithoutSpuriousEbusy)
{
	FakeMm mm;
	mm.add_huge(B, 1);
	mm.add_huge(B + HPAGE, 1);

	ApplyResult r = migrate_range(mm, 0, B, B + 2 * HPAGE);
	EXPECT_EQ(mm.pages_on(0, B, B + 2 * HPAGE), 1024u);
	EXPECT_EQ(mm.migrated, 2 * HPAGE);
	EXPECT_EQ(r.sz_applied, 2 * HPAGE);
	EXPECT_TRUE(r.failed.empty()) << r.failed.begin()->first;
}

// A page off the LRU stays -EBUSY: failed once, not counted as moved.
TEST(SchemeMigrate, OffLruPageFailsWithEbusy)
{
	FakeMm mm;
	mm.add(B, B + 4 * PAGE, 1);
	mm.folios[B + 2 * PAGE].off_lru = true;

	ApplyResult r = migrate_range(mm, 0, B, B + 4 * PAGE);
	EXPECT_EQ(r.sz_applied, 3 * PAGE);
	EXPECT_EQ(r.failed, (std::map<int, uint64_t>{{EBUSY, 1}}));
}

namespace {

const uint32_t PID = 100;

// The engine's backend over FakeMm: migrations through migrate_range(),
// as the system's backend does with move_pages(2).
class MmBackend : public SchemeBackend {
public:
	FakeMm mm;
	size_t applies = 0;

	std::vector<Mapping> mappings(uint32_t pid) override
	{
		if (pid != PID)
			return {};
		return {{B, B + 64 * HPAGE, true}};
	}
	bool reports_placement() const override { return true; }
	ApplyResult apply(uint32_t pid, SchemeAction action, int node,
			  uint64_t start, uint64_t end) override
	{
		EXPECT_EQ(pid, PID);
		EXPECT_TRUE(action == SchemeAction::migrate_hot ||
			    action == SchemeAction::migrate_cold);
		applies++;
		return migrate_range(mm, node, start, end);
	}
	uint32_t free_mem_permil() override { return 500; }
	uint64_t now_ns() override { return 0; }
};

SchemeEngine promote(MmBackend &b, const std::string &quota = "")
{
	return SchemeEngine(
		parse_schemes(nlohmann::json::parse(
			R"({"schemes": [{"action": "migrate_hot", "node": 0,
			    "pattern": {"nr_accesses": {"min": 1}})" +
			quota + "}]}")),
		b);
}

// aggregation @n (0.5 s apart) of pid PID with one hot region [@s, @e)
Aggregation hot(uint64_t n, uint64_t s, uint64_t e)
{
	Aggregation a;
	Target t;
	Region r;

	t.id = 1;
	t.pid = PID;
	a.targets.push_back(t);
	a.ctx_id = 1;
	a.aggr_us = 500000;
	a.sample_us = 5000;
	a.time_ns = n * 500000000;
	r.target_id = 1;
	r.start = s;
	r.end = e;
	r.nr_accesses = 3;
	a.regions.push_back(r);
	a.nr_regions = 1;
	return a;
}

} // namespace

// A hot range moved to node 0 is not asked about again for PLACED_TRUST
// aggregations: in a steady state the engine queried every matched page
// at every aggregation (8.3 % of a CPU under TCG for nothing to move).
// What moves away meanwhile (NUMA balancing, reclaim) is back within
// PLACED_TRUST aggregations.
TEST(SchemePlaced, RangeFoundOnTheNodeIsNotAskedAgainForAWhile)
{
	MmBackend b;
	const uint64_t T = SchemeEngine::PLACED_TRUST;
	b.mm.add(B, B + 512 * PAGE, 1);
	SchemeEngine e = promote(b);

	e.apply(hot(0, B, B + 512 * PAGE));
	EXPECT_EQ(b.mm.pages_on(0, B, B + 512 * PAGE), 512u);
	EXPECT_EQ(b.mm.queried, 512u);
	for (uint64_t n = 1; n < T; n++)
		e.apply(hot(n, B, B + 512 * PAGE));
	EXPECT_EQ(b.mm.queried, 512u); // trusted: no query, no call
	EXPECT_EQ(b.applies, 1u);
	// moved away meanwhile, found at the next query
	b.mm.folios[B + 7 * PAGE].node = 1;
	e.apply(hot(T, B, B + 512 * PAGE));
	EXPECT_EQ(b.mm.queried, 1024u);
	EXPECT_EQ(b.mm.node_of(B + 7 * PAGE), 0);
	EXPECT_EQ(e.stats(0).sz_applied, 513 * PAGE);
	// 3 T aggregations, 4 queries in all (at 0, T, 2 T and 3 T)
	for (uint64_t n = T + 1; n <= 3 * T; n++)
		e.apply(hot(n, B, B + 512 * PAGE));
	EXPECT_EQ(b.mm.queried, 4 * 512u);
	EXPECT_EQ(e.stats(0).sz_tried, (3 * T + 1) * 512 * PAGE);
}

// Only a range wholly on the node is trusted: a pinned page (its
// migration fails) or a page not present keeps its range asked about at
// every aggregation; the range beside it, found placed, is not.
TEST(SchemePlaced, FailedOrAbsentPagesAreAskedAgain)
{
	MmBackend b;
	b.mm.add(B, B + 16 * PAGE, 1);
	b.mm.folios[B + 3 * PAGE].pinned = true;
	b.mm.folios.erase(B + 12 * PAGE);
	b.mm.add(B + 64 * PAGE, B + 80 * PAGE, 1);
	SchemeEngine e = promote(b);
	Aggregation a = hot(0, B, B + 16 * PAGE);
	Region r2 = a.regions[0];
	r2.start = B + 64 * PAGE;
	r2.end = B + 80 * PAGE;
	a.regions.push_back(r2);

	for (uint64_t n = 0; n < 4; n++) {
		a.time_ns = n * 500000000;
		e.apply(a);
	}
	// [B, B + 16 pages) at each of the 4, the other once
	EXPECT_EQ(b.applies, 4u + 1u);
	EXPECT_EQ(b.mm.pages_on(0, B + 64 * PAGE, B + 80 * PAGE), 16u);
	EXPECT_EQ(e.stats(0).failed.at(EBUSY), 4u);
}

// The quota pays for what was moved, not for what was on the node
// already (DAMOS charges every byte of a region it tries): with 1 MiB a
// window, an 8 MiB hot range of which the first 7 MiB is on node 0 has
// its last MiB moved in the first window, not in the eighth.
TEST(SchemePlaced, QuotaChargesOnlyWhatWasOffTheNode)
{
	MmBackend b;
	const uint64_t MiB = 256 * PAGE;
	b.mm.add(B, B + 7 * MiB, 0);
	b.mm.add(B + 7 * MiB, B + 8 * MiB, 1);
	SchemeEngine e = promote(
		b, R"(, "quota": {"bytes": "1M", "reset_interval_ms": 1000})");

	e.apply(hot(0, B, B + 8 * MiB));
	EXPECT_EQ(b.mm.pages_on(0, B, B + 8 * MiB), 8 * 256u);
	EXPECT_EQ(e.stats(0).sz_applied, MiB);
}
