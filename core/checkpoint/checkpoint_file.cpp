#include "checkpoint/checkpoint_file.hpp"

#include <unistd.h>

#include <algorithm>

#include "common/fault_injection.hpp"
#include "format/dcp/dcp_layers.hpp"
#include "format/file_formats.hpp"
#include "format/shared/slice_writer.hpp"
#include "io/file.hpp"
#include "mpi/collective.hpp"
#include "store/checkpoint_store.hpp"
#include "store/shared_l4.hpp"

namespace mlckpt::core {

namespace {

// POSIX and FTI-FF: written as "<name>.tmp", renamed when complete, both
// in the checkpoint's directory as it was opened (`base`: the configured
// directory it lies in).
class RenamedFile final : public CheckpointFile {
  public:
    RenamedFile(std::unique_ptr<FileWriter> writer, Directory dir, std::string name, fs::path base)
        : writer_(std::move(writer)),
          dir_(std::move(dir)),
          name_(std::move(name)),
          tmp_(name_ + ".tmp"),
          base_(std::move(base)) {}

    void add(int id, std::span<const std::byte> data, const std::string& name) override {
        writer_->add(id, data, name);
    }
    bool has(int id) const override { return writer_->has(id); }
    FileRecord finish() override {
        FileRecord record = writer_->finish();
        dir_.rename(tmp_, name_);
        dir_.sync();
        record.file = name_;
        return record;
    }
    void discard() noexcept override {
        writer_.reset();
        dir_.remove(tmp_);
        dir_.remove(name_);
        remove_empty_dir(base_, dir_.path());  // what the level's work left is gone first
    }
    void update_state(FormatState& state) const override {
        if (const ftiff::Layout* layout = writer_->ftiff_layout()) state.layout = *layout;
    }

  private:
    std::unique_ptr<FileWriter> writer_;
    Directory dir_;
    std::string name_;
    std::string tmp_;
    fs::path base_;
};

// ckpt_io 2 and 4 at L4: one file (or a few) for every rank, finished
// collectively, named by the writer.
class SharedCheckpointFile final : public CheckpointFile {
  public:
    SharedCheckpointFile(std::unique_ptr<SliceWriter> writer, fs::path dir, fs::path base)
        : writer_(std::move(writer)), dir_(std::move(dir)), base_(std::move(base)) {}

    void add(int id, std::span<const std::byte> data, const std::string& name) override {
        writer_->add(id, data, name);
    }
    bool has(int id) const override { return writer_->has(id); }
    bool collective() const override { return true; }
    FileRecord finish() override { return writer_->finish(); }
    void discard() noexcept override {
        if (!writer_) return;  // discarded already
        for (const fs::path& p : writer_->shared_paths()) remove_file(p);
        writer_.reset();
        remove_empty_dir(base_, dir_);
    }
    void update_state(FormatState&) const override {}

  private:
    std::unique_ptr<SliceWriter> writer_;
    fs::path dir_;
    fs::path base_;
};

// L4 differential: the rank's one file, updated in place; an update of a
// file that holds a committed checkpoint goes through a redo journal
// (format/dcp/dcp_writer.hpp).
class DcpFile final : public CheckpointFile {
  public:
    // `entry_durable`: the file's directory entry is durable already (it
    // holds the committed baseline).
    DcpFile(std::unique_ptr<DcpWriter> writer, bool entry_durable, int rank, std::uint64_t seq)
        : writer_(std::move(writer)), entry_durable_(entry_durable), rank_(rank), seq_(seq) {}

    void add(int id, std::span<const std::byte> data, const std::string& name) override {
        writer_->add(id, data, name);
        fault_point("during_dcp_update", rank_, seq_);
    }
    bool has(int id) const override { return writer_->has(id); }
    FileRecord finish() override {
        FileRecord record = writer_->finish();
        if (!entry_durable_) writer_->dir().sync();
        record.file = writer_->name();
        return record;
    }
    void discard() noexcept override { writer_->abandon(); }
    void update_state(FormatState& state) const override {
        state.layout = *writer_->ftiff_layout();
        state.dcp = writer_->next_baseline();
    }
    void leave_to_background(BackgroundWork& background) override {
        if (!writer_->journaled()) return;
        // The update is durable in its sealed journal; the file takes it
        // while the application goes on, and the next checkpoint waits.
        background.run([dir = writer_->dir(), journal = writer_->journal_name(), file = writer_->name(), rank = rank_,
                        seq = seq_] {
            try {
                roll_forward(dir, journal, file, [&] { fault_point("during_dcp_apply", rank, seq); });
            } catch (...) {
                // The journal stays: the next checkpoint applies it, or the restart.
            }
        });
    }
    std::optional<std::pair<std::uint64_t, std::uint64_t>> dcp_bytes() const override {
        return std::make_pair(writer_->bytes_written(), writer_->bytes_protected());
    }

