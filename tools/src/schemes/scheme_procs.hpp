// SPDX-License-Identifier: GPL-2.0
// The target processes of `damonctl schemes`: a pidfd per pid (the process
// itself, whatever becomes of its number) and an open /proc/PID/maps per
// pid (bound to the address space it was opened on), so that a target
// that exits, execs or whose number is reused is told apart from the one
// first seen, each event counted and said once (Documentation/schemes.rst,
// "Targets").
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "scheme_engine.hpp"

namespace damonctl {

class Transport;

// The mappings in a /proc/PID/maps text, in address order: the vDSO, vvar,
// vsyscall and PROT_NONE mappings left out; anonymous: no file behind it.
std::vector<Mapping> parse_maps(const std::string &text);

// What became of the targets, since the engine started.
struct TargetEvents {
	uint64_t exits = 0; // targets found gone
	uint64_t execs = 0; // a new program in a target (its new mappings used)
	uint64_t eperm = 0; // targets the engine may not act on
};

class TargetProcs {
public:
	TargetProcs() = default;
	~TargetProcs();
	TargetProcs(const TargetProcs &) = delete;
	TargetProcs &operator=(const TargetProcs &) = delete;

	// The mappings of @pid's current program; throws std::system_error
	// with ESRCH once it exited, EPERM when the engine may not read them.
	std::vector<Mapping> mappings(uint32_t pid);
	// A pidfd of @pid as first seen (its number reused since: -ESRCH),
	// or a negative errno.
	int pidfd(uint32_t pid);
	// Whether the process first seen as @pid still lives.
	bool alive(uint32_t pid);
	// @pid refused an action with EPERM.
	void note_eperm(uint32_t pid);

	const TargetEvents &events() const { return events_; }
	// The messages of the events since the last call (each once per pid).
	std::vector<std::string> take_messages();

private:
	struct Proc {
		int pidfd = -1;
		int maps = -1;
		bool exited = false;
		bool eperm = false;
		bool exec_said = false;
	};
	Proc &proc(uint32_t pid);
	void gone(uint32_t pid, Proc &p);
	void denied(uint32_t pid, Proc &p);
	// Opens @p's maps; false when the process is gone meanwhile.
	bool open_maps(uint32_t pid, Proc &p);

	std::map<uint32_t, Proc> procs_;
	TargetEvents events_;
	std::vector<std::string> messages_;
};

// The system calls, with @procs (kept by the caller) for the targets, and
// the module's LRU_PRIO over @paddr (kept by the caller; none: paddr
// actions fail with EOPNOTSUPP).
std::unique_ptr<SchemeBackend> make_system_backend(TargetProcs &procs,
						   Transport *paddr = nullptr);

} // namespace damonctl
