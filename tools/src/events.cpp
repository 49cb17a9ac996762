// SPDX-License-Identifier: GPL-2.0
#include "events.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <linux/perf_event.h>

#include "errors.hpp"

namespace fs = std::filesystem;

namespace damonctl {

namespace {

const char *const DEVICES = "/bus/event_source/devices/";

std::string trim(std::string s)
{
	auto issp = [](unsigned char c) { return std::isspace(c); };
	s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), issp));
	s.erase(std::find_if_not(s.rbegin(), s.rend(), issp).base(), s.end());
	return s;
}

std::vector<std::string> split(const std::string &s, char sep)
{
	std::vector<std::string> out;
	std::string cur;
	std::istringstream in(s);

	while (std::getline(in, cur, sep))
		out.push_back(cur);
	if (!s.empty() && s.back() == sep)
		out.emplace_back();
	return out;
}

std::optional<std::string> read_file(const fs::path &path)
{
	std::ifstream in(path);

	if (!in)
		return std::nullopt;
	std::ostringstream ss;
	ss << in.rdbuf();
	return trim(ss.str());
}

// Decimal or 0x-hex, the whole string, fits in 64 bits.
std::optional<uint64_t> parse_number(const std::string &s)
{
	if (s.empty() || s[0] == '-' || s[0] == '+')
		return std::nullopt;
	errno = 0;
	char *end = nullptr;
	unsigned long long v = std::strtoull(s.c_str(), &end, 0);
	if (errno || *end)
		return std::nullopt;
	return v;
}

struct Generic {
	const char *name;
	uint32_t type;
	uint64_t config;
};

