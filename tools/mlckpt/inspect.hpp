// `mlckpt inspect [--json] [--] FILE`: prints an FTI-FF file's file block and
// every block and chunk record, and verifies every hash; or, for a container
// (ckpt_io = 4), its two metadata blocks, the task mapping and every task's
// chunks, after checking them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace mlckpt::tools {

// Exit codes: 0 the file verifies, 1 it is damaged or cannot be read
// (message on `err`), 2 wrong usage.
int inspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace mlckpt::tools
