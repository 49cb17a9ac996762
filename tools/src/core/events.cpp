// SPDX-License-Identifier: GPL-2.0
#include "events.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <strings.h>

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

bool is_name_start(char c)
{
	return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool is_name_char(char c)
{
	return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
	       c == '-' || c == '.' || c == ':';
}

// perf's name_minus, without the glob characters: a term name or a
// string value.
bool is_name(const std::string &s)
{
	if (s.empty() || !is_name_start(s[0]))
		return false;
	return std::all_of(s.begin(), s.end(), is_name_char);
}

bool all_hex(const std::string &s)
{
	return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
		return std::isxdigit(static_cast<unsigned char>(c));
	});
}

// perf's number tokens: [0-9]+ is decimal (a leading 0 does not make it
// octal), 0x[0-9a-fA-F]+ is hex (0X is not), and it must fit in 64 bits.
std::optional<uint64_t> perf_number(const std::string &s)
{
	int base = 10;
	std::string digits = s;

	if (s.size() > 2 && s[0] == '0' && s[1] == 'x') {
		base = 16;
		digits = s.substr(2);
		if (!all_hex(digits))
			return std::nullopt;
	} else if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) {
			   return std::isdigit(static_cast<unsigned char>(c));
		   })) {
		return std::nullopt;
	}
	errno = 0;
	unsigned long long v = std::strtoull(digits.c_str(), nullptr, base);
	if (errno)
		return std::nullopt;
	return v;
}

std::string in_event(const std::string &event)
{
	return "event '" + event + "': ";
}

// perf 6.1's modifiers (get_event_modifier): u and k set exclude_* the
// way perf does; p, pp, ppp and P set the precision. The others ask for
// things a damon_perf probe does not have and are refused by name.
void apply_modifiers(const std::string &event, const std::string &mods,
		     ResolvedEvent &ev)
{
	static const std::string PERF_ONLY = "hGHISDeWb";
	bool exclude = false, eu = false, ek = false, eh = false;
	bool pmax = false;
	int p = 0;

	for (size_t i = 0; i < mods.size(); i++) {
		char c = mods[i];
		if (c != 'p' && mods.find(c, i + 1) != std::string::npos)
			throw UsageError(in_event(event) + "modifier '" +
					 std::string(1, c) +
					 "' given twice (perf refuses it too)");
		switch (c) {
		case 'u':
		case 'k':
			// the first of u, k excludes every mode; each then
			// lets its own mode back in
			if (!exclude)
				exclude = eu = ek = eh = true;
			(c == 'u' ? eu : ek) = false;
			break;
		case 'p':
			p++;
			break;
		case 'P':
			pmax = true;
			break;
		default:
			if (PERF_ONLY.find(c) != std::string::npos)
				throw UsageError(
					in_event(event) + "perf modifier '" +
					std::string(1, c) +
					"' is not supported by damon_perf "
					"probes (supported: u, k, p, pp, ppp, "
					"P)");
			throw UsageError(in_event(event) +
					 "unknown modifier '" +
					 std::string(1, c) +
					 "' (supported: u, k, p, pp, ppp, P)");
		}
	}
	if (p > 3)
		throw UsageError(in_event(event) +
				 "at most three 'p' modifiers");
	if (eu && ek)
		throw UsageError(in_event(event) +
				 "excludes both user and kernel samples");
	ev.exclude_user = eu;
	ev.exclude_kernel = ek;
	ev.exclude_hv = eh;
	// P: the most precise the PMU supports; the kernel lowers it
	ev.precise_ip = uint8_t(pmax ? 3 : p);
}

