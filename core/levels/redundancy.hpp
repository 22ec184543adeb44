// L2 and L3: the redundancy that lets a group of nodes survive losing some
// of its members' files. Every function here is collective over the group.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <mpi.h>

#include <cstddef>

#include "format/checkpoint_meta.hpp"
#include "levels/memory_content.hpp"
#include "storage/layout.hpp"
#include "topology/topology.hpp"

namespace mlckpt::core {

// What the group's work needs of the run besides the group itself.
struct RedundancyIo {
    const StorageLayout* layout = nullptr;  // where the members' files are
    int tag = 0;                            // of the group's messages ([advanced] ckpt_tag)
    std::size_t buffer_bytes = 0;           // I/O pieces ([advanced] block_size)
};

// One group: the ranks of one node index on group_size consecutive nodes.
struct GroupView {
    int group_id = 0;
    std::vector<int> app_ranks;  // ring order
    std::vector<int> nodes;      // their nodes, ring order
};

// The groups of a checkpoint's L2/L3 files as its metadata records them
// (each rank's node), formed as the topology forms them. Not collective.
// Throws a corrupt Error when the recorded nodes cannot form the groups.
std::vector<GroupView> groups_of(const CheckpointMeta& meta);

// One member of a group, as seen by whoever does its work: the application
// rank itself (inline) or the head of its node (asynchronous).
struct GroupMember {
    MPI_Comm comm = MPI_COMM_NULL;  // the group, ranked by ring position
    int position = 0;               // ring position
    int size = 0;                   // group_size
    int group_id = 0;
    int app_rank = 0;  // whose data
    int node = 0;
    int left_app_rank = 0;       // previous member in the ring
    std::vector<int> app_ranks;  // the group's application ranks, ring order
    std::vector<int> nodes;      // their nodes, ring order

    fs::path data_path(const RedundancyIo& io, const CheckpointRef& ref) const {
        return io.layout->data_file(ref, app_rank, node);
    }
    fs::path redundancy_path(const RedundancyIo& io, const CheckpointRef& ref) const {
        return io.layout->redundancy_file(ref, app_rank, node);
    }
    GroupView group() const { return {group_id, app_ranks, nodes}; }
};

// An application rank working for itself over `group` (its L2/L3 group).
GroupMember own_member(const Topology& t, MPI_Comm group);
// A head working for the application rank of index `node_index` on its node;
// `sector` holds the heads of the group's nodes, ranked by ring position.
GroupMember head_member(const Topology& t, MPI_Comm sector, int node_index);

// What one member holds of a checkpoint and whether each file verified.
struct Holdings {
    bool data_ok = false;        // its own (FULL) file
    bool redundancy_ok = false;  // the partner copy or parity file it keeps
};

// Collective over the group: every member's holdings, by ring position.
std::vector<Holdings> gather_holdings(const GroupMember& m, const Holdings& mine);

// Checkpoint time: each member sends its file to its right neighbour and
// keeps its left neighbour's; returns the record of the copy kept.
// `content`, when given, is the file's content still in memory, sent from
// there instead of read back.
FileRecord write_partner_copy(const RedundancyIo& io, const GroupMember& m, const CheckpointRef& ref,
                              const FileRecord& data, const MemoryContent* content = nullptr);
// Why the group cannot be rebuilt from partner copies: some member's file
// and the copy of it its right neighbour keeps are both lost.
std::optional<std::string> partner_copy_loss(const GroupView& g, const std::vector<Holdings>& held);
// Restart: rebuilds lost files from partner copies, then lost copies from
// the files. Throws (on every member) when some member's data is gone twice.
// Returns the record of the copy kept here, as it now is.
FileRecord repair_partner_copies(const RedundancyIo& io, const GroupMember& m, const CheckpointMeta& meta,
                                 const CheckpointRef& ref, const Holdings& held);

// Checkpoint time: computes the group's Reed-Solomon parity; each member
// keeps one parity file. Returns the record of the parity kept. `content`,
// when given, is the file's content still in memory, encoded from there
// instead of read back.
FileRecord write_parity(const RedundancyIo& io, const GroupMember& m, const CheckpointRef& ref, const FileRecord& data,
                        const MemoryContent* content = nullptr);
// Why the group cannot be rebuilt from its parity: more than k of its 2k
// files are lost.
std::optional<std::string> parity_loss(const GroupView& g, const std::vector<Holdings>& held);
// Restart: rebuilds any lost files and parity from any k of the 2k.
// Returns the record of the parity kept here, as it now is.
FileRecord repair_parity(const RedundancyIo& io, const GroupMember& m, const CheckpointMeta& meta,
                         const CheckpointRef& ref, const Holdings& held);

// What the files a parity scheme rebuilds must match: the CRC-32s the
// metadata records (none for parity being made).
struct RebuiltCrcs {
    std::optional<std::uint32_t> data_crc;
    std::optional<std::uint32_t> parity_crc;
};

// The record of the parity file `m` keeps: `size` bytes of CRC-32 `crc`.
FileRecord parity_record(const RedundancyIo& io, const GroupMember& m, const CheckpointRef& ref, std::uint64_t size,
                         std::uint32_t crc);

// The redundancy of one level as one object, whoever does its work (the
// application rank inline, the node's head) and whenever (at checkpoint
// time, at restart): L2 partner copies, L3 Reed-Solomon parity. A new kind
// of redundancy is one more implementation, returned by redundancy_of().
class Redundancy {
  public:
    virtual ~Redundancy() = default;

    // Checkpoint time: makes this member's share of the group's redundancy
    // for its file `data` (from `content` when given); returns its record.
    virtual FileRecord write(const RedundancyIo& io, const GroupMember& m, const CheckpointRef& ref,
                             const FileRecord& data, const MemoryContent* content = nullptr) const = 0;
    // Restart: rebuilds what the group lost; returns the record of the
    // redundancy kept here, as it now is.
    virtual FileRecord repair(const RedundancyIo& io, const GroupMember& m, const CheckpointMeta& meta,
                              const CheckpointRef& ref, const Holdings& held) const = 0;
    // Why the group cannot be rebuilt from what its members hold (`held`,
    // by ring position), or nothing when it can: the rule repair() applies
    // to the holdings it gathers, and `mlckpt verify` to the files it
    // checked. Not collective.
    virtual std::optional<std::string> loss_beyond_repair(const GroupView& g,
                                                          const std::vector<Holdings>& held) const = 0;
    // Whether write() checks the data against the CRC-32 of `data` (a copy
    // does; parity has nothing to check it against).
    virtual bool checks_data_crc() const = 0;
    // For messages: "partner copy", "Reed-Solomon", "Reed-Solomon sets".
    virtual const char* name() const = 0;
};

// L3 as SCR's Reed-Solomon sets, surviving `failures` lost nodes of a
// group (levels/set_parity.cpp); nullptr outside 1..kMaxParityGroup-1.
const Redundancy* set_parity(int failures);

// The redundancy a scheme makes; nullptr for none (L1, L4, L4
// differential).
const Redundancy* redundancy_of(const RedundancyScheme& scheme);
// The redundancy of a checkpoint, as its metadata records it.
const Redundancy* redundancy_of(const CheckpointMeta& meta);

}  // namespace mlckpt::core
