// `mlckpt extract [--] CONTAINER --rank R [--output FILE]`: writes the data
// of application rank R (its chunks, in order) from a container (ckpt_io =
// 4) to FILE, by default rank<R>.bin. Given file 0 of a multi-file
// container, finds the rank's physical file through the task mapping.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace mlckpt::tools {

// Exit codes: 0 written, 1 the container is damaged or the rank is not in
// it (message on `err`), 2 wrong usage.
int extract(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace mlckpt::tools
