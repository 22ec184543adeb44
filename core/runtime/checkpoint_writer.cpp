#include "runtime/checkpoint_writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <future>

#include "format/dcp_writer.hpp"
#include "format/ftiff_writer.hpp"
#include "format/posix_format.hpp"
#include "format/slice_writer.hpp"
#include "hash/crc32.hpp"

#include "common/fault_injection.hpp"
#include "levels/redundancy.hpp"
#include "mpi/collective.hpp"
#include "store/checkpoint_store.hpp"
#include "store/shared_l4.hpp"

namespace mlckpt::core {

namespace {

// The FB's maxFs and ptFs: the largest file of the L2/L3 group (of all ranks
// without groups) and the file of the left neighbour, whose copy this rank
// keeps at L2. Collective over the application ranks.
FtiffWriter::Sizes exchange_file_sizes(const Context& ctx, std::int64_t mine) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(ctx.topo.app_size));
    allgather(&mine, all.data(), 1, MPI_INT64_T, ctx.app);
    FtiffWriter::Sizes sizes;
    if (!ctx.topo.groups_valid) {
        sizes.max_fs = *std::max_element(all.begin(), all.end());
        return sizes;
    }
    for (int r : ctx.topo.group_app_ranks) sizes.max_fs = std::max(sizes.max_fs, all[static_cast<std::size_t>(r)]);
    sizes.pt_fs = all[static_cast<std::size_t>(ctx.topo.left_app_rank)];
    return sizes;
}

// Files are written around the page cache: the cache's copy and the reclaim
// of older checkpoints' pages cost CPU time and make the write's time vary.
// The exception is a file read back right after it is written, by the
// node's head (which makes its copy, parity or L4 flush) or for the L2 copy
// or L3 parity of an incremental checkpoint (whose buffers may have changed
// since they were added): those reads find it in the cache.
WritePath posix_write_path(bool read_back) {
    return read_back ? WritePath::page_cache : WritePath::direct;
}

}  // namespace

DcpOptions dcp_options(const Context& ctx) {
    return {ctx.config.dcp_mode, static_cast<std::size_t>(ctx.config.dcp_block_size),
            static_cast<std::size_t>(ctx.cpu_share.cpus)};
}

CheckpointWriter::CheckpointWriter(Context& ctx, int ckpt_id, int level, const std::vector<Variable>& vars,
                                   const FormatState& state, bool incremental)
    : ctx_(ctx), in_place_(level == kDcpLevel) {
    // The files of retired checkpoints are gone before new ones are written:
    // the disk never holds more than before, and a file removed late (the
    // L4 differential file) never hits its successor.
    ctx.background->wait();
    ref_ = {ctx.catalog.next_seq(), level, ckpt_id};
    final_path_ = ctx.data_path(ref_, ctx.topo.node_id);
    tmp_path_ = final_path_;
    if (!in_place_) tmp_path_ += ".tmp";
    const IoMode format = file_format(ctx.config.ckpt_io, level);
    bool ftiff = format == IoMode::ftiff;
    const bool redundancy = level == 2 || level == 3;
    const bool handed_to_head = ctx.config.handed_to_head(level);
    redundancy_from_memory_ = redundancy && !handed_to_head && format == IoMode::posix && !incremental;
    const bool read_back = handed_to_head || (redundancy && !redundancy_from_memory_);
    redundancy_beside_file_ = redundancy_from_memory_;
    if (is_shared(format)) {
        open_shared(vars, incremental);
        return;
    }
    try {
        run_collectively(ctx.app, [&] {
            make_dirs(final_path_.parent_path());
            if (!ftiff) return;
            std::vector<ftiff::VariableExtent> extents;
            for (const Variable& v : vars) extents.push_back({v.id, static_cast<std::int64_t>(v.bytes())});
            ftiff_layout_ = state.layout;
            ftiff_layout_->update(extents);
        });
        FtiffWriter::Sizes sizes;
        if (ftiff) sizes = exchange_file_sizes(ctx, ftiff_layout_->file_size());
        run_collectively(ctx.app, [&] {
            if (in_place_) {
                // The baseline counts only while the file still holds it.
                // An update committed but not yet applied (its background
                // apply failed) is applied first: the baseline describes it.
                settle_dcp_journal(ctx);
                const DcpBaseline* base =
                    state.dcp.seq != 0 && ctx.catalog.contains(state.dcp.seq, kDcpLevel) ? &state.dcp : nullptr;
                auto dcp = std::make_unique<DcpWriter>(final_path_, ctx.dcp_journal_path(), ref_.seq, *ftiff_layout_,
                                                       base, dcp_options(ctx), sizes);
                dcp_ = dcp.get();
                entry_durable_ = base != nullptr;  // committed before, in this very file
                writer_ = std::move(dcp);
            } else if (ftiff) {
                writer_ = std::make_unique<FtiffWriter>(tmp_path_, *ftiff_layout_, sizes);
            } else {
                writer_ = std::make_unique<PosixWriter>(tmp_path_, posix_write_path(read_back));
            }
        });
    } catch (...) {
        discard();
        throw;
    }
}