void check_modifier_chars(const std::string &event, const std::string &mods)
{
	for (char c : mods)
		if (!std::isalpha(static_cast<unsigned char>(c)))
			throw UsageError(
				in_event(event) + "bad modifier '" + mods +
				"' (after PMU/terms/ modifiers follow the "
				"slash directly, as in cpu/event=0x3c/pp; "
				"after a name they follow a colon, as in "
				"cycles:pp)");
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

// Scatter @value over the bits of @fmt, lowest bit first, as perf does.
// The term's bits are cleared first: a later term replaces an earlier one
// (perf 6.1 ORs them).
void apply_format(const std::string &event, const std::string &term,
		  const FormatField &fmt, uint64_t value, ResolvedEvent &ev)
{
	uint64_t &dst = field_ref(ev, fmt.field);
	uint64_t v = value;
	auto bits = fmt.bits;

	std::sort(bits.begin(), bits.end());
	for (auto [lo, hi] : bits) {
		int n = hi - lo + 1;
		uint64_t mask = n >= 64 ? ~0ULL : ((1ULL << n) - 1);

		dst &= ~(mask << lo);
		dst |= (v & mask) << lo;
		v = n >= 64 ? 0 : v >> n;
	}
	if (v)
		throw UsageError(in_event(event) + "value " +
				 std::to_string(value) + " of term '" + term +
				 "' does not fit in " +
				 std::to_string(fmt.width()) + " bits (" +
				 fmt.spec() + ")");
}

struct Term {
	std::string name;
	std::optional<std::string> str; // a name as the value
	std::optional<uint64_t> num;    // a number as the value
	bool no_value = false;          // a bare name: value 1
};

// perf 6.1's term list (event_config): term[,term]..., each term NAME,
// NAME=NUMBER, NAME=NAME or rHEX. Spaces around a term are ignored, as
// perf's lexer drops them.
std::vector<Term> parse_terms(const std::string &event,
			      const std::string &terms)
{
	std::vector<Term> out;

	if (trim(terms).empty())
		return out;
	for (auto &raw : split(terms, ',')) {
		std::string t = trim(raw);
		Term term;

		if (t.empty())
			throw UsageError(in_event(event) +
					 "empty term (',,' or a ',' at either "
					 "end of the term list)");
		if (t[0] == '@')
			throw UsageError(in_event(event) +
					 "driver configuration term '" + t +
					 "' is for perf's AUX tracing drivers; "
					 "damon_perf probes do not take it");
		auto eq = t.find('=');
		std::string name = trim(t.substr(0, eq));
		if (name.find('[') != std::string::npos)
			throw UsageError(in_event(event) + "array term '" +
					 name + "' is not supported");
		if (eq == std::string::npos && name.size() > 1 &&
		    name[0] == 'r') {
			// rNNN and r0xNNN: a raw config value
			std::string hex = name.substr(1);
			if (hex.size() > 2 && hex[0] == '0' && hex[1] == 'x')
				hex = hex.substr(2);
			if (all_hex(hex)) {
				auto v = perf_number("0x" + hex);
				if (!v)
					throw UsageError(
						in_event(event) + "raw term '" +
						name +
						"' does not fit in 64 bits");
				term.name = "config";
				term.num = *v;
				out.push_back(term);
				continue;
			}
		}
		if (!is_name(name))
			throw UsageError(in_event(event) + "bad term name '" +
					 name + "' in '" + t + "'");
		term.name = name;
		if (eq == std::string::npos) {
			term.no_value = true;
			term.num = 1;
		} else {
			std::string value = trim(t.substr(eq + 1));
			if (auto v = perf_number(value))
				term.num = *v;
			else if (is_name(value))
				term.str = value;
			else
				throw UsageError(in_event(event) + "term '" +
						 name + "' has a bad value '" +
						 value +
						 "' (numbers are decimal or "
						 "0x-prefixed hex)");
		}
		out.push_back(term);
	}
	return out;
}

// perf's own terms that do not map to a format file. Those damon_perf
// uses: config*, period, freq; name and metric-id are labels. The others
// configure perf's own record or stat session, and are refused.
enum class Builtin { none, config, period, freq, label, unsupported };

Builtin builtin(const std::string &name)
{
	if (name == "config" || name == "config1" || name == "config2")
		return Builtin::config;
	if (name == "period")
		return Builtin::period;
	if (name == "freq")
		return Builtin::freq;
	if (name == "name" || name == "metric-id")
		return Builtin::label;
	static const char *const PERF_ONLY[] = {
		"branch_type",     "time",         "call-graph", "stack-size",
		"max-stack",       "nr",           "inherit",    "no-inherit",
		"overwrite",       "no-overwrite", "percore",    "aux-output",
		"aux-sample-size",
	};
	for (const char *n : PERF_ONLY)
		if (name == n)
			return Builtin::unsupported;
	return Builtin::none;
}

uint64_t num_value(const std::string &event, const Term &t)
{
	if (!t.num)
		throw UsageError(in_event(event) + "term '" + t.name +
				 "' has a bad value '" + *t.str +
				 "' (expected a number)");
	return *t.num;
}

// The builtin terms; returns false for a term of the PMU's formats.
bool apply_builtin(const std::string &event, const Term &t, ResolvedEvent &ev)
{
	switch (builtin(t.name)) {
	case Builtin::none:
		return false;
	case Builtin::config:
		if (t.no_value)
			throw UsageError(in_event(event) + "term '" + t.name +
					 "' needs a value");
		field_ref(ev, t.name) = num_value(event, t);
		return true;
	case Builtin::period:
	case Builtin::freq: {
		if (t.no_value)
			throw UsageError(in_event(event) + "term '" + t.name +
					 "' needs a value");
		uint64_t v = num_value(event, t);
		if (!v)
			throw UsageError(in_event(event) + "term '" + t.name +
					 "' must be at least 1");
		(t.name == "period" ? ev.sample_period : ev.sample_freq) = v;
		return true;
	}
	case Builtin::label:
		if (!t.str)
			throw UsageError(in_event(event) + "term '" + t.name +
					 "' takes a name, as in name=loads");
		if (t.name == "name")
			ev.name = *t.str;
		return true;
	case Builtin::unsupported:
		throw UsageError(in_event(event) + "term '" + t.name +
				 "' configures perf's own session; "
				 "damon_perf probes do not take it (they "
				 "report data addresses only)");
	}
	return false;
}

const std::string *find_alias(const Pmu &pmu, const std::string &name)
{
	for (const auto &[alias, terms] : pmu.aliases)
		if (strcasecmp(alias.c_str(), name.c_str()) == 0)
			return &terms;
	return nullptr;
}

std::string known_terms(const Pmu &pmu)
{
	std::string known;

	for (auto &f : pmu.formats)
		known += (known.empty() ? "" : ", ") + f.first;
	for (auto &a : pmu.aliases)
		known += (known.empty() ? "" : ", ") + a.first;
	return known;
}

ResolvedEvent resolve_on_pmu(const std::string &event, const Pmu &pmu,
			     const std::vector<Term> &given,
			     const std::string &mods)
{
	ResolvedEvent ev;
	std::vector<Term> expanded;

	ev.pmu = pmu.name;
	ev.type = pmu.type;
	// A bare name that is no format term, or event=NAME, names an event
	// of the PMU's events/ directory (case-insensitive, as in perf): its
	// terms replace it in place. Later terms override earlier ones.
	for (const auto &t : given) {
		const std::string *alias = nullptr;
		if (builtin(t.name) == Builtin::none) {
			if (t.num && *t.num == 1 && !pmu.formats.count(t.name))
				alias = find_alias(pmu, t.name);
			else if (t.str && t.name == "event")
				alias = find_alias(pmu, *t.str);
		}
		if (!alias) {
			expanded.push_back(t);
			continue;
		}
		for (auto &at :
		     parse_terms(pmu.name + "/" + t.name + "/", *alias))
			expanded.push_back(at);
	}
	// config, config1 and config2 are set first and format terms go on
	// top of them, as in perf.
	for (const auto &t : expanded)
		if (builtin(t.name) == Builtin::config)
			apply_builtin(event, t, ev);
	for (const auto &t : expanded) {
		if (builtin(t.name) == Builtin::config ||
		    apply_builtin(event, t, ev))
			continue;
		auto fmt = pmu.formats.find(t.name);
		if (fmt == pmu.formats.end()) {
			std::string known = known_terms(pmu);
			throw UsageError(in_event(event) + "unknown term '" +
					 t.name + "' for PMU " + pmu.name +
					 (known.empty()
						  ? ""
						  : " (known: " + known + ")"));
		}
		if (t.no_value && fmt->second.width() > 1)
			throw UsageError(
				in_event(event) + "term '" + t.name +
				"' needs a value (" + fmt->second.spec() +
				"): a term without one is 1, which perf "
				"too gives only to a one-bit field; write " +
				t.name + "=N");
		apply_format(event, t.name, fmt->second, num_value(event, t),
			     ev);
	}
	if (ev.sample_period && ev.sample_freq)
		throw UsageError(in_event(event) +
				 "give period or freq, not both");
	apply_modifiers(event, mods, ev);
	return ev;
}

struct Generic {
	const char *name;
	uint32_t type;
	uint64_t config;
};

const Generic GENERIC[] = {
	{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"stalled-cycles-frontend", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{"idle-cycles-frontend", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{"stalled-cycles-backend", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{"idle-cycles-backend", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
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
	{"cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES},
};

const Generic *find_generic(const std::string &name)
{
	for (const auto &g : GENERIC)
		if (name == g.name)
			return &g;
	return nullptr;
}

// perf's top-level rNNN (hex digits, no 0x).
std::optional<uint64_t> raw_event(const std::string &name)
{
	if (name.size() < 2 || name[0] != 'r' || !all_hex(name.substr(1)))
		return std::nullopt;
	return perf_number("0x" + name.substr(1));
}

// A generic or raw event, with builtin terms only.
ResolvedEvent resolve_plain(const std::string &event, const Generic *g,
			    uint64_t raw, const std::vector<Term> &terms,
			    const std::string &mods)
{
	ResolvedEvent ev;

	if (g) {
		ev.pmu =
			g->type == PERF_TYPE_SOFTWARE ? "software" : "hardware";
		ev.type = g->type;
		ev.config = g->config;
	} else {
		ev.pmu = "raw";
		ev.type = PERF_TYPE_RAW;
		ev.config = raw;
	}
	for (const auto &t : terms)
		if (!apply_builtin(event, t, ev))
			throw UsageError(in_event(event) + "unknown term '" +
					 t.name + "' for a " + ev.pmu +
					 " event (it takes config, config1, "
					 "config2, period, freq, name)");
	if (ev.sample_period && ev.sample_freq)
		throw UsageError(in_event(event) +
				 "give period or freq, not both");
	apply_modifiers(event, mods, ev);
	return ev;
}

// perf_pmu__valid_suffix: NAME matches PMU NAME, NAME_<digits> and
// NAME<digits>; an "uncore_" prefix may be left out.
bool prefix_match(const std::string &pmu, const std::string &name)
{
	std::string p = pmu;

	if (p.rfind("uncore_", 0) == 0 && name.rfind("uncore_", 0) != 0)
		p = p.substr(7);
	if (p.rfind(name, 0) != 0)
		return false;
	std::string rest = p.substr(name.size());
	if (rest.empty())
		return true;
	if (rest[0] == '_')
		rest = rest.substr(1);
	return !rest.empty() &&
	       std::all_of(rest.begin(), rest.end(), [](char c) {
		       return std::isdigit(static_cast<unsigned char>(c));
	       });
}

std::string join(const std::vector<std::string> &v)
{
	std::string s;

	for (const auto &x : v)
		s += (s.empty() ? "" : ", ") + x;
	return s;
}

// The one PMU whose events/ has @alias; throws when none or several do.
std::optional<Pmu> pmu_with_alias(const std::string &event,
				  const std::string &alias,
				  const std::string &root)
{
	std::vector<Pmu> found;
	std::vector<std::string> names;

	for (const auto &n : list_pmus(root)) {
		Pmu pmu;
		try {
			pmu = load_pmu(root, n);
		} catch (const UsageError &) {
			continue; // a PMU we cannot read has no alias for us
		}
		if (find_alias(pmu, alias)) {
			names.push_back(n);
			found.push_back(std::move(pmu));
		}
	}
	if (found.size() > 1)
		throw UsageError(
			in_event(event) + "event '" + alias + "' exists on " +
			std::to_string(found.size()) + " PMUs (" + join(names) +
			"); perf opens one event on each, a damon_perf "
			"probe takes one: write PMU/" +
			alias + "/");
	if (found.empty())
		return std::nullopt;
	return found.front();
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
		// NAME/terms/modifiers: NAME is a generic event, a raw rNNN,
		// a PMU (exact, else by prefix) or an event of one PMU's
		// events/ directory
		auto slash2 = event.find('/', slash + 1);
		if (slash == 0 || slash2 == std::string::npos)
			throw UsageError(in_event(event) +
					 "expected PMU/terms/[modifiers]");
		std::string name = event.substr(0, slash);
		std::string mods = event.substr(slash2 + 1);
		if (name.find('.') != std::string::npos)
			throw UsageError("bad PMU name '" + name + "'");
		check_modifier_chars(event, mods);
		auto terms = parse_terms(
			event, event.substr(slash + 1, slash2 - slash - 1));
		if (const Generic *g = find_generic(name))
			return resolve_plain(event, g, 0, terms, mods);
		if (auto raw = raw_event(name))
			return resolve_plain(event, nullptr, *raw, terms, mods);
		std::error_code ec;
		if (fs::exists(fs::path(root + DEVICES) / name / "type", ec))
			return resolve_on_pmu(event, load_pmu(root, name),
					      terms, mods);
		if (auto pmu = pmu_with_alias(event, name, root)) {
			Term t;
			t.name = name;
			t.num = 1;
			t.no_value = true;
			terms.insert(terms.begin(), t);
			return resolve_on_pmu(event, *pmu, terms, mods);
		}
		std::vector<std::string> matches;
		for (const auto &n : list_pmus(root))
			if (prefix_match(n, name))
				matches.push_back(n);
		if (matches.size() > 1)
			throw UsageError(
				in_event(event) + "PMU '" + name +
				"' matches " + std::to_string(matches.size()) +
				" PMUs (" + join(matches) +
				"); perf opens one event on each, a damon_perf "
				"probe takes one: name it");
		// load_pmu names the known PMUs when there is no match
		return resolve_on_pmu(
			event,
			load_pmu(root, matches.empty() ? name : matches[0]),
			terms, mods);
	}

	// NAME[:modifiers]: a generic event, rNNN, or an event of one PMU's
	// events/ directory
	std::string name = event, mods;
	auto colon = event.find(':');
	if (colon != std::string::npos) {
		name = event.substr(0, colon);
		mods = event.substr(colon + 1);
		if (mods.empty())
			throw UsageError(in_event(event) +
					 "no modifier after ':'");
		check_modifier_chars(event, mods);
	}
	if (const Generic *g = find_generic(name))
		return resolve_plain(event, g, 0, {}, mods);
	if (auto raw = raw_event(name))
		return resolve_plain(event, nullptr, *raw, {}, mods);
	if (is_name(name)) {
		if (auto pmu = pmu_with_alias(event, name, root)) {
			Term t;
			t.name = name;
			t.num = 1;
			t.no_value = true;
			return resolve_on_pmu(event, *pmu, {t}, mods);
		}
	}
	throw UsageError("unknown event '" + event +
			 "' (use PMU/terms/, an event of a PMU's events/ "
			 "directory, or a generic name such as page-faults, "
			 "cpu-clock, cycles; `damonctl events` lists them)");
}

} // namespace damonctl
