// SPDX-License-Identifier: GPL-2.0
/*
 * nlattack: attack the damon_perf generic netlink family with requests
 * generated from its own policies, which it reads from the kernel at run
 * time (CTRL_CMD_GETPOLICY of nlctrl: every command's do and dump policy,
 * every attribute's type, range, length and nested policy).
 *
 *   nlattack policy               print the policies as read
 *   nlattack table                the same, one line per command and attribute
 *   nlattack sweep                boundary sweep (below)
 *   nlattack fuzz COUNT [SEED]    structure-aware fuzzer (below)
 *   nlattack inject PID           fault injection (below)
 *   nlattack replyfail PID        a PROBE_ADD whose reply cannot be sent
 *
 * Both fork two "faulter" children that keep taking user page faults
 * (mmap, touch, madvise(MADV_DONTNEED), again), the targets of the
 * contexts they build, so samples flow while they run.
 *
 * sweep: every numeric attribute of every command (top level and nested)
 * at 0, 1, its policy minimum and maximum, maximum + 1, 2^32 - 1, 2^63 - 1,
 * 2^63 and 2^64 - 1 (values wider than the attribute go out at 8 bytes),
 * inside an otherwise valid request against a context with a page-fault
 * probe on a faulter. Each reply must be success or an error with an
 * extack message. After a success that changed a context, the context must
 * work: it starts (or a refused start says why) and publishes an
 * aggregation while samples flow; intervals swept beyond a few seconds are
 * tuned back while it runs first, which a live kdamond must take.
 *
 * fuzz: COUNT requests, each a valid message for a random command (values
 * from the policy ranges, pointed at the contexts, targets and probes that
 * exist) that is then mutated with some probability: attributes dropped,
 * duplicated, given wrong lengths or types, out-of-range or boundary
 * values, unknown types, wrong NLA_F_NESTED flags, nests nested too deep,
 * lengths past their parent, truncated messages, the dump flag on doit
 * commands, unknown commands, a non-zero reserved header. Every reply must
 * be success or an error with an extack message (genetlink itself answers
 * an unknown command with a bare EOPNOTSUPP and a message shorter than its
 * header with a bare EINVAL: those are counted apart). Every successful
 * request is applied to a model; at the end CTX_GET must read back exactly
 * the model: contexts, names, ops, states, attributes, targets, probes and
 * filters. The socket is closed and reopened now and then (subscriptions
 * and attachments go with it).
 *
 * inject: builds context "inj" on process PID step by step (creation,
 * target, probe, filters, attributes with a new ring size, start) and fails
 * the 1st, 2nd, ... fault site (slab or page allocation) the kernel passes
 * while handling each step's request, until the request passes fewer sites
 * (/proc/thread-self/fail-nth: task-local, failslab and fail_page_alloc
 * alike). A failed request must leave nothing built and a retry must
 * succeed; a request that absorbed the failure must have built its part.
 *
 * Prints "nlattack: ..." lines; exit 0 when every check held, 1 otherwise.
 *
 * Files, one static binary (scripts/initramfs.sh builds all of them):
 *   main.c        the modes
 *   common.h      what the files share
 *   netlink.c     the socket, messages and attributes built, a request sent
 *                 and its replies read, attributes parsed
 *   policy.c      the family and its policies (policy, table)
 *   ctx.c         the faulters and the context helpers every mode uses
 *   sweep.c       the boundary sweep
 *   fuzz_model.c  the fuzzer's model of the contexts and its comparison
 *                 with what the kernel reads back
 *   fuzz.c        the fuzzer's generation and its run
 *   inject.c      fault injection and replyfail
 */
#include "common.h"

int main(int argc, char **argv)
{
	struct nl nl;
	int ret = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr,
			"usage: nlattack policy | table | sweep | fuzz COUNT [SEED]\n");
		return 2;
	}
	nl_open(&nl);
	load_policies(&nl);
	if (!strcmp(argv[1], "policy")) {
		print_policies();
		return 0;
	}
	if (!strcmp(argv[1], "table")) {
		print_table();
		return 0;
	}
	if (!strcmp(argv[1], "inject") && argc >= 3)
		return do_inject(&nl, (pid_t)atoi(argv[2])) || failures ? 1 : 0;
	if (!strcmp(argv[1], "replyfail") && argc >= 3)
		return do_replyfail(&nl, (pid_t)atoi(argv[2])) || failures ? 1 :
									     0;
	if (!strcmp(argv[1], "sweep")) {
		start_faulters();
		ret = do_sweep(&nl);
	} else if (!strcmp(argv[1], "fuzz") && argc >= 3) {
		uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) :
					   (uint64_t)time(NULL);

		fault_pause_us =
			20000; /* targets more than sample sources here */
		start_faulters();
		if (getenv("NLATTACK_MUTATE"))
			mutate_pct = atoi(getenv("NLATTACK_MUTATE"));
		ret = do_fuzz(&nl, strtoul(argv[2], NULL, 0), seed);
	} else {
		fprintf(stderr,
			"usage: nlattack policy | table | sweep | fuzz COUNT [SEED]\n");
		ret = 2;
	}
	stop_faulters();
	if (failures)
		printf("nlattack: %d failures\n", failures);
	return ret ? ret : failures ? 1 : 0;
}
