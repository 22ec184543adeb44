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

// Whether a subcommand's arguments ask for its usage: --help or -h before
// any "--" (after it, a file may have that name). The subcommand then
// prints its usage on `out` and exits 0, as `mlckpt --help` does.
bool asks_for_help(const std::vector<std::string>& args);

}  // namespace mlckpt::tools
