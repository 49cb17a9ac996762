// SPDX-License-Identifier: GPL-2.0
#include "manpage.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

namespace damonctl {

namespace {

bool visible(const CLI::App *a)
{
	return !a->get_group().empty() && !a->get_disabled();
}

std::vector<const CLI::App *> subcommands(const CLI::App &app)
{
	return app.get_subcommands(
		[](const CLI::App *a) { return visible(a); });
}

std::vector<const CLI::Option *> options(const CLI::App &app, bool positional)
{
	return app.get_options([positional](const CLI::Option *o) {
		return !o->get_group().empty() &&
		       o->get_positional() == positional &&
		       (positional || o->nonpositional());
	});
}

// roff-escape one line of text: backslashes, hyphens (so they copy and
// search as ASCII), a leading dot or quote.
std::string esc(const std::string &s)
{
	std::string out;

	for (char c : s) {
		if (c == '\\')
			out += "\\e";
		else if (c == '-')
			out += "\\-";
		else
			out += c;
	}
	if (!out.empty() && (out[0] == '.' || out[0] == '\''))
		out = "\\&" + out;
	return out;
}

std::string trim(const std::string &s)
{
	size_t b = s.find_first_not_of(" \t\n");
	size_t e = s.find_last_not_of(" \t\n");

	return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Free text (a description or footer) keeping its line structure: lines
// starting with spaces are examples, shown as they are.
std::string text_block(const std::string &text)
{
	std::istringstream in(text);
	std::string line, out;
	bool nf = false;

	while (std::getline(in, line)) {
		bool literal = !line.empty() && line[0] == ' ';
		if (literal && !nf) {
			out += ".nf\n";
			nf = true;
		} else if (!literal && nf) {
			out += ".fi\n";
			nf = false;
		}
		if (trim(line).empty())
			out += ".PP\n";
		else
			out += esc(literal ? line : trim(line)) + "\n";
	}
	if (nf)
		out += ".fi\n";
	return out;
}

// "-c,--config" -> "\fB\-c\fR, \fB\-\-config\fR"
std::string bold_names(const std::string &names)
{
	std::string out;
	std::istringstream in(names);
	std::string n;

	while (std::getline(in, n, ',')) {
		if (!out.empty())
			out += ", ";
		out += "\\fB" + esc(n) + "\\fR";
	}
	return out;
}

std::string option_entry(const CLI::Formatter &f, const CLI::Option *o,
			 bool positional)
{
	std::string out = ".TP\n";

	if (positional)
		out += "\\fI" + esc(o->get_name(true, false)) + "\\fR";
	else
		out += bold_names(o->get_name(false, true));
	std::string opts = trim(f.make_option_opts(o));
	if (!opts.empty())
		out += " " + esc(opts);
	out += "\n" + esc(trim(o->get_description())) + "\n";
	return out;
}

std::string command_path(const std::vector<std::string> &path)
{
	std::string s;

	for (const auto &p : path)
		s += (s.empty() ? "" : " ") + p;
	return s;
}

void command_section(std::string &out, const CLI::Formatter &f,
		     const CLI::App &app, std::vector<std::string> path)
{
	path.push_back(app.get_name());
	auto subs = subcommands(app);
	auto pos = options(app, true);
	std::string usage = command_path(path) + " [OPTIONS]";

	for (const auto *p : pos)
		usage += " " + p->get_name(true, false);
	if (!subs.empty())
		usage += " COMMAND";
	out += fmt::format(".SS \"{}\"\n", esc(usage));
	out += text_block(app.get_description());
	if (!pos.empty() || !options(app, false).empty())
		out += ".PP\n";
	for (const auto *p : pos)
		out += option_entry(f, p, true);
	for (const auto *o : options(app, false))
		out += option_entry(f, o, false);
	if (!subs.empty()) {
		out += ".PP\nCommands:\n";
		for (const auto *s : subs)
			out += fmt::format(".TP\n\\fB{}\\fR\n{}\n",
					   esc(s->get_name()),
					   esc(s->get_description()));
	}
	if (!app.get_footer().empty() && path.size() > 1) {
		out += ".PP\n";
		out += text_block(app.get_footer());
	}
	for (const auto *s : subs)
		command_section(out, f, *s, path);
}

void completion_case(std::string &out, const CLI::App &app,
		     const std::string &path)
{
	std::string words, files;

	for (const auto *s : subcommands(app))
		words += (words.empty() ? "" : " ") + s->get_name();
	for (const auto *o : options(app, false)) {
		for (const auto &n : o->get_snames())
			words += (words.empty() ? "-" : " -") + n;
		for (const auto &n : o->get_lnames())
			words += (words.empty() ? "--" : " --") + n;
		if (o->get_type_size() == 0)
			continue;
		// an option taking a value: complete file names after it
		// when the value is a path
		std::string type = o->get_type_name();
		bool path_like = type.find("FILE") != std::string::npos ||
				 type.find("DIR") != std::string::npos ||
				 type.find("PATH") != std::string::npos;
		for (const auto &n : o->get_lnames())
			path_like = path_like || n == "output" ||
				    n == "input" || n == "config" ||
				    n == "textfile";
		if (!path_like)
			continue;
		for (const auto &n : o->get_snames())
			files += (files.empty() ? "-" : " -") + n;
		for (const auto &n : o->get_lnames())
			files += (files.empty() ? "--" : " --") + n;
	}
	out += fmt::format("\t\"{}\")\n\t\twords=\"{}\"\n", path, words);
	if (!files.empty())
		out += fmt::format("\t\tfiles=\"{}\"\n", files);
	out += "\t\t;;\n";
	for (const auto *s : subcommands(app))
		completion_case(out, *s, path + " " + s->get_name());
}

void subcommand_case(std::string &out, const CLI::App &app,
		     const std::string &path)
{
	auto subs = subcommands(app);

	if (subs.empty())
		return;
	out += fmt::format("\t\t\"{}\")\n\t\t\tcase \"$w\" in\n", path);
	for (const auto *s : subs)
		out += fmt::format("\t\t\t{}) path=\"$path {}\" ;;\n",
				   s->get_name(), s->get_name());
	out += "\t\t\tesac ;;\n";
	for (const auto *s : subs)
		subcommand_case(out, *s, path + " " + s->get_name());
}

} // namespace

std::string render_man(const CLI::App &app, const std::string &version)
{
	CLI::Formatter f;
	std::string out;
	std::string desc = app.get_description();
	std::string what = desc;
	size_t colon = desc.find(": ");

	if (colon != std::string::npos)
		what = desc.substr(colon + 2);
	out += ".\\\" Generated by damonctl --man-page from the same command "
	       "tree as --help; do not edit.\n";
	out += fmt::format(".TH DAMONCTL 1 \"\" \"{}\" \"User Commands\"\n",
			   esc(version));
	out += ".SH NAME\ndamonctl \\- " + esc(what) + "\n";
	out += ".SH SYNOPSIS\n.B damonctl\n[\\fIOPTIONS\\fR] \\fICOMMAND\\fR "
	       "[\\fICOMMAND OPTIONS\\fR]\n";
	out += ".SH DESCRIPTION\n";
	out += text_block(app.get_footer());
	out += ".SH OPTIONS\n";
	for (const auto *o : options(app, false))
		out += option_entry(f, o, false);
	out += ".SH COMMANDS\n";
	for (const auto *s : subcommands(app))
		command_section(out, f, *s, {"damonctl"});
	out += ".SH SEE ALSO\n"
	       "Documentation/damonctl.rst, Documentation/schemes.rst and "
	       "Documentation/admin-guide.rst in the damon-perf sources.\n";
	return out;
}

std::string render_bash_completion(const CLI::App &app)
{
	std::string out =
		"# bash completion for damonctl; generated by damonctl "
		"--bash-completion\n"
		"# from the same command tree as --help.\n"
		"_damonctl()\n{\n"
		"\tlocal cur prev path=damonctl words= files= i w\n"
		"\tcur=${COMP_WORDS[COMP_CWORD]}\n"
		"\tprev=${COMP_WORDS[COMP_CWORD-1]}\n"
		"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
		"\t\tw=${COMP_WORDS[i]}\n"
		"\t\tcase \"$path\" in\n";
	subcommand_case(out, app, "damonctl");
	out += "\t\tesac\n\tdone\n\tcase \"$path\" in\n";
	completion_case(out, app, "damonctl");
	out += "\tesac\n"
	       "\tfor w in $files; do\n"
	       "\t\tif [ \"$prev\" = \"$w\" ]; then\n"
	       "\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	       "\t\t\treturn\n"
	       "\t\tfi\n"
	       "\tdone\n"
	       "\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
	       "}\n"
	       "complete -o default -F _damonctl damonctl\n";
	return out;
}

} // namespace damonctl
