#include "format/posix/posix_format.hpp"

#include <future>
#include <vector>

#include "common/error.hpp"
#include "compress/packed_frame.hpp"
#include "format/data_extents.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {

PosixWriter::PosixWriter(File file, WritePath path_kind, Packing packing)
    : file_(std::move(file)), path_kind_(path_kind), packing_(std::move(packing)) {
    record_.file = file_.path().filename().string();
}

VarRecord describe_var(int id, std::uint64_t offset, std::uint64_t size, std::uint32_t crc, const std::string& name) {
    VarRecord var;
    var.id = id;
    var.offset = offset;
    var.size = size;
    var.crc32 = crc;
    var.name = name;
    return var;
}

namespace {

// Writes a variable's bytes at increasing offsets, gathered a few MiB at a
// time. A full batch is written by a worker while the caller compresses
// the next one into the other.
class GatheredOutput {
  public:
    GatheredOutput(File& file, std::uint64_t at) : file_(file), at_(at) {}
    // A write in flight ends before the buffers go (the caller removes an
    // unfinished file).
    ~GatheredOutput() {
        if (writing_.valid()) writing_.wait();
    }

    void append(std::span<const std::byte> piece) {
        written_ += piece.size();
        while (!piece.empty()) {
            std::vector<std::byte>& batch = batches_[current_];
            const std::size_t n = std::min(piece.size(), kGather - batch.size());
            batch.insert(batch.end(), piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(n));
            piece = piece.subspan(n);
            if (batch.size() == kGather) submit();
        }
    }
    // Writes what is left and waits for every write.
    void flush() {
        submit();
        if (writing_.valid()) writing_.get();
    }
    std::uint64_t written() const { return written_; }

  private:
    void submit() {
        if (writing_.valid()) writing_.get();  // the other batch is on its way to the disk first
        std::vector<std::byte>& batch = batches_[current_];
        if (batch.empty()) return;
        const std::size_t bytes = batch.size();  // the worker empties the batch
        writing_ = std::async(std::launch::async, [this, &batch, at = at_] {
            file_.write_all_at(batch, at);
            file_.start_writeback(at, batch.size());
            batch.clear();
        });
        at_ += bytes;
        current_ = 1 - current_;
    }

    static constexpr std::size_t kGather = std::size_t{8} << 20;
    File& file_;
    std::uint64_t at_;
    std::vector<std::byte> batches_[2];
    int current_ = 0;
    std::future<void> writing_;
    std::uint64_t written_ = 0;
};

}  // namespace

std::uint32_t PosixWriter::element_size_of(int id) const {
    const auto it = packing_.element_sizes.find(id);
    return it == packing_.element_sizes.end() ? 0 : static_cast<std::uint32_t>(it->second);
}

bool PosixWriter::packs(std::uint64_t size) const {
    return packing_.codec != Codec::none && size >= kMinPackedBytes;
}

void PosixWriter::add(int id, std::span<const std::byte> data, const std::string& name) {
    if (packs(data.size())) {
        add_pieces(id, data.size(), name, [&](const PieceSink& sink) { sink(data); });
        return;
    }
    Crc32 crc;
    write_overlapped(
        file_, record_.size, data, [&](std::span<const std::byte> piece) { crc.update(piece); }, path_kind_);
    VarRecord var = describe_var(id, record_.size, data.size(), crc.value(), name);
    var.elem = element_size_of(id);
    file_crc_ = crc32_combine(file_crc_, var.crc32, data.size());  // no second pass over the data
    record_.size += data.size();
    record_.vars.push_back(std::move(var));
}

void PosixWriter::add_pieces(int id, std::uint64_t size, const std::string& name, const PieceProducer& produce) {
    VarRecord var = describe_var(id, record_.size, size, 0, name);
    var.elem = element_size_of(id);
    GatheredOutput out(file_, var.offset);
    std::uint64_t produced = 0;
    std::uint32_t written_crc = 0;  // of the bytes in the file
    if (packs(size)) {
        const auto bound = packing_.error_bounds.find(id);
        const bool lossy =
            bound != packing_.error_bounds.end() && bound->second > 0 && (var.elem == 4 || var.elem == 8);
        PackedEncoder encoder(
            lossy ? Codec::zfp : packing_.codec, shuffle_unit(var.elem), packing_.block_bytes, codec_threads(),
            [&](std::span<const std::byte> piece) { out.append(piece); }, lossy ? bound->second : 0);
        produce([&](std::span<const std::byte> piece) {
            produced += piece.size();
            encoder.feed(piece);
        });
        encoder.finish();
        var.crc32 = encoder.raw_crc();
        var.stored = encoder.frame_bytes();
        written_crc = encoder.frame_crc();
    } else {
        Crc32 raw;
        produce([&](std::span<const std::byte> piece) {
            produced += piece.size();
            raw.update(piece);
            out.append(piece);
        });
        var.crc32 = raw.value();
        written_crc = var.crc32;
    }
    out.flush();
    if (produced != size) {
        fail(ErrorKind::corrupt, "variable " + std::to_string(id) + " of '" + file_.path().string() +
                                     "': " + std::to_string(produced) + " bytes arrived for " + std::to_string(size));
    }
    file_crc_ = crc32_combine(file_crc_, written_crc, out.written());
    record_.size += out.written();
    record_.vars.push_back(std::move(var));
}

FileRecord PosixWriter::finish() {
    file_.sync();
    file_.close();
    record_.crc32 = file_crc_;
    record_.complete = true;
    return record_;
}

void read_posix_var(const File& file, const VarRecord& var, std::span<std::byte> out) {
    read_checked_var(file, {{0, var.offset + var.stored_bytes()}}, var, out);
}

void check_recorded_size(const fs::path& path, std::uint64_t size, const FileRecord& record) {
    if (size != record.size) {
        fail(Damage::size, "checkpoint file '" + path.string() + "' has " + std::to_string(size) +
                               " bytes, its metadata says " + std::to_string(record.size) +
                               (size < record.size ? " (truncated)" : ""));
    }
}

std::uint32_t crc32_of_file(const fs::path& path, std::size_t buffer_bytes) {
    File file = File::open_read(path);
    return crc32_of_extents(file, {{0, file.size()}}, buffer_bytes);
}

void verify_posix_file(const fs::path& path, const FileRecord& record, std::size_t buffer_bytes) {
    check_recorded_size(path, File::open_read(path).size(), record);
    std::uint32_t crc = crc32_of_file(path, buffer_bytes);
    if (crc != record.crc32) {
        fail(Damage::checksum, "checkpoint file '" + path.string() + "' fails its checksum (stored " +
                                   crc32_hex(record.crc32) + ", computed " + crc32_hex(crc) + ")");
    }
}

}  // namespace mlckpt::core
