// ckpt_io = 5: how a rank's protected variables appear in its HDF5 file.
// The runtime describes them (names, shapes, groups, types) from the
// registry; the HDF5 writer follows the description. Plain values, so that
// the format layer knows nothing of the registry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlckpt::core::h5 {

// A group path, from the root: {} is "/", {"a", "b"} is "/a/b".
using GroupPath = std::vector<std::string>;

// An element type: one of FTI's primitives (a native HDF5 type), an opaque
// block of bytes (FTI_InitType; an n-byte integer of 8-bit precision in the
// file, as FTI writes it), or a compound of named members
// (FTI_InitCompositeType).
struct Type {
    enum class Kind { primitive, opaque, compound };
    struct Member {
        std::string name;
        std::size_t offset = 0;
        std::vector<std::uint64_t> dims;  // empty: a scalar member
        std::shared_ptr<const Type> type;
    };

    Kind kind = Kind::opaque;
    int primitive = 0;  // FTI's handle, FTI_CHAR (0) .. FTI_LDBE (10)
    std::size_t size = 0;
    std::vector<Member> members;
    // Opaque and compound types: the named datatype a file holds when the
    // type is a dataset's, as FTI commits it (a member's type stays inline).
    std::string name;
    GroupPath group;
};

struct Dataset {
    std::string name;                 // FTI_DefineDataset's, else "Dataset_<id>"
    GroupPath group;                  // where it goes
    std::vector<std::uint64_t> dims;  // the shape, slowest-varying first
    std::shared_ptr<const Type> type;
    // FTI_SetAttribute: written as the dataset's attributes "name" and "dim".
    std::string attribute_name;
    std::vector<std::uint64_t> attribute_dim;
    bool has_attribute_name = false;
    bool has_attribute_dim = false;
};

struct Schema {
    std::vector<GroupPath> groups;    // every group the application made, parents first
    std::map<int, Dataset> datasets;  // by variable id
};

// "/" or "/a/b".
std::string path_text(const GroupPath& group);

}  // namespace mlckpt::core::h5
