#include "store/catalog.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

#include "storage/layout.hpp"

namespace mlckpt::core {

void Catalog::remove(const CheckpointRef& ref) {
    std::erase_if(refs_, [&](const CheckpointRef& r) { return r.seq == ref.seq && r.level == ref.level; });
}

std::uint64_t Catalog::next_seq() const {
    std::uint64_t next = reserved_through_ + 1;
    for (const CheckpointRef& r : refs_) next = std::max(next, r.seq + 1);
    return next;
}

void Catalog::keep_unrecorded(std::uint64_t highest_seq, std::string description) {
    reserved_through_ = std::max(reserved_through_, highest_seq);
    unrecorded_ = std::move(description);
}

const CheckpointRef* Catalog::newest() const {
    const CheckpointRef* best = nullptr;
    for (const CheckpointRef& r : refs_) {
        if (best == nullptr || r.seq > best->seq || (r.seq == best->seq && read_first(r.level, best->level))) {
            best = &r;
        }
    }
    return best;
}

int Catalog::last_ckpt_id() const {
    const CheckpointRef* n = newest();
    return n ? n->ckpt_id : 0;
}

bool Catalog::contains(std::uint64_t seq, int level) const {
    return std::any_of(refs_.begin(), refs_.end(),
                       [&](const CheckpointRef& r) { return r.seq == seq && r.level == level; });
}

std::vector<CheckpointRef> Catalog::superseded_by(int level, std::uint64_t seq) const {
    std::vector<CheckpointRef> out;
    for (const CheckpointRef& r : refs_) {
        if (r.seq < seq && supersedes(level, r.level)) out.push_back(r);
    }
    return out;
}

CheckpointRef Catalog::place(std::uint64_t seq, int level, int ckpt_id) const {
    // FTI's names carry the id but not the level's directory alone: a
    // checkpoint of an id that a live checkpoint kept in FTI's layout
    // already has would overwrite its files, whatever their levels (a
    // promotion to L4 and the heads' L1 copy of an L4 checkpoint share
    // the sequence number, so the choice holds for all of them).
    // Unrecorded data (lost metadata) may carry any id.
    const bool repeats = std::any_of(refs_.begin(), refs_.end(), [&](const CheckpointRef& r) {
        return r.ckpt_id == ckpt_id && r.seq != seq && !r.own_dir;
    });
    return {seq, level, ckpt_id, repeats || !unrecorded_.empty()};
}

std::string Catalog::serialize() const {
    std::ostringstream out;
    for (const CheckpointRef& r : refs_) out << r << '\n';
    return out.str();
}

Catalog Catalog::parse(const std::string& text) {
    Catalog c;
    std::istringstream in(text);
    for (CheckpointRef r; in >> r;) c.refs_.push_back(r);
    return c;
}

}  // namespace mlckpt::core
