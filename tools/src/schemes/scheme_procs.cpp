// SPDX-License-Identifier: GPL-2.0
#include "scheme_procs.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <sstream>
#include <system_error>

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

namespace damonctl {

namespace {

// 0 or EPERM: the process lives (EPERM: not ours to signal); ESRCH: gone.
bool pidfd_alive(int pidfd)
{
	return syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0U) == 0 ||
	       errno == EPERM;
}

// The whole of @fd from its start; an empty string when its address
// space is gone (the process exited or exec'ed since it was opened).
bool read_all(int fd, std::string &out)
{
	char buf[16384];

	out.clear();
	if (lseek(fd, 0, SEEK_SET) < 0)
		return false;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		if (n == 0)
			return true;
		out.append(buf, size_t(n));
	}
}

[[noreturn]] void throw_errno(int err)
{
	throw std::system_error(err, std::generic_category());
}

} // namespace

std::vector<Mapping> parse_maps(const std::string &text)
{
	std::istringstream in(text);
	std::vector<Mapping> out;

	for (std::string line; std::getline(in, line);) {
		std::istringstream ls(line);
		std::string range, perms, off, dev, path;
		unsigned long inode = 0;
		ls >> range >> perms >> off >> dev >> inode;
		std::getline(ls >> std::ws, path);
		unsigned long start = 0, end = 0;
		if (std::sscanf(range.c_str(), "%lx-%lx", &start, &end) != 2)
			continue;
		// the kernel's own pages, and PROT_NONE guards
		if (path == "[vdso]" || path == "[vvar]" ||
		    path == "[vsyscall]" || path == "[vvar_vclock]" ||
		    perms.compare(0, 3, "---") == 0)
			continue;
		Mapping m;
		m.start = start;
		m.end = end;
		m.anon = inode == 0 && (path.empty() || path[0] == '[');
		out.push_back(m);
	}
	return out;
}

TargetProcs::~TargetProcs()
{
	for (auto &[pid, p] : procs_) {
		if (p.pidfd >= 0)
			close(p.pidfd);
		if (p.maps >= 0)
			close(p.maps);
	}
}

TargetProcs::Proc &TargetProcs::proc(uint32_t pid)
{
	auto it = procs_.find(pid);

	if (it != procs_.end())
		return it->second;
	Proc &p = procs_[pid];
	p.pidfd = int(syscall(SYS_pidfd_open, pid_t(pid), 0U));
	if (p.pidfd < 0)
		gone(pid, p);
	return p;
}

void TargetProcs::gone(uint32_t pid, Proc &p)
{
	if (p.maps >= 0) {
		close(p.maps);
		p.maps = -1;
	}
	if (p.exited)
		return;
	p.exited = true;
	events_.exits++;
	messages_.push_back(fmt::format(
		"target pid {} exited: its regions fail with ESRCH from now "
		"on, the other targets go on",
		pid));
}

void TargetProcs::denied(uint32_t pid, Proc &p)
{
	if (p.eperm)
		return;
	p.eperm = true;
	events_.eperm++;
	messages_.push_back(fmt::format(
		"target pid {}: no permission to act on it (EPERM: the "
		"engine needs ptrace access to it, and CAP_SYS_NICE to "
		"migrate another user's pages); its pages are counted under "
		"EPERM, the other targets go on",
		pid));
}

bool TargetProcs::open_maps(uint32_t pid, Proc &p)
{
	std::string path = "/proc/" + std::to_string(pid) + "/maps";

	p.maps = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (p.maps < 0) {
		int err = errno;
		if (err == EACCES || err == EPERM) {
			denied(pid, p);
			throw_errno(EPERM);
		}
		gone(pid, p);
		return false;
	}
	// opened by number: still the process of the pidfd, so the maps
	// are its address space's and no other process's
	if (!pidfd_alive(p.pidfd)) {
		gone(pid, p);
		return false;
	}
	return true;
}

std::vector<Mapping> TargetProcs::mappings(uint32_t pid)
{
	Proc &p = proc(pid);
	std::string text;

	if (p.exited)
		throw_errno(ESRCH);
	if (!pidfd_alive(p.pidfd)) {
		gone(pid, p);
		throw_errno(ESRCH);
	}
	if (p.maps < 0 && !open_maps(pid, p))
		throw_errno(ESRCH);
	if (!read_all(p.maps, text) || text.empty()) {
		// the address space it was opened on is gone: a new program,
		// or the process exited (a zombie has none)
		close(p.maps);
		p.maps = -1;
		if (!pidfd_alive(p.pidfd) || !open_maps(pid, p) ||
		    !read_all(p.maps, text) || text.empty()) {
			gone(pid, p);
			throw_errno(ESRCH);
		}
		events_.execs++;
		if (!p.exec_said) {
			p.exec_said = true;
			messages_.push_back(fmt::format(
				"target pid {} runs a new program (exec): its "
				"new mappings are used from now on",
				pid));
		}
	}
	return parse_maps(text);
}

int TargetProcs::pidfd(uint32_t pid)
{
	Proc &p = proc(pid);

	if (p.exited)
		return -ESRCH;
	if (!pidfd_alive(p.pidfd)) {
		gone(pid, p);
		return -ESRCH;
	}
	return p.pidfd;
}

bool TargetProcs::alive(uint32_t pid)
{
	return pidfd(pid) >= 0;
}

void TargetProcs::note_eperm(uint32_t pid)
{
	denied(pid, proc(pid));
}

std::vector<std::string> TargetProcs::take_messages()
{
	std::vector<std::string> out;

	out.swap(messages_);
	return out;
}

} // namespace damonctl
