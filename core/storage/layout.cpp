#include "storage/layout.hpp"

#include <charconv>
#include <cstdio>
#include <iterator>
#include <limits>

#include "common/error.hpp"

namespace mlckpt::core {

namespace {

bool parse_u64(std::string_view s, std::uint64_t& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

IoMode file_format(IoMode configured, int level) {
    if (level == kDcpLevel) return IoMode::ftiff;
    if (is_shared(configured) && level != 4) return IoMode::posix;
    return configured;
}

StorageLayout::StorageLayout(const Config& config, std::string exec_id, std::vector<int> file_ranks)
    : ckpt_dir_(config.ckpt_dir),
      glbl_dir_(config.glbl_dir),
      meta_dir_(config.meta_dir),
      exec_id_(std::move(exec_id)),
      io_(config.ckpt_io),
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
        if (r.type != "FULL" || r.rank < 0 || !parse_data_file_rank(r.file, named)) continue;
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
    if (level == kDcpLevel) return global_exec_dir() / "dcp";  // one file per rank, updated in place
    if (level >= 4) return global_exec_dir() / "l4";
    return node_exec_dir(node) / ("l" + std::to_string(level));
}

fs::path StorageLayout::ckpt_dir(const CheckpointRef& ref, int node) const {
    fs::path dir = level_dir(ref.level, node);
    if (ref.own_dir && ref.level != kDcpLevel) dir /= own_dir_name(ref.seq);
    return dir;
}

fs::path StorageLayout::data_file(const CheckpointRef& ref, int owner, int node) const {
    fs::path dir = ckpt_dir(ref, node);
    if (ref.level == kDcpLevel) return dir / dcp_file_name(file_rank(owner));
    return dir / data_file_name(ref.ckpt_id, file_rank(owner), file_format(io_, ref.level));
}

fs::path StorageLayout::redundancy_file(const CheckpointRef& ref, int holder, int node) const {
    fs::path dir = ckpt_dir(ref, node);
    const IoMode format = file_format(io_, ref.level);
    if (ref.level == 2) return dir / partner_file_name(ref.ckpt_id, file_rank(holder), format);
    if (ref.level == 3) return dir / parity_file_name(ref.ckpt_id, file_rank(holder), format);
    return {};
}

fs::path StorageLayout::routed_dir(const CheckpointRef& ref, int owner, int node) const {
    return ckpt_dir(ref, node) / ("rank" + std::to_string(owner));
}

fs::path StorageLayout::archive_dir() const {
    return global_exec_dir() / "l4_archive";
}

fs::path StorageLayout::meta_file(int level, std::uint64_t seq) const {
    return meta_exec_dir() / ("ckpt" + std::to_string(seq) + ".l" + std::to_string(level) + ".meta");
}

fs::path StorageLayout::meta_copy_dir(int level, int node) const {
    return (level >= 4 ? global_exec_dir() : node_exec_dir(node)) / "meta";
}

fs::path StorageLayout::meta_copy(int level, std::uint64_t seq, int node) const {
    return meta_copy_dir(level, node) / meta_file(level, seq).filename();
}

fs::path StorageLayout::archive_meta_file(std::uint64_t seq) const {
    return meta_exec_dir() / "archive" / ("ckpt" + std::to_string(seq) + ".l4.meta");
}

const char* StorageLayout::file_extension(IoMode format) {
    return format == IoMode::hdf5 ? ".h5" : ".fti";
}

std::string StorageLayout::data_file_name(int ckpt_id, int rank, IoMode format) {
    return "Ckpt" + std::to_string(ckpt_id) + "-Rank" + std::to_string(rank) + file_extension(format);
}

std::string StorageLayout::dcp_file_name(int rank) {
    return "dCP-Rank" + std::to_string(rank) + ".fti";
}

std::string StorageLayout::partner_file_name(int ckpt_id, int holder, IoMode format) {
    return "Ckpt" + std::to_string(ckpt_id) + "-Pcof" + std::to_string(holder) + file_extension(format);
}

std::string StorageLayout::parity_file_name(int ckpt_id, int holder, IoMode format) {
    return "Ckpt" + std::to_string(ckpt_id) + "-RSed" + std::to_string(holder) + file_extension(format);
}

bool StorageLayout::parse_file_name_id(const std::string& name, int& ckpt_id) {
    if (name.size() < 6 || name.compare(0, 4, "Ckpt") != 0) return false;
    const auto dash = name.find('-', 4);
    std::uint64_t id = 0;
    if (dash == std::string::npos || !parse_u64(std::string_view(name).substr(4, dash - 4), id) ||
        id > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
        return false;
    }
    ckpt_id = static_cast<int>(id);
    return true;
}

bool StorageLayout::parse_data_file_rank(const std::string& name, int& rank) {
    int id = 0;
    if (!parse_file_name_id(name, id)) return false;
    const std::string_view rest = std::string_view(name).substr(name.find('-'));
    const auto dot = rest.find('.');
    std::uint64_t r = 0;
    if (rest.compare(0, 5, "-Rank") != 0 || dot == std::string_view::npos || !parse_u64(rest.substr(5, dot - 5), r) ||
        r > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
        return false;
    }
    rank = static_cast<int>(r);
    return true;
}

bool StorageLayout::parse_meta_file_name(const std::string& name, std::uint64_t& seq, int& level) {
    std::string_view s = name;
    if (s.substr(0, 4) != "ckpt" || s.size() < 12 || s.substr(s.size() - 5) != ".meta") return false;
    s = s.substr(4, s.size() - 9);  // "<seq>.l<L>"
    auto dot = s.find(".l");
    if (dot == std::string_view::npos) return false;
    std::uint64_t lv = 0;
    if (!parse_u64(s.substr(0, dot), seq) || !parse_u64(s.substr(dot + 2), lv)) return false;
    if ((lv < 1 || lv > 4) && lv != kDcpLevel) return false;
    level = static_cast<int>(lv);
    return true;
}

std::string StorageLayout::own_dir_name(std::uint64_t seq) {
    return "ckpt" + std::to_string(seq);
}

bool StorageLayout::parse_own_dir_name(const std::string& name, std::uint64_t& seq) {
    return name.size() > 4 && name.compare(0, 4, "ckpt") == 0 && parse_u64(std::string_view(name).substr(4), seq);
}

}  // namespace mlckpt::core
