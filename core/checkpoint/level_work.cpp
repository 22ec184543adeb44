#include "checkpoint/level_work.hpp"

#include <algorithm>
#include <future>

#include "hash/crc32.hpp"
#include "levels/memory_content.hpp"
#include "levels/redundancy.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

// Collective: the file finished on every rank, or on none.
FileRecord finish_everywhere(const Context& ctx, const CheckpointRef& ref, CheckpointFile& file,
                             std::exception_ptr failure) {
    if (file.collective()) agree(ctx.app, failure);  // every rank finishes a shared file, or none
    FileRecord record;
    if (!failure) failure = finish_checkpoint_file(ctx, ref, file, record);
    agree(ctx.app, failure);
    return record;
}

// L1, L4, L4 differential, and every level handed to a head: the file alone.
class FileAlone final : public LevelWork {
  public:
    FileAlone(const Context& ctx, const CheckpointRef& ref) : ctx_(ctx), ref_(ref) {}

    std::vector<FileRecord> complete(CheckpointFile& file, std::exception_ptr failure) override {
        return {finish_everywhere(ctx_, ref_, file, failure)};
    }

  private:
    const Context& ctx_;
    CheckpointRef ref_;
};

// L2 and L3 inline: the partner copy or parity of the group.
class GroupRedundancy : public LevelWork {
  public:
    GroupRedundancy(const Context& ctx, const CheckpointRef& ref) : ctx_(ctx), ref_(ref) {}

    void discard() noexcept override { discard_group_redundancy(ctx_, ref_); }

  protected:
    const Context& ctx_;
    CheckpointRef ref_;
};

// The file first, then the copy or parity read back from it.
class RedundancyFromFile final : public GroupRedundancy {
  public:
    using GroupRedundancy::GroupRedundancy;

    std::vector<FileRecord> complete(CheckpointFile& file, std::exception_ptr failure) override {
        FileRecord data = finish_everywhere(ctx_, ref_, file, failure);
        return {data, write_group_redundancy(ctx_, ref_, data, nullptr)};
    }
};

// The variables' bytes are the file's content and stay untouched until the
// commit: the copy is sent, or the parity encoded, from memory while a
// worker writes the file (the disk writes while the cores move the group's
// data), and the file is never read back.
class RedundancyFromMemory final : public GroupRedundancy {
  public:
    using GroupRedundancy::GroupRedundancy;

    void add(CheckpointFile&, int id, std::span<const std::byte> data, const std::string& name) override {
        content_.append(data);
        pending_.push_back({id, data, name});
    }
    bool keeps(int id) const override {
        return std::any_of(pending_.begin(), pending_.end(), [id](const Pending& v) { return v.id == id; });
    }

    std::vector<FileRecord> complete(CheckpointFile& file, std::exception_ptr failure) override {
        agree(ctx_.app, failure);  // every rank knows of every add() failure before the group's transfers
        // The partner checks the copy it receives against this CRC.
        FileRecord in_memory;
        in_memory.size = content_.size();
        in_memory.crc32 = redundancy_of(ctx_.levels[ref_.level].redundancy)->checks_data_crc() ? content_.crc32() : 0;
        FileRecord data;
        auto written = std::async(std::launch::async, [&] { return write_file(file, data); });
        FileRecord kept;
        std::exception_ptr redundancy_failure;
        try {
            kept = write_group_redundancy(ctx_, ref_, in_memory, &content_);
        } catch (...) {
            redundancy_failure = std::current_exception();
        }
        failure = written.get();  // the worker is done before anything is discarded
        if (!failure && redundancy_of(ctx_.levels[ref_.level].redundancy)->checks_data_crc() &&
            data.crc32 != in_memory.crc32) {
            failure = std::make_exception_ptr(
                Error(ErrorKind::corrupt, "'" + ctx_.data_path(ref_, ctx_.topo.node_id).string() +
                                              "' was written with CRC " + crc32_hex(data.crc32) +
                                              " but its partner copy with " + crc32_hex(in_memory.crc32) +
                                              "; were the protected buffers changed during FTI_Checkpoint?"));
        }
        agree(ctx_.app, failure);  // a failed file names the first cause, before its copy or parity
        if (redundancy_failure) std::rethrow_exception(redundancy_failure);  // the same on every rank
        return {data, kept};
    }

  private:
    std::exception_ptr write_file(CheckpointFile& file, FileRecord& data) noexcept {
        try {
            for (const Pending& v : pending_) file.add(v.id, v.data, v.name);
        } catch (...) {
            return std::current_exception();
        }
        std::exception_ptr failure = finish_checkpoint_file(ctx_, ref_, file, data);
        if (!failure && data.size != content_.size()) {
            failure = std::make_exception_ptr(
                Error(ErrorKind::corrupt, "'" + ctx_.data_path(ref_, ctx_.topo.node_id).string() + "' holds " +
                                              std::to_string(data.size) + " bytes where its variables hold " +
                                              std::to_string(content_.size())));
        }
        return failure;
    }

    struct Pending {
        int id;
        std::span<const std::byte> data;
        std::string name;
    };
    MemoryContent content_;
    std::vector<Pending> pending_;
};

}  // namespace

FileRecord write_group_redundancy(const Context& ctx, const CheckpointRef& ref, const FileRecord& data,
                                  const MemoryContent* content) {
    FileRecord kept;
    run_collectively(ctx.app, [&] {
        const GroupMember self = own_member(ctx.topo, ctx.group);
        kept = redundancy_of(ctx.levels[ref.level].redundancy)->write(ctx.redundancy_io(), self, ref, data, content);
    });
    return kept;
}

void discard_group_redundancy(const Context& ctx, const CheckpointRef& ref) noexcept {
    const fs::path kept = ctx.redundancy_path(ref, ctx.topo.node_id);
    if (kept.empty()) return;
    remove_file(kept);
    remove_file(fs::path(kept) += ".tmp");
}

bool level_work_from_memory(const Context& ctx, const CheckpointRef& ref, bool by_head, bool incremental) {
    return has_group_redundancy(ref.level) && !by_head && !incremental &&
           ctx.levels[ref.level].format == IoMode::posix && ctx.levels[ref.level].codec == Codec::none;
}

std::unique_ptr<LevelWork> level_work(Context& ctx, const CheckpointRef& ref, bool by_head, bool from_memory) {
    const Redundancy* redundancy = redundancy_of(ctx.levels[ref.level].redundancy);
    if (by_head || redundancy == nullptr) return std::make_unique<FileAlone>(ctx, ref);
    if (from_memory) return std::make_unique<RedundancyFromMemory>(ctx, ref);
    return std::make_unique<RedundancyFromFile>(ctx, ref);
}

}  // namespace mlckpt::core
