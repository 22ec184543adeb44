#include "scr/dataset_list.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "io/file.hpp"
#include "mpi/collective.hpp"
#include "store/checkpoint_store.hpp"
#include "store/rank_meta.hpp"
#include "store/retirement.hpp"

namespace mlckpt::core {

void DatasetList::load() {
    datasets_.clear();
    std::vector<CheckpointRef> refs = ctx_.catalog.refs();
    std::sort(refs.begin(), refs.end(), [](const CheckpointRef& a, const CheckpointRef& b) {
        return a.seq != b.seq ? a.seq > b.seq : read_first(a.level, b.level);
    });
    for (const CheckpointRef& ref : refs) {
        DatasetInfo info{ref, {}};
        info.meta = distribute_dataset_meta(ctx_, ref);
        if (!info.meta.is_dataset()) continue;  // an FTI checkpoint in the same directories
        datasets_.push_back(std::move(info));
    }
}

const DatasetInfo* DatasetList::find(const std::string& name) const {
    for (const DatasetInfo& d : datasets_) {
        if (d.meta.name == name) return &d;
    }
    return nullptr;
}

std::vector<DatasetInfo> DatasetList::copies_of(const std::string& name) const {
    std::vector<DatasetInfo> copies;
    for (const DatasetInfo& d : datasets_) {
        if (d.meta.name == name) copies.push_back(d);
    }
    return copies;
}

void DatasetList::add(const CheckpointRef& ref) {
    datasets_.insert(datasets_.begin(), DatasetInfo{ref, distribute_dataset_meta(ctx_, ref)});
}

void DatasetList::forget(const std::string& name) {
    std::erase_if(datasets_, [&](const DatasetInfo& x) { return x.meta.name == name; });
}

void DatasetList::retire_after(const CheckpointRef& committed, int cache_size, int prefix_size) {
    // Which copies the new one makes redundant: invalid datasets; cached
    // checkpoints beyond SCR_CACHE_SIZE; cached copies of output that is in
    // the prefix now; prefix copies of checkpoints beyond SCR_PREFIX_SIZE;
    // prefix copies whose files the new one overwrote (their metadata only).
    std::vector<DatasetInfo> victims;
    std::vector<DatasetInfo> overwritten;
    std::vector<DatasetInfo> others_in_prefix;  // overwritten if the new one wrote a file of theirs
    int cached = 0;
    int in_prefix = 0;
    std::set<std::uint64_t> flushed;
    for (const DatasetInfo& d : datasets_) {
        if (is_global(d.ref.level)) flushed.insert(d.ref.seq);
    }
    const DatasetInfo* newest_prefix = nullptr;
    for (const DatasetInfo& d : datasets_) {
        if (is_global(d.ref.level) && d.ref.seq == committed.seq) newest_prefix = &d;
    }
    const std::string name = datasets_.front().meta.name;  // the dataset just committed
    for (const DatasetInfo& d : datasets_) {
        const bool checkpoint = (d.meta.flags & kScrCheckpoint) != 0;
        if (d.ref.seq == committed.seq) continue;
        if (d.meta.name == name) {
            // A name names one dataset: the new one replaces an older one of
            // its name (written, say, after the checkpoint a restart used).
            (is_global(d.ref.level) ? overwritten : victims).push_back(d);
        } else if (!d.meta.valid) {
            (is_global(d.ref.level) ? overwritten : victims).push_back(d);  // the application's files stay
        } else if (!is_global(d.ref.level)) {
            if (!checkpoint && flushed.count(d.ref.seq) != 0) {
                victims.push_back(d);
            } else if (checkpoint && ++cached >= cache_size) {
                victims.push_back(d);
            }
        } else if (newest_prefix != nullptr && checkpoint && (d.meta.flags & kScrOutput) == 0 && prefix_size > 0 &&
                   ++in_prefix >= prefix_size) {
            victims.push_back(d);
        } else if (newest_prefix != nullptr) {
            others_in_prefix.push_back(d);
        }
    }
    if (newest_prefix != nullptr) {
        for (const DatasetInfo& d : overwritten_by(*newest_prefix, others_in_prefix)) overwritten.push_back(d);
    }
    // The new dataset itself: a cached copy of output that is in the prefix now.
    for (const DatasetInfo& d : datasets_) {
        if (d.ref.seq == committed.seq && !is_global(d.ref.level) && (d.meta.flags & kScrCheckpoint) == 0 &&
            newest_prefix != nullptr) {
            victims.push_back(d);
        }
    }
    retire(victims, true);
    retire(overwritten, false);
}

std::vector<DatasetInfo> DatasetList::overwritten_by(const DatasetInfo& newest,
                                                     const std::vector<DatasetInfo>& others) const {
    // A rank knows its own files only, and a file of the prefix may be
    // written by different ranks in different datasets: rank 0 compares
    // the whole metadata of each and tells the others.
    std::vector<char> hit(others.size(), 0);
    run_collectively(ctx_.app, [&] {
        if (ctx_.rank() != 0 || others.empty()) return;
        std::set<std::pair<std::string, std::string>> written;
        for (const FileRecord& f : read_meta(ctx_, newest.ref).files) written.emplace(f.origpath, f.origname);
        for (std::size_t i = 0; i < others.size(); ++i) {
            for (const FileRecord& f : read_meta(ctx_, others[i].ref).files) {
                if (written.count({f.origpath, f.origname}) != 0) hit[i] = 1;
            }
        }
    });
    if (!others.empty()) {
        bcast(hit.data(), static_cast<int>(hit.size()), MPI_CHAR, 0, ctx_.app, "which datasets the new one overwrote");
    }
    std::vector<DatasetInfo> out;
    for (std::size_t i = 0; i < others.size(); ++i) {
        if (hit[i] != 0) out.push_back(others[i]);
    }
    return out;
}

void DatasetList::retire(const std::vector<DatasetInfo>& victims, bool remove_prefix_files) {
    if (victims.empty()) return;
    // Metadata first, so that a crash in between leaves files no
    // metadata names (removed at the next SCR_Init), never metadata
    // naming files that are gone.
    if (ctx_.rank() == 0) {
        for (const DatasetInfo& d : victims) {
            if (!remove_metadata(ctx_, d.ref)) {
                ctx_.log.warning("cannot remove " + ctx_.layout.meta_file(d.ref.level, d.ref.seq).string());
            }
        }
    }
    barrier(ctx_.app);
    // A cached copy is one checkpoint directory per node (every rank's files
    // and redundancy): its node's first rank removes it in the background.
    for (const DatasetInfo& d : victims) {
        if (!is_global(d.ref.level) && ctx_.topo.node_index == 0) {
            ctx_.background->remove_tree(ctx_.layout.ckpt_dir(d.ref, ctx_.topo.node_id));
        } else if (is_global(d.ref.level)) {
            for (const FileRecord& f : d.meta.files) {
                if (remove_prefix_files && f.rank == ctx_.rank()) remove_file(fs::path(f.origpath) / f.origname);
            }
        }
        ctx_.catalog.remove(d.ref);
        datasets_.erase(
            std::remove_if(datasets_.begin(), datasets_.end(),
                           [&](const DatasetInfo& x) { return x.ref.seq == d.ref.seq && x.ref.level == d.ref.level; }),
            datasets_.end());
    }
}

}  // namespace mlckpt::core