const Generic GENERIC[] = {
	{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-references", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_CACHE_REFERENCES},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
	{"branch-instructions", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
	{"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
	{"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"context-switches", PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	{"alignment-faults", PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_ALIGNMENT_FAULTS},
	{"emulation-faults", PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_EMULATION_FAULTS},
	{"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY},
};

void apply_modifiers(const std::string &event, const std::string &mods,
		     ResolvedEvent &ev)
{
	int p = 0;

	for (char c : mods) {
		switch (c) {
		case 'p':
			p++;
			break;
		case 'P':
			p = 3; // the most precise the PMU supports
			break;
		case 'u':
			ev.exclude_kernel = true;
			ev.exclude_hv = true;
			break;
		default:
			throw UsageError("event '" + event +
					 "': unknown modifier '" +
					 std::string(1, c) +
					 "' (supported: p, pp, ppp, P, u)");
		}
	}
	if (p > 3)
		throw UsageError("event '" + event +
				 "': at most three 'p' modifiers");
	ev.precise_ip = uint8_t(p);
}

uint64_t &field_ref(ResolvedEvent &ev, const std::string &field)
{
	if (field == "config")
		return ev.config;
	if (field == "config1")
		return ev.config1;
	if (field == "config2")
		return ev.config2;
	throw UsageError("format field '" + field +
			 "' is not config, config1 or config2");
}

// Scatter @value over the bits of @fmt, lowest range first, as perf does.
void apply_format(const std::string &event, const std::string &term,
		  const FormatField &fmt, uint64_t value, ResolvedEvent &ev)
{
	uint64_t &dst = field_ref(ev, fmt.field);
	uint64_t v = value;

	for (auto [lo, hi] : fmt.bits) {
		int n = hi - lo + 1;
		uint64_t mask = n >= 64 ? ~0ULL : ((1ULL << n) - 1);

		dst &= ~(mask << lo);
		dst |= (v & mask) << lo;
		v = n >= 64 ? 0 : v >> n;
	}
	if (v)
		throw UsageError("event '" + event + "': value " +
				 std::to_string(value) + " of term '" + term +
				 "' does not fit in " +
				 std::to_string(fmt.width()) + " bits (" +
				 fmt.spec() + ")");
}

void parse_terms(const std::string &event, const std::string &terms,
		 std::vector<std::pair<std::string, std::string>> &out)
{
	for (auto &raw : split(terms, ',')) {
		std::string t = trim(raw);
		if (t.empty())
			continue;
		auto eq = t.find('=');
		if (eq == std::string::npos)
			out.emplace_back(t, "");
		else
			out.emplace_back(trim(t.substr(0, eq)),
					 trim(t.substr(eq + 1)));
		if (out.back().first.empty())
			throw UsageError("event '" + event +
					 "': empty term name in '" + t + "'");
	}
}

ResolvedEvent resolve_pmu_event(const std::string &event,
				const std::string &pmu_name,
				const std::string &terms,
				const std::string &mods,
				const std::string &root)
{
	Pmu pmu = load_pmu(root, pmu_name);
	ResolvedEvent ev;
	std::vector<std::pair<std::string, std::string>> given, expanded;

	ev.pmu = pmu.name;
	ev.type = pmu.type;
	parse_terms(event, terms, given);
	// Aliases expand in place; later terms override earlier ones.
	for (auto &[name, value] : given) {
		auto alias = pmu.aliases.find(name);
		if (value.empty() && alias != pmu.aliases.end() &&
		    !pmu.formats.count(name)) {
			parse_terms(event, alias->second, expanded);
			continue;
		}
		expanded.emplace_back(name, value);
	}
	for (auto &[name, value_str] : expanded) {
		uint64_t value = 1;

		if (!value_str.empty()) {
			auto v = parse_number(value_str);
			if (!v)
				throw UsageError("event '" + event +
						 "': term '" + name +
						 "' has a bad value '" +
						 value_str + "'");
			value = *v;
		}
		if (name == "period") {
			ev.sample_period = value;
			continue;
		}
		if (name == "freq") {
			ev.sample_freq = value;
			continue;
		}
		if (name == "config" || name == "config1" ||
		    name == "config2") {
			field_ref(ev, name) = value;
			continue;
		}
		if (name == "name")
			continue;
		auto fmt = pmu.formats.find(name);
		if (fmt == pmu.formats.end()) {
			std::string known;
			for (auto &f : pmu.formats)
				known += (known.empty() ? "" : ", ") + f.first;
			for (auto &a : pmu.aliases)
				known += (known.empty() ? "" : ", ") + a.first;
			throw UsageError(
				"event '" + event + "': unknown term '" + name +
				"' for PMU " + pmu.name +
				(known.empty() ? ""
					       : " (known: " + known + ")"));
		}
		apply_format(event, name, fmt->second, value, ev);
	}
	apply_modifiers(event, mods, ev);
	return ev;
}

} // namespace

int FormatField::width() const
{
	int w = 0;

	for (auto [lo, hi] : bits)
		w += hi - lo + 1;
	return w;
}

std::string FormatField::spec() const
{
	std::string s = field + ":";

	for (size_t i = 0; i < bits.size(); i++) {
		if (i)
			s += ",";
		s += std::to_string(bits[i].first);
		if (bits[i].second != bits[i].first)
			s += "-" + std::to_string(bits[i].second);
	}
	return s;
}

std::string sysfs_root()
{
	const char *env = std::getenv("DAMONCTL_SYSFS_ROOT");

	return env && *env ? env : "/sys";
}

FormatField parse_format(const std::string &spec_in)
{
	std::string spec = trim(spec_in);
	auto colon = spec.find(':');
	FormatField f;

	if (colon == std::string::npos || colon == 0)
		throw UsageError("bad format '" + spec + "'");
	f.field = spec.substr(0, colon);
	if (f.field != "config" && f.field != "config1" && f.field != "config2")
		throw UsageError("bad format '" + spec +
				 "': field is not config, config1 or config2");
	for (auto &range : split(spec.substr(colon + 1), ',')) {
		auto dash = range.find('-');
		auto lo = parse_number(trim(range.substr(0, dash)));
		auto hi = dash == std::string::npos
				  ? lo
				  : parse_number(trim(range.substr(dash + 1)));
		if (!lo || !hi || *lo > *hi || *hi > 63)
			throw UsageError("bad format '" + spec +
					 "': bit range '" + range + "'");
		f.bits.emplace_back(int(*lo), int(*hi));
	}
	if (f.bits.empty())
		throw UsageError("bad format '" + spec + "': no bits");
	return f;
}

std::vector<std::string> list_pmus(const std::string &root)
{
	std::vector<std::string> names;
	std::error_code ec;

	for (auto &e : fs::directory_iterator(root + DEVICES, ec))
		if (fs::exists(e.path() / "type"))
			names.push_back(e.path().filename().string());
	std::sort(names.begin(), names.end());
	return names;
}

Pmu load_pmu(const std::string &root, const std::string &name)
{
	fs::path dir = fs::path(root + DEVICES) / name;
	Pmu pmu;
	std::error_code ec;

	if (name.empty() || name.find('/') != std::string::npos ||
	    name == "." || name == "..")
		throw UsageError("bad PMU name '" + name + "'");
	auto type = read_file(dir / "type");
	if (!type) {
		std::string known;
		for (auto &n : list_pmus(root))
			known += (known.empty() ? "" : ", ") + n;
		throw UsageError("unknown PMU '" + name + "' (no " +
				 (dir / "type").string() + "; known: " +
				 (known.empty() ? "none" : known) + ")");
	}
	auto t = parse_number(*type);
	if (!t || *t > UINT32_MAX)
		throw UsageError("PMU '" + name + "': bad type '" + *type +
				 "'");
	pmu.name = name;
	pmu.type = uint32_t(*t);
	for (auto &e : fs::directory_iterator(dir / "format", ec)) {
		auto content = read_file(e.path());
		if (content)
			pmu.formats[e.path().filename().string()] =
				parse_format(*content);
	}
	for (auto &e : fs::directory_iterator(dir / "events", ec)) {
		std::string n = e.path().filename().string();
		auto dot = n.rfind('.');
		if (dot != std::string::npos) {
			std::string suffix = n.substr(dot + 1);
			if (suffix == "scale" || suffix == "unit" ||
			    suffix == "per-pkg" || suffix == "snapshot")
				continue;
		}
		auto content = read_file(e.path());
		if (content)
			pmu.aliases[n] = *content;
	}
	return pmu;
}

ResolvedEvent resolve_event(const std::string &event_in,
			    const std::string &root)
{
	std::string event = trim(event_in);

	if (event.empty())
		throw UsageError("empty event string");
	auto slash = event.find('/');
	if (slash != std::string::npos) {
		auto slash2 = event.find('/', slash + 1);
		if (slash == 0 || slash2 == std::string::npos)
			throw UsageError("event '" + event +
					 "': expected PMU/terms/[modifiers]");
		std::string mods = event.substr(slash2 + 1);
		if (!mods.empty() && mods[0] == ':')
			mods.erase(0, 1);
		return resolve_pmu_event(
			event, event.substr(0, slash),
			event.substr(slash + 1, slash2 - slash - 1), mods,
			root);
	}

	ResolvedEvent ev;
	std::string name = event, mods;
	auto colon = event.find(':');
	if (colon != std::string::npos) {
		name = event.substr(0, colon);
		mods = event.substr(colon + 1);
	}
	bool found = false;
	for (const auto &g : GENERIC) {
		if (name == g.name) {
			ev.pmu = g.type == PERF_TYPE_SOFTWARE ? "software"
							      : "hardware";
			ev.type = g.type;
			ev.config = g.config;
			found = true;
			break;
		}
	}
	if (!found && name.size() > 1 && name[0] == 'r') {
		auto v = parse_number("0x" + name.substr(1));
		if (v) {
			ev.pmu = "raw";
			ev.type = PERF_TYPE_RAW;
			ev.config = *v;
			found = true;
		}
	}
	if (!found)
		throw UsageError("unknown event '" + event +
				 "' (use PMU/terms/ or a generic name such "
				 "as page-faults, cpu-clock, cycles)");
	apply_modifiers(event, mods, ev);
	return ev;
}

} // namespace damonctl
