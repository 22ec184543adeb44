#include "storage/layout.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iterator>
#include <limits>

#include "common/error.hpp"

namespace mlckpt::core {

StorageLayout::StorageLayout(const Config& config, std::string exec_id, std::vector<int> file_ranks)
    : ckpt_dir_(config.ckpt_dir),
      glbl_dir_(config.glbl_dir),
      meta_dir_(config.meta_dir),
      exec_id_(std::move(exec_id)),
      io_(config.ckpt_io),
      dcp_names_(core::dcp_names(config.ckpt_io)),
      file_ranks_(std::move(file_ranks)) {}

StorageLayout StorageLayout::for_io(IoMode io) const {
    StorageLayout copy = *this;
    copy.io_ = io;
    return copy;
}

StorageLayout StorageLayout::for_checkpoint(const CheckpointMeta& meta) const {
    StorageLayout copy = for_io(meta.io);
    if (meta.is_dataset()) return copy;  // files named by the application
    for (const FileRecord& r : meta.files) {
        int named = 0;
        if (r.type != "FULL" || r.rank < 0) continue;
        if (is_differential(meta.level)) {
            if (!parse_dcp_file_name(r.file, named, copy.dcp_names_)) continue;
        } else if (!parse_data_file_rank(r.file, named)) {
            continue;
        }
        const auto rank = static_cast<std::size_t>(r.rank);
        if (copy.file_ranks_.size() <= rank) {
            const auto known = static_cast<int>(copy.file_ranks_.size());
            copy.file_ranks_.resize(rank + 1);
            for (auto i = static_cast<std::size_t>(known); i < copy.file_ranks_.size(); ++i) {
                copy.file_ranks_[i] = static_cast<int>(i);
            }
        }
        copy.file_ranks_[rank] = named;
    }
    return copy;
}

int StorageLayout::file_rank(int app_rank) const {
    if (app_rank < 0 || static_cast<std::size_t>(app_rank) >= file_ranks_.size()) return app_rank;
    return file_ranks_[static_cast<std::size_t>(app_rank)];
}

fs::path StorageLayout::node_exec_dir(int node) const {
    return ckpt_dir_ / ("node" + std::to_string(node)) / exec_id_;
}

fs::path StorageLayout::global_exec_dir() const {
    return glbl_dir_ / exec_id_;
}

fs::path StorageLayout::meta_exec_dir() const {
    return meta_dir_ / exec_id_;
}

const fs::path& StorageLayout::base_of(const fs::path& dir) const {
    auto normal = [](const fs::path& p) {
        fs::path n = p.lexically_normal();
        return !n.has_filename() && n.has_relative_path() ? n.parent_path() : n;
    };
    const fs::path* best = nullptr;
    std::size_t best_depth = 0;
    for (const fs::path* base : {&ckpt_dir_, &glbl_dir_, &meta_dir_}) {
        const fs::path top = normal(*base);
        const fs::path below = normal(dir).lexically_relative(top);
        if (below.empty() || *below.begin() == "..") continue;
        const auto depth = static_cast<std::size_t>(std::distance(top.begin(), top.end()));
        if (best == nullptr || depth > best_depth) {
            best = base;
            best_depth = depth;
        }
    }
    if (best == nullptr) fail(ErrorKind::usage, "'" + dir.string() + "' is not below a configured directory");
    return *best;
}

fs::path StorageLayout::level_dir(int level, int node) const {
    if (is_differential(level)) return global_exec_dir() / dcp_dir_name(dcp_names_);  // one file per rank, in place
    if (is_node_local(level)) return node_exec_dir(node) / ("l" + std::to_string(level));
    return global_exec_dir() / ("l" + std::to_string(kL4));
}

fs::path StorageLayout::ckpt_dir(const CheckpointRef& ref, int node) const {
    fs::path dir = level_dir(ref.level, node);
    if (ref.own_dir && !is_differential(ref.level)) dir /= own_dir_name(ref.seq);
    return dir;
}

fs::path StorageLayout::data_file(const CheckpointRef& ref, int owner, int node) const {
    fs::path dir = ckpt_dir(ref, node);
    if (is_differential(ref.level)) return dir / dcp_file_name(file_rank(owner), dcp_names_);
    return dir / data_file_name(ref.ckpt_id, file_rank(owner), format_at(io_, ref.level));
}

fs::path StorageLayout::redundancy_file(const CheckpointRef& ref, int holder, int node) const {
    fs::path dir = ckpt_dir(ref, node);
    const IoMode format = format_at(io_, ref.level);
    switch (redundancy_kind(ref.level)) {
        case GroupRedundancy::partner_copy:
            return dir / partner_file_name(ref.ckpt_id, file_rank(holder), format);
        case GroupRedundancy::reed_solomon:
            return dir / parity_file_name(ref.ckpt_id, file_rank(holder), format);
        case GroupRedundancy::none:
            break;
    }
    return {};
}

fs::path StorageLayout::routed_dir(const CheckpointRef& ref, int owner, int node) const {
    return ckpt_dir(ref, node) / ("rank" + std::to_string(owner));
}

std::vector<fs::path> StorageLayout::dcp_files(int owner) const {
    std::vector<fs::path> out{data_file({0, kDcpLevel, 0}, owner, 0)};
    for (const DcpNames names : kAllDcpNames) {
        if (names == dcp_names_) continue;
        out.push_back(global_exec_dir() / dcp_dir_name(names) / dcp_file_name(file_rank(owner), names));
    }
    return out;
}

std::vector<fs::path> StorageLayout::dcp_dirs() const {
    std::vector<fs::path> out;
    for (const DcpNames names : kAllDcpNames) {
        fs::path dir = global_exec_dir() / dcp_dir_name(names);
        if (std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(std::move(dir));
    }
    return out;
}

fs::path StorageLayout::archive_dir() const {
    return global_exec_dir() / "l4_archive";
}

fs::path StorageLayout::meta_file(int level, std::uint64_t seq) const {
    return meta_exec_dir() / ("ckpt" + std::to_string(seq) + ".l" + std::to_string(level) + ".meta");
}

fs::path StorageLayout::meta_copy_dir(int level, int node) const {
    return (is_node_local(level) ? node_exec_dir(node) : global_exec_dir()) / "meta";
}

fs::path StorageLayout::meta_copy(int level, std::uint64_t seq, int node) const {
    return meta_copy_dir(level, node) / meta_file(level, seq).filename();
}

fs::path StorageLayout::archive_meta_file(std::uint64_t seq) const {
    return meta_exec_dir() / "archive" / ("ckpt" + std::to_string(seq) + ".l4.meta");
}

}  // namespace mlckpt::core
