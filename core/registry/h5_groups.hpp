// The HDF5 groups of FTI_InitGroup and FTI_RenameGroup: a tree whose node 0
// is the root group "/". A group's path follows its current name and its
// parents' (a rename moves what it holds), as in FTI.
#pragma once

#include <string>
#include <vector>

namespace mlckpt::core {

class GroupTree {
  public:
    GroupTree() : nodes_{{"/", -1}} {}

    // Adds group `name` under `parent`; returns its id. A usage Error for an
    // unknown parent, a name HDF5 cannot take, or a sibling of that name.
    int add(const std::string& name, int parent);
    void rename(int id, const std::string& name);

    bool contains(int id) const { return id >= 0 && id < static_cast<int>(nodes_.size()); }
    int size() const { return static_cast<int>(nodes_.size()); }
    // Names from the root down ({} for the root itself).
    std::vector<std::string> path(int id) const;

  private:
    struct Node {
        std::string name;
        int parent;
    };
    void check_free(const std::string& name, int parent, int except) const;

    std::vector<Node> nodes_;
};

// A name for one HDF5 link (group or dataset): 1 to 255 printable
// characters, no '/', not "." — else a usage Error naming `what`.
void validate_h5_name(const std::string& name, const std::string& what);

}  // namespace mlckpt::core
