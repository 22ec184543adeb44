// `mlckpt verify [--json] [--exec-id ID] [--] CONFIG`: checks every file of
// every checkpoint that the metadata of an execution records (data files,
// L2 partner copies, L3 parity files, L4 files of every format, the L4
// differential files and their journals, the metadata and its copy beside
// the data) against its record, from the configuration file the
// application uses, without MPI. Files on another node's local storage are
// reported as not visible here. Ends with what a restart would use.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace mlckpt::tools {

// Exit codes: 0 every file visible here verifies (or there is nothing to
// verify and no restart is asked for), 1 some file is damaged or a restart
// is asked for and no checkpoint is recorded, 2 wrong usage or a
// configuration that cannot be used (message on `err`).
int verify(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace mlckpt::tools
