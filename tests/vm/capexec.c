// SPDX-License-Identifier: GPL-2.0
/*
 * capexec: run a command as another user that keeps only the given
 * capabilities (busybox has no setpriv).
 *
 *   capexec UID CAP[,CAP...]|none CMD [ARGS...]
 *
 * CAP is a number or one of perfmon, sys_admin, sys_chroot. The capabilities stay
 * permitted, effective, inheritable and ambient, so they survive the exec
 * of a program without file capabilities (damonctl); every other one is
 * gone, from the bounding set too. Exit 127 when the switch fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

static int cap_number(const char *s)
{
	if (!strcmp(s, "perfmon"))
		return CAP_PERFMON;
	if (!strcmp(s, "sys_admin"))
		return CAP_SYS_ADMIN;
	if (!strcmp(s, "sys_chroot"))
		return CAP_SYS_CHROOT;
	return atoi(s);
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3,
						0 };
	struct __user_cap_data_struct data[2];
	unsigned long long keep = 0;
	char *list, *tok;
	uid_t uid;
	int c;

	if (argc < 4) {
		fprintf(stderr,
			"usage: capexec UID CAP[,CAP...]|none CMD [ARGS...]\n");
		return 127;
	}
	uid = (uid_t)atoi(argv[1]);
	list = strdup(argv[2]);
	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
		if (strcmp(tok, "none"))
			keep |= 1ULL << cap_number(tok);
	for (c = 0; c <= 63; c++)
		if (!(keep & (1ULL << c)) &&
		    prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL) {
			perror("capexec: PR_CAPBSET_DROP");
			return 127;
		}
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
		perror("capexec: switching user");
		return 127;
	}
	memset(data, 0, sizeof(data));
	data[0].permitted = data[0].effective = data[0].inheritable =
		(unsigned int)keep;
	data[1].permitted = data[1].effective = data[1].inheritable =
		(unsigned int)(keep >> 32);
	if (syscall(SYS_capset, &hdr, data)) {
		perror("capexec: capset");
		return 127;
	}
	for (c = 0; c <= 63; c++)
		if ((keep & (1ULL << c)) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0)) {
			perror("capexec: PR_CAP_AMBIENT_RAISE");
			return 127;
		}
	execvp(argv[3], argv + 3);
	perror("capexec: exec");
	return 127;
}
