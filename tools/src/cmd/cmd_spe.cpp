// SPDX-License-Identifier: GPL-2.0
// damonctl spe decode FILE [--json]: decode a raw SPE AUX dump offline.
#include "cmd_spe.hpp"

#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <system_error>

#include "spe_decode.hpp"

namespace damonctl {

int run_spe_decode(const SpeDecodeOptions &opt, std::ostream &out)
{
	std::ifstream in(opt.file, std::ios::binary);

	if (!in)
		throw std::system_error(errno, std::generic_category(),
					"cannot open " + opt.file);
	std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)),
				  std::istreambuf_iterator<char>());
	if (opt.json) {
		out << spe_decode_json(data).dump(2) << '\n';
		return 0;
	}
	spe_decode_text(data, out);
	return 0;
}

void setup_spe(CLI::App &app, Transport &t)
{
	auto *spe = app.add_subcommand("spe", "ARM SPE helpers");
	auto opt = std::make_shared<SpeDecodeOptions>();
	auto *dec = spe->add_subcommand(
		"decode", "decode a raw SPE AUX dump (like perf report -D)");

	spe->require_subcommand(1);
	dec->add_option("FILE", opt->file, "raw AUX bytes")
		->required()
		->check(CLI::ExistingFile);
	dec->add_flag("--json", opt->json, "records as JSON");
	dec->callback([opt]() { run_spe_decode(*opt, std::cout); });
	setup_spe_attach(*spe, t);
}

} // namespace damonctl
