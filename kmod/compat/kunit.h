/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit helpers of newer kernels, for the test module (tests/kunit) on the
 * kernels that lack them; compat.h includes this file.
 */
#ifndef _DAMON_PERF_COMPAT_KUNIT_H
#define _DAMON_PERF_COMPAT_KUNIT_H

/*
 * KUNIT_ARRAY_PARAM_DESC (6.3): a parameter generator over a table whose
 * entries name themselves in @desc_member. Callers include <kunit/test.h>.
 */
#ifndef DAMON_PERF_HAVE_KUNIT_ARRAY_PARAM_DESC
#define KUNIT_ARRAY_PARAM_DESC(name, array, desc_member)		\
	static const void *name##_gen_params(const void *prev, char *desc) \
	{								\
		typeof(&(array)[0]) __next = prev ?			\
			((typeof(__next))prev) + 1 : (array);		\
		if (__next - (array) < ARRAY_SIZE((array))) {		\
			strscpy(desc, __next->desc_member,		\
				KUNIT_PARAM_DESC_SIZE);			\
			return __next;					\
		}							\
		return NULL;						\
	}
#endif

#endif /* _DAMON_PERF_COMPAT_KUNIT_H */