  private:
    std::unique_ptr<DcpWriter> writer_;
    bool entry_durable_;
    int rank_;
    std::uint64_t seq_;
};

// L4 differential with ckpt_io = 1: the rank's file is a stack of layers,
// one per dCP checkpoint, appended (format/dcp/dcp_layers.hpp). The layers
// before this one stay as they are: a failed or interrupted append leaves
// the committed ones, whatever lies past them is cut off by the next.
class DcpLayerFile final : public CheckpointFile {
  public:
    // `kept`: the layers of the file this one is appended to (empty: a new
    // file); `replaced`: the file of the stack before, when this layer
    // starts a new one, removed once the checkpoint is committed.
    DcpLayerFile(std::unique_ptr<DcpLayerWriter> writer, Directory dir, std::string name, std::vector<DcpLayer> kept,
                 std::string replaced, int rank, std::uint64_t seq)
        : writer_(std::move(writer)),
          dir_(std::move(dir)),
          name_(std::move(name)),
          layers_(std::move(kept)),
          replaced_(std::move(replaced)),
          rank_(rank),
          seq_(seq) {}

    void add(int id, std::span<const std::byte> data, const std::string& name) override {
        writer_->add(id, data, name);
        fault_point("during_dcp_update", rank_, seq_);
    }
    bool has(int id) const override { return writer_->has(id); }
    FileRecord finish() override {
        const bool created = layers_.empty();
        const DcpLayer layer = writer_->finish();
        if (created) dir_.sync();
        layers_.push_back(layer);
        FileRecord record;
        record.file = name_;
        record.size = layer.offset + layer.size;
        record.crc32 = layer.crc32;
        record.complete = true;
        record.vars = writer_->vars();
        record.layers = layers_;
        return record;
    }
    void discard() noexcept override {
        writer_->abandon();
        if (layers_.empty()) dir_.remove(name_);
    }
    void update_state(FormatState& state) const override {
        state.dcp = DcpBaseline{seq_, dir_.path_of(name_), {}, writer_->digests(), layers_};
    }
    void leave_to_background(BackgroundWork& background) override {
        if (replaced_.empty()) return;
        // The new stack is committed: the one before goes, as in FTI.
        background.run([dir = dir_, name = replaced_] { dir.remove(name); });
    }
    std::optional<std::pair<std::uint64_t, std::uint64_t>> dcp_bytes() const override {
        return std::make_pair(writer_->bytes_written(), writer_->bytes_protected());
    }

