/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A self-NMI for the tests (x86 local APIC): send one NMI to this CPU and
 * wait for the test's own NMI handler to claim it. Shared by the nmitest
 * module (tests/nmi/nmitest.c) and the KUnit NMI suite
 * (tests/kunit/nmi_kunit.c).
 *
 * The handler, registered with register_nmi_handler(NMI_LOCAL, ...),
 * starts with selfnmi_claim() (return NMI_DONE when it fails: the NMI is
 * someone else's) and ends with selfnmi_done(), which ends the wait of
 * selfnmi_send().
 */
#ifndef _DAMON_PERF_SELFNMI_H
#define _DAMON_PERF_SELFNMI_H

#include <linux/atomic.h>
#include <linux/hardirq.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/time64.h>
#include <asm/apic.h>
#include <asm/nmi.h>

/* How long selfnmi_send() waits for the handler: 1 s, for TCG. */
#define SELFNMI_WAIT_NS	(1000ULL * NSEC_PER_MSEC)

/**
 * struct selfnmi - The self-NMI state of one test.
 * @armed:	1: the next NMI on @cpu is the test's.
 * @cpu:	the CPU it was sent to (-1: none yet).
 * @delivered:	NMIs the handler claimed and finished.
 * @not_nmi:	claims outside NMI context (a bug of the test setup).
 */
struct selfnmi {
	atomic_t armed;
	int cpu;
	int delivered;
	int not_nmi;
};

/**
 * selfnmi_claim() - Is this NMI the one the test sent?
 * @s:	the test's state.
 *
 * Claims only an NMI the test sent, on the CPU it sent it to, once.
 *
 * Context: the test's NMI handler, first.
 * Return: true if the handler is to run the test's work.
 */
static inline bool selfnmi_claim(struct selfnmi *s)
{
	if (READ_ONCE(s->cpu) != smp_processor_id() ||
	    atomic_cmpxchg(&s->armed, 1, 0) != 1)
		return false;
	if (!in_nmi())
		s->not_nmi++;
	return true;
}

/**
 * selfnmi_done() - The handler finished the test's work.
 * @s:	the test's state.
 *
 * Context: the test's NMI handler, last, after a successful claim.
 */
static inline void selfnmi_done(struct selfnmi *s)
{
	WRITE_ONCE(s->delivered, s->delivered + 1);
}

/**
 * selfnmi_send() - Send one self-NMI and wait for the handler.
 * @s:	the test's state.
 *
 * Context: preemption disabled (the NMI must reach this CPU).
 * Return: true if the handler finished within SELFNMI_WAIT_NS; false if
 * not, and the NMI is disarmed.
 */
static inline bool selfnmi_send(struct selfnmi *s)
{
	int before = READ_ONCE(s->delivered);
	u64 t0;

	WRITE_ONCE(s->cpu, smp_processor_id());
	atomic_set(&s->armed, 1);
	apic->send_IPI_self(NMI_VECTOR);
	t0 = local_clock();
	while (READ_ONCE(s->delivered) == before) {
		if (local_clock() - t0 > SELFNMI_WAIT_NS) {
			atomic_set(&s->armed, 0);
			return false;
		}
		cpu_relax();
	}
	return true;
}

#endif /* _DAMON_PERF_SELFNMI_H */
