// The committed checkpoints of the execution. Every application rank holds
// the same catalog: it changes only through collective steps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/checkpoint_ref.hpp"

namespace mlckpt::core {

class Catalog {
  public:
    const std::vector<CheckpointRef>& refs() const { return refs_; }
    bool empty() const { return refs_.empty(); }

    void add(const CheckpointRef& ref) { refs_.push_back(ref); }
    void remove(const CheckpointRef& ref);
    // Above the newest entry and above every sequence number reserved.
    std::uint64_t next_seq() const;
    // A new checkpoint (seq, level, ckpt_id): in FTI's layout, its files
    // directly in the level's directory, unless that would put them where
    // a live checkpoint's files of the same names are, or where unrecorded
    // data may be; then in a directory of its own.
    CheckpointRef place(std::uint64_t seq, int level, int ckpt_id) const;
    // Checkpoint data of this execution that has no metadata (lost with its
    // metadata directory) is kept in place: new checkpoints are numbered
    // after it, so that none is ever written into its directories.
    void keep_unrecorded(std::uint64_t highest_seq, std::string description);
    // Where that data is and what to do with it; empty when there is none.
    const std::string& unrecorded_data() const { return unrecorded_; }
    int last_ckpt_id() const;  // of the newest checkpoint; 0 when empty
    const CheckpointRef* newest() const;
    bool contains(std::uint64_t seq, int level) const;

    // Older checkpoints that a new one at `level` replaces: every level up
    // to and including its own (L4 differential, level 8, counts as L4).
    std::vector<CheckpointRef> superseded_by(int level, std::uint64_t seq) const;

    std::string serialize() const;
    static Catalog parse(const std::string& text);

  private:
    std::vector<CheckpointRef> refs_;
    std::uint64_t reserved_through_ = 0;
    std::string unrecorded_;
};

}  // namespace mlckpt::core
