#include "registry/h5_groups.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace mlckpt::core {

void validate_h5_name(const std::string& name, const std::string& what) {
    const bool printable =
        std::all_of(name.begin(), name.end(), [](unsigned char c) { return c >= 0x20 && c != 0x7f; });
    if (name.empty() || name.size() > 255 || name == "." || name.find('/') != std::string::npos || !printable) {
        fail(ErrorKind::usage,
             what + " '" + name + "' is invalid; allowed: 1 to 255 printable characters, no '/', not '.'");
    }
}

void GroupTree::check_free(const std::string& name, int parent, int except) const {
    for (int i = 1; i < size(); ++i) {
        const Node& n = nodes_[static_cast<std::size_t>(i)];
        if (i != except && n.parent == parent && n.name == name) {
            fail(ErrorKind::usage,
                 "group '" + nodes_[static_cast<std::size_t>(parent)].name + "' already has the child '" + name + "'");
        }
    }
}

int GroupTree::add(const std::string& name, int parent) {
    if (!contains(parent)) fail(ErrorKind::usage, "parent group id " + std::to_string(parent) + " is unknown");
    validate_h5_name(name, "group name");
    check_free(name, parent, -1);
    nodes_.push_back({name, parent});
    return size() - 1;
}

void GroupTree::rename(int id, const std::string& name) {
    if (!contains(id) || id == 0) {
        fail(ErrorKind::usage,
             "group id " + std::to_string(id) + " is invalid; allowed: a group made by FTI_InitGroup");
    }
    validate_h5_name(name, "group name");
    check_free(name, nodes_[static_cast<std::size_t>(id)].parent, id);
    nodes_[static_cast<std::size_t>(id)].name = name;
}

std::vector<std::string> GroupTree::path(int id) const {
    std::vector<std::string> names;
    for (int i = id; i > 0; i = nodes_[static_cast<std::size_t>(i)].parent) {
        names.push_back(nodes_[static_cast<std::size_t>(i)].name);
    }
    std::reverse(names.begin(), names.end());
    return names;
}

}  // namespace mlckpt::core
