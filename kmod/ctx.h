/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Monitoring contexts: the lifecycle API (create, configure, start, stop,
 * destroy) that netlink, debugfs and module init call. Every configuration
 * call takes damon_perf_lock (a mutex). The types are in ctx_types.h.
 */
#ifndef _DAMON_PERF_CTX_H
#define _DAMON_PERF_CTX_H

#include <linux/netlink.h>

#include "ctx_types.h"

int damon_perf_ctx_init(void);
void damon_perf_ctx_exit(void);

struct damon_perf_ctx *damon_perf_ctx_new(const char *name, u32 ops,
					  struct netlink_ext_ack *extack);
int damon_perf_ctx_destroy(struct damon_perf_ctx *ctx,
			   struct netlink_ext_ack *extack);
struct damon_perf_ctx *damon_perf_ctx_find(u32 id);
struct damon_perf_ctx *damon_perf_ctx_find_name(const char *name);
struct damon_perf_ctx *damon_perf_ctx_next(u32 after_id);
void damon_perf_owner_get_current(struct damon_perf_owner *o);
void damon_perf_owner_put(struct damon_perf_owner *o);
bool damon_perf_owner_same(const struct damon_perf_owner *a,
			   const struct damon_perf_owner *b);
bool damon_perf_owner_is_current(const struct damon_perf_owner *o);
void damon_perf_attrs_default(struct damon_perf_attrs *attrs);
int damon_perf_ctx_set_attrs(struct damon_perf_ctx *ctx,
			     const struct damon_perf_attrs *attrs,
			     struct netlink_ext_ack *extack);
pid_t damon_perf_tid_vnr(pid_t tid);
struct damon_perf_target *damon_perf_target_new(u32 id);
int damon_perf_target_add_pid(struct damon_perf_ctx *ctx, pid_t pid,
			      bool any_process, struct netlink_ext_ack *extack);
int damon_perf_target_add_range(struct damon_perf_ctx *ctx,
				unsigned long start, unsigned long end,
				struct netlink_ext_ack *extack);
int damon_perf_target_del(struct damon_perf_ctx *ctx, u32 target_id,
			  struct netlink_ext_ack *extack);
int damon_perf_ctx_set_filters(struct damon_perf_ctx *ctx,
			       const struct damon_perf_filter *filters,
			       unsigned int nr, struct netlink_ext_ack *extack);
int damon_perf_ctx_start(struct damon_perf_ctx *ctx,
			 struct netlink_ext_ack *extack);
int damon_perf_ctx_stop(struct damon_perf_ctx *ctx);
bool damon_perf_any_running(void);
int damon_perf_attrs_validate(const struct damon_perf_attrs *attrs,
			      struct netlink_ext_ack *extack);
void damon_perf_ctx_get_attrs(struct damon_perf_ctx *ctx,
			      struct damon_perf_attrs *attrs);
struct damon_perf_target *damon_perf_target_find(struct damon_perf_ctx *ctx,
						 u32 target_id);

#endif /* _DAMON_PERF_CTX_H */
