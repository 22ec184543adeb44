#include "store/shared_l4.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "common/fault_injection.hpp"
#include "hash/crc32.hpp"
#include "io/buffer_pool.hpp"
#include "io/file.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

// A per-rank file read piece by piece, whose size and CRC-32 must match its
// record by the end.
class VerifiedFileStream final : public ByteStream {
  public:
    VerifiedFileStream(const fs::path& path, const FileRecord& record, std::size_t buffer_bytes)
        : file_(File::open_read(path)), record_(record), buffer_(take_buffer(buffer_bytes)) {
        std::uint64_t size = file_.size();
        if (size != record.size) {
            fail(ErrorKind::corrupt, "cannot copy '" + path.string() + "' to L4: it has " + std::to_string(size) +
                                         " bytes, its metadata says " + std::to_string(record.size));
        }
    }

    std::span<const std::byte> next(std::size_t max) override {
        if (pos_ == record_.size) {
            if (crc_.value() != record_.crc32) {
                fail(Damage::checksum, "cannot copy '" + file_.path().string() + "' to L4: it fails its checksum");
            }
            return {};
        }
        auto n = static_cast<std::size_t>(std::min<std::uint64_t>({max, buffer_.size(), record_.size - pos_}));
        std::span<std::byte> piece(buffer_.data(), n);
        file_.read_exact_at(piece, pos_);
        crc_.update(piece);
        pos_ += n;
        return piece;
    }

  private:
    File file_;
    const FileRecord& record_;
    PooledBuffer buffer_;
    Crc32 crc_;
    std::uint64_t pos_ = 0;
};

}  // namespace

std::size_t mpiio_piece_bytes(const Config& config) {
    return std::min<std::size_t>(static_cast<std::size_t>(config.transfer_size_mb) << 20, std::size_t{1} << 30);
}

SharedFileSpec shared_file_spec(const Context& ctx, const CheckpointRef& ref) {
    SharedFileSpec spec;
    spec.io = ctx.config.ckpt_io;
    spec.ckpt_id = ref.ckpt_id;
    spec.ranks = ctx.topo.app_size;
    spec.piece_bytes = mpiio_piece_bytes(ctx.config);
    spec.block_size = ctx.container_block_size;
    spec.files = ctx.config.container_files;
    return spec;
}

std::vector<FileRecord> flush_into_shared_file(const Context& ctx, MPI_Comm comm, const CheckpointRef& target,
                                               const std::vector<std::pair<FileRecord, fs::path>>& sources) {
    SharedFileSpec spec = shared_file_spec(ctx, target);
    std::vector<SharedTask> tasks;
    for (const auto& [record, path] : sources) tasks.push_back({record.rank, record.size});
    spec.before_commit = [tasks, seq = target.seq] {
        for (const SharedTask& t : tasks) fault_point("before_shared_commit", t.rank, seq);
    };
    run_collectively(comm, [&] { spec.dir = ctx.layout.make_dir(ctx.layout.ckpt_dir(target, 0)); });
    std::unique_ptr<SharedFile> file = SharedFile::create(comm, spec, tasks);

    std::vector<std::unique_ptr<VerifiedFileStream>> streams;
    std::vector<ByteStream*> raw;
    try {
        for (const auto& [record, path] : sources) {
            streams.push_back(std::make_unique<VerifiedFileStream>(path, record, ctx.io_buffer_bytes()));
            raw.push_back(streams.back().get());
        }
    } catch (...) {
        file->remember(std::current_exception());  // this rank writes nothing; commit() reports why
        raw.clear();
    }
    file->write_streams(raw);
    file->commit();
    std::vector<FileRecord> out;
    for (std::size_t t = 0; t < sources.size(); ++t) {
        FileRecord r = sources[t].first;
        r.file = file->file_name(t);
        r.offset = file->offset(t);
        out.push_back(std::move(r));
    }
    return out;
}

std::int32_t file_system_block_size(const fs::path& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || st.st_blksize <= 0) return 4096;
    std::int64_t size = 512;
    while (size * 2 <= st.st_blksize && size < (std::int64_t{1} << 30)) size *= 2;
    return static_cast<std::int32_t>(size);
}

}  // namespace mlckpt::core
