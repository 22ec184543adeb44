// `mlckpt index --prefix DIR [--cache DIR] [--json] [--verify|--rebuild NAME|ID]`:
// the datasets that applications wrote through scr.h into a prefix (as
// SCR's scr_index lists them), offline and without MPI: each dataset's id,
// name, flags, validity, committed copies, ranks and size, with the one a
// restart would use marked; --verify checks every file of every copy of one
// dataset and its partner copies or parity; --rebuild rebuilds the lost or
// damaged files of its L2/L3 cached copies from them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace mlckpt::tools {

// Exit codes of `mlckpt index`.
inline constexpr int kIndexOk = 0;            // listed; every file verifies; everything rebuilt
inline constexpr int kIndexRebuildable = 1;   // --verify: damaged, and --rebuild can rebuild it all
inline constexpr int kIndexUsage = 2;         // wrong usage, no such prefix or dataset
inline constexpr int kIndexBeyondRepair = 3;  // damaged beyond repair (or no copy visible); a rebuild failed

int scr_index(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace mlckpt::tools