  private:
    std::unique_ptr<DcpLayerWriter> writer_;
    Directory dir_;
    std::string name_;
    std::vector<DcpLayer> layers_;
    std::string replaced_;
    int rank_;
    std::uint64_t seq_;
};

// dcp-id<stack>-rank<R>.fti, from this rank's dcp-id0-rank<R>.fti.
std::string stack_file_name(const std::string& name0, int stack) {
    return "dcp-id" + std::to_string(stack) + name0.substr(name0.find('-', 6));
}

// This rank's layered file for checkpoint `ref`: appended to the file of
// the committed baseline while its stack has room, else a new file whole,
// never over a file a committed checkpoint may still need.
std::unique_ptr<CheckpointFile> open_dcp_layer_file(Context& ctx, const CheckpointRef& ref, const Directory& dir,
                                                    const std::string& name0, const FormatState& state) {
    const DcpBaseline& base = state.dcp;
    const bool committed = base.seq != 0 && ctx.catalog.contains(base.seq, kDcpLevel);
    // The committed baseline's stack number, -1 when it has none here.
    const int base_stack = committed && base.file.parent_path().lexically_normal() == dir.path().lexically_normal()
                               ? dcp_stack_of(base.file.filename().string()).value_or(-1)
                               : -1;
    const bool ours = base_stack >= 0 && base.file.filename().string() == stack_file_name(name0, base_stack);
    const auto stack_size = static_cast<std::size_t>(std::max(ctx.config.dcp_stack_size, 1));
    std::string name;
    std::string replaced;
    std::vector<DcpLayer> kept;
    const DcpBaseline* changes_from = nullptr;
    if (ours && !base.layers.empty() && base.layers.size() < stack_size) {  // room on its stack
        name = base.file.filename().string();
        kept = base.layers;
        changes_from = &base;
    } else {
        // A new stack: after the baseline's, or after any this rank's
        // files hold (a committed checkpoint not restarted from).
        int stack = 0;
        if (ours) {
            stack = base_stack + 1;
            replaced = base.file.filename().string();
        } else {
            std::error_code ec;
            for (const auto& entry : fs::directory_iterator(dir.path(), ec)) {
                const std::string n = entry.path().filename().string();
                const std::optional<int> k = dcp_stack_of(n);
                if (k && n == stack_file_name(name0, *k)) stack = std::max(stack, *k + 1);
            }
        }
        name = stack_file_name(name0, stack);
        dir.remove(name);  // nothing committed names it
    }
    const std::uint64_t offset = kept.empty() ? 0 : kept.back().offset + kept.back().size;
    auto writer =
        std::make_unique<DcpLayerWriter>(dir, name, offset, ref.seq, ref.ckpt_id, changes_from, dcp_options(ctx));
    return std::make_unique<DcpLayerFile>(std::move(writer), dir, name, std::move(kept), std::move(replaced),
                                          ctx.rank(), ref.seq);
}

// The FB's maxFs and ptFs: the largest file of the L2/L3 group (of all ranks
// without groups) and the file of the left neighbour, whose copy this rank
// keeps at L2. Collective over the application ranks; what a rank receives
// is one size per member of its group, whatever the number of ranks.
FtiffWriter::Sizes exchange_file_sizes(const Context& ctx, std::int64_t mine) {
    FtiffWriter::Sizes sizes;
    if (!ctx.topo.groups_valid) {
        allreduce(&mine, &sizes.max_fs, 1, MPI_INT64_T, MPI_MAX, ctx.app, "the largest checkpoint file");
        return sizes;
    }
    // The group's communicator is ranked by ring position, as group_app_ranks.
    const std::size_t members = ctx.topo.group_app_ranks.size();
    std::vector<std::int64_t> group(members);
    allgather(&mine, group.data(), 1, MPI_INT64_T, ctx.group, "the sizes of the group's checkpoint files");
    sizes.max_fs = *std::max_element(group.begin(), group.end());
    const auto position = static_cast<std::size_t>(ctx.topo.group_rank);
    sizes.pt_fs = group[(position + members - 1) % members];
    return sizes;
}

// Files are written around the page cache: the cache's copy and the reclaim
// of older checkpoints' pages cost CPU time and make the write's time vary.
// A file read back right after it is written finds it in the cache.
WritePath write_path(bool read_back) {
    return read_back ? WritePath::page_cache : WritePath::direct;
}

// How the POSIX files of `level` store `vars`. Element sizes are recorded
// whenever some level compresses, so that a copy of the file to another
// level can pack it.
Packing packing_of(const Context& ctx, int level, const std::vector<Variable>& vars) {
    Packing packing;
    packing.codec = ctx.levels[level].codec;
    packing.block_bytes = static_cast<std::size_t>(ctx.config.compression_block_kb) << 10;
    if (ctx.levels.any_compressed()) {
        for (const Variable& v : vars) {
            packing.element_sizes[v.id] = v.element_size;
            if (v.error_bound > 0) packing.error_bounds[v.id] = v.error_bound;
        }
    }
    return packing;
}

std::unique_ptr<CheckpointFile> open_shared_file(Context& ctx, const CheckpointRef& ref,
                                                 const std::vector<Variable>& vars, bool incremental) {
    SharedFileSpec spec = shared_file_spec(ctx, ref);
    const int rank = ctx.rank();
    const std::uint64_t seq = ref.seq;
    spec.before_commit = [rank, seq] { fault_point("before_shared_commit", rank, seq); };
    std::uint64_t bytes = 0;
    for (const Variable& v : vars) bytes += v.bytes();
    const fs::path dir = ctx.layout.ckpt_dir(ref, 0);
    // A directory of its own goes with a failed checkpoint; the level's stays.
    const fs::path own = ref.own_dir ? dir : fs::path();
    try {
        run_collectively(ctx.app, [&] { spec.dir = ctx.layout.make_dir(dir); });
        auto writer = std::make_unique<SliceWriter>(SharedFile::create(ctx.app, spec, {{rank, bytes}}), !incremental);
        return std::make_unique<SharedCheckpointFile>(std::move(writer), own, ctx.layout.base_of(dir));
    } catch (...) {
        remove_empty_dir(ctx.layout.base_of(dir), own);
        throw;
    }
}

}  // namespace

DcpOptions dcp_options(const Context& ctx) {
    return {ctx.config.dcp_mode, static_cast<std::size_t>(ctx.config.dcp_block_size),
            static_cast<std::size_t>(ctx.cpu_share.cpus)};
}

std::unique_ptr<CheckpointFile> open_checkpoint_file(Context& ctx, const CheckpointRef& ref,
                                                     const std::vector<Variable>& vars, const FormatState& state,
                                                     bool incremental, bool read_back) {
    const FileFormat& format = file_format_of(ctx.levels[ref.level].format);
    if (format.shared) return open_shared_file(ctx, ref, vars, incremental);
    const fs::path path = ctx.data_path(ref, ctx.topo.node_id);
    const std::string name = path.filename().string();
    const bool in_place = is_differential(ref.level);
    const bool layout_needed = format.continues_layout;
    std::unique_ptr<CheckpointFile> file;
    Directory dir;
    try {
        std::optional<ftiff::Layout> layout;
        run_collectively(ctx.app, [&] {
            dir = ctx.layout.make_dir(path.parent_path());
            if (!layout_needed) return;
            std::vector<ftiff::VariableExtent> extents;
            for (const Variable& v : vars) extents.push_back({v.id, static_cast<std::int64_t>(v.bytes())});
            layout = state.layout;
            layout->update(extents);
        });
        FtiffWriter::Sizes sizes;
        if (layout_needed) sizes = exchange_file_sizes(ctx, layout->file_size());
        run_collectively(ctx.app, [&] {
            if (in_place && ctx.layout.dcp_names() == DcpNames::posix) {
                settle_dcp_journal(ctx);  // an earlier version's in-place file
                file = open_dcp_layer_file(ctx, ref, dir, name, state);
            } else if (in_place) {
                // The baseline counts only while the file still holds it,
                // under this run's name (each of DcpNames, and each rank,
                // has names of its own): a file of another ckpt_io or of an
                // earlier version (restarted from) is left as it is, and
                // this checkpoint writes a new file whole; the old one goes
                // when its checkpoint is retired. An update committed but not
                // yet applied (its background apply failed) is applied
                // first: the baseline describes it.
                settle_dcp_journal(ctx);
                const DcpBaseline* base = state.dcp.seq != 0 && state.dcp.file.filename() == name &&
                                                  ctx.catalog.contains(state.dcp.seq, kDcpLevel)
                                              ? &state.dcp
                                              : nullptr;
                auto writer = std::make_unique<DcpWriter>(dir, name, ctx.dcp_journal_path().filename().string(),
                                                          ref.seq, *layout, base, dcp_options(ctx), sizes);
                file = std::make_unique<DcpFile>(std::move(writer), base != nullptr, ctx.rank(), ref.seq);
            } else {
                WriterSetup setup{dir,   name + ".tmp", write_path(read_back),           layout ? &*layout : nullptr,
                                  sizes, state.hdf5,    packing_of(ctx, ref.level, vars)};
                file = std::make_unique<RenamedFile>(format.create_writer(setup), dir, name,
                                                     ctx.layout.base_of(path.parent_path()));
            }
        });
    } catch (...) {
        if (file) {
            file->discard();
        } else if (!in_place) {
            dir.remove(name + ".tmp");
            remove_empty_dir(ctx.layout.base_of(path.parent_path()), path.parent_path());
        }
        throw;
    }
    return file;
}

std::exception_ptr finish_checkpoint_file(const Context& ctx, const CheckpointRef& ref, CheckpointFile& file,
                                          FileRecord& record) noexcept {
    try {
        record = file.finish();
        record.rank = ctx.rank();
        record.holder = ctx.rank();
        record.node = ctx.topo.node_id;
        fault_point("after_data_write", ctx.rank(), ref.seq);
        return nullptr;
    } catch (...) {
        return std::current_exception();
    }
}

}  // namespace mlckpt::core