void CheckpointWriter::open_shared(const std::vector<Variable>& vars, bool incremental) {
    SharedFileSpec spec = shared_file_spec(ctx_, ref_);
    const int rank = ctx_.rank();
    const std::uint64_t seq = ref_.seq;
    spec.before_commit = [rank, seq] { fault_point("before_shared_commit", rank, seq); };
    std::uint64_t bytes = 0;
    for (const Variable& v : vars) bytes += v.bytes();
    try {
        run_collectively(ctx_.app, [&] { make_dirs(spec.dir); });
        writer_ = std::make_unique<SliceWriter>(SharedFile::create(ctx_.app, spec, {{rank, bytes}}), !incremental);
    } catch (...) {
        discard();
        throw;
    }
}

CheckpointWriter::~CheckpointWriter() {
    if (!committed_) discard();
}

void CheckpointWriter::add(const Variable& var, const std::string& name) {
    if (failure_) return;
    try {
        if (redundancy_from_memory_) content_.append(var.data());
        if (redundancy_beside_file_) {  // written at commit, while the copy or parity is made from memory
            pending_.push_back({var.id, var.data(), name});
            return;
        }
        writer_->add(var.id, var.data(), name);
        if (in_place_) fault_point("during_dcp_update", ctx_.rank(), ref_.seq);
    } catch (...) {
        failure_ = std::current_exception();
        throw;
    }
}

bool CheckpointWriter::has(int id) const {
    if (std::any_of(pending_.begin(), pending_.end(), [id](const PendingVar& v) { return v.id == id; })) return true;
    return writer_ && writer_->has(id);
}

std::exception_ptr CheckpointWriter::finish_file() noexcept {
    try {
        for (const PendingVar& v : pending_) writer_->add(v.id, v.data, v.name);
        FileRecord mine = writer_->finish();
        if (!pending_.empty() && mine.size != content_.size()) {
            fail(ErrorKind::corrupt, "'" + tmp_path_.string() + "' holds " + std::to_string(mine.size) +
                                         " bytes where its variables hold " + std::to_string(content_.size()));
        }
        if (const ftiff::Layout* layout = writer_->ftiff_layout()) ftiff_layout_ = *layout;
        if (!writer_->collective()) {
            if (!in_place_) rename_path(tmp_path_, final_path_);
            if (!entry_durable_) sync_dir(final_path_.parent_path());
            mine.file = final_path_.filename().string();
        }
        mine.rank = ctx_.rank();
        mine.holder = ctx_.rank();
        mine.node = ctx_.topo.node_id;
        record_ = mine;
        fault_point("after_data_write", ctx_.rank(), ref_.seq);
        return nullptr;
    } catch (...) {
        return std::current_exception();
    }
}

FileRecord CheckpointWriter::write_redundancy(const FileRecord& mine) {
    FileRecord kept;
    run_collectively(ctx_.app, [&] {
        GroupMember self = own_member(ctx_.topo, ctx_.group);
        const MemoryContent* content = redundancy_from_memory_ ? &content_ : nullptr;
        kept = ref_.level == 2 ? write_partner_copy(ctx_.redundancy_io(), self, ref_, mine, content)
                               : write_parity(ctx_.redundancy_io(), self, ref_, mine, content);
    });
    return kept;
}

