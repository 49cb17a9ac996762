/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "damon_perf" generic netlink family (netlink.c, netlink_dump.c,
 * netlink_notify.c, netlink_msg.c, netlink_gen.c): registered last at
 * module init, first gone at exit.
 */
#ifndef _DAMON_PERF_NETLINK_H
#define _DAMON_PERF_NETLINK_H

int damon_perf_netlink_init(void);
void damon_perf_netlink_exit(void);

#endif
