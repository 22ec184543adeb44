// The container part of `mlckpt inspect`: META1, META2, the task mapping
// and a table of every task's chunks, as text or JSON.
#pragma once

#include <ostream>
#include <string>

#include "format/shared/container_layout.hpp"

namespace mlckpt::tools {

void print_container_text(std::ostream& out, const std::string& path, const core::container::ContainerFile& c);
void print_container_json(std::ostream& out, const std::string& path, const core::container::ContainerFile& c);

}  // namespace mlckpt::tools