std::vector<FileRecord> CheckpointWriter::write_file_beside_redundancy(std::exception_ptr failure) {
    agree(ctx_.app, failure);  // every rank knows of every add() failure before the group's transfers
    // The partner checks the copy it receives against this CRC.
    FileRecord in_memory;
    in_memory.size = content_.size();
    in_memory.crc32 = ref_.level == 2 ? content_.crc32() : 0;
    auto file = std::async(std::launch::async, [this] { return finish_file(); });
    FileRecord kept;
    std::exception_ptr redundancy_failure;
    try {
        kept = write_redundancy(in_memory);
    } catch (...) {
        redundancy_failure = std::current_exception();
    }
    failure = file.get();  // the worker is done before anything is discarded
    if (!failure && ref_.level == 2 && record_.crc32 != in_memory.crc32) {
        failure = std::make_exception_ptr(Error(
            ErrorKind::corrupt, "'" + final_path_.string() + "' was written with CRC " + crc32_hex(record_.crc32) +
                                    " but its partner copy with " + crc32_hex(in_memory.crc32) +
                                    "; were the protected buffers changed during FTI_Checkpoint?"));
    }
    agree(ctx_.app, failure);  // a failed file names the first cause, before its copy or parity
    if (redundancy_failure) std::rethrow_exception(redundancy_failure);  // the same on every rank
    return {record_, kept};
}

CheckpointRef CheckpointWriter::commit(const CommitOptions& options) {
    std::exception_ptr failure = failure_;
    if (!failure && options.missing) failure = std::make_exception_ptr(Error(ErrorKind::usage, *options.missing));
    try {
        std::vector<FileRecord> records;
        if (!pending_.empty()) {
            records = write_file_beside_redundancy(failure);
        } else {
            // A shared file is finished collectively: every rank or none.
            if (writer_->collective()) agree(ctx_.app, failure);
            if (!failure) failure = finish_file();
            agree(ctx_.app, failure);
            records = {record_};
            if ((ref_.level == 2 || ref_.level == 3) && !options.deferred) records.push_back(write_redundancy(record_));
        }
        publish(ctx_, ref_, records, file_format(ctx_.config.ckpt_io, ref_.level));
    } catch (...) {
        discard();
        throw;
    }
    committed_ = true;
    if (!options.deferred) retire(ctx_, ctx_.catalog.superseded_by(ref_.level, ref_.seq));
    return ref_;
}

void CheckpointWriter::leave_to_background() {
    if (!committed_ || dcp_ == nullptr || !dcp_->journaled()) return;
    // The update is durable in its sealed journal; the file takes it while
    // the application goes on, and the next checkpoint waits for that.
    ctx_.background->run([journal = dcp_->journal_path(), file = dcp_->path(), rank = ctx_.rank(), seq = ref_.seq] {
        try {
            roll_forward(journal, file, [&] { fault_point("during_dcp_apply", rank, seq); });
        } catch (...) {
            // The journal stays: the next checkpoint applies it, or the restart.
        }
    });
}

void CheckpointWriter::update_state(FormatState& state) const {
    if (!committed_) return;
    if (ftiff_layout_) state.layout = *ftiff_layout_;
    if (dcp_ != nullptr) state.dcp = dcp_->next_baseline();
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> CheckpointWriter::dcp_bytes() const {
    if (dcp_ == nullptr) return std::nullopt;
    return std::make_pair(dcp_->bytes_written(), dcp_->bytes_protected());
}

void CheckpointWriter::discard() noexcept {
    if (in_place_) {  // the file holds the previous dCP checkpoint: never removed
        if (dcp_ != nullptr) dcp_->abandon();
        return;
    }
    if (writer_) {
        for (const fs::path& p : writer_->shared_paths()) remove_file(p);
    }
    writer_.reset();
    remove_file(tmp_path_);
    remove_file(final_path_);
    fs::path redundancy = ctx_.redundancy_path(ref_, ctx_.topo.node_id);
    if (!redundancy.empty()) {
        remove_file(redundancy);
        remove_file(fs::path(redundancy) += ".tmp");
    }
    ::rmdir(final_path_.parent_path().c_str());
}

}  // namespace mlckpt::core
