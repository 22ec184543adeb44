// The `mlckpt` command line: dispatches to the subcommands, and answers
// --help and --version.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace mlckpt::tools {

// `args` without the program name. Exit codes: the subcommand's; 0 for
// --help and --version; 2 for no or an unknown subcommand.
int run_command_line(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace mlckpt::tools
