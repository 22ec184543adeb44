#include "format/hdf5/hdf5_schema.hpp"

namespace mlckpt::core::h5 {

std::string path_text(const GroupPath& group) {
    if (group.empty()) return "/";
    std::string text;
    for (const std::string& part : group) text += "/" + part;
    return text;
}

}  // namespace mlckpt::core::h5
