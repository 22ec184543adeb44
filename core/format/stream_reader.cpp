#include "format/stream_reader.hpp"

#include "common/error.hpp"
#include "format/data_extents.hpp"
#include "format/posix/posix_format.hpp"
#include "format/shared/container_layout.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {

namespace {

Extents whole_file(const File& file, const FileRecord& record) {
    check_recorded_size(file.path(), file.size(), record);
    return {{0, record.size}};
}

Extents mpiio_slice(const File& file, const FileRecord& record) {
    std::uint64_t size = file.size();
    if (size < record.offset + record.size) {
        fail(Damage::size, "checkpoint file '" + file.path().string() + "' has " + std::to_string(size) +
                               " bytes; the slice of rank " + std::to_string(record.rank) + " ends at " +
                               std::to_string(record.offset + record.size) + " (truncated)");
    }
    return {{record.offset, record.size}};
}

Extents container_task(const File& file, const FileRecord& record) {
    if (record.offset != 0) {
        if (auto extents = container::read_task_extents(file, record.rank, record.offset, record.size)) {
            return *extents;
        }
    }
    container::ContainerFile c = container::read_container(file);
    int task = c.task_of(record.rank);
    if (task < 0) {
        fail(ErrorKind::corrupt,
             "container '" + file.path().string() + "' has no task for rank " + std::to_string(record.rank));
    }
    Extents extents = c.extents_of(static_cast<std::size_t>(task));
    if (total_length(extents) != record.size) {
        fail(ErrorKind::corrupt, "container '" + file.path().string() + "' holds " +
                                     std::to_string(total_length(extents)) + " bytes of rank " +
                                     std::to_string(record.rank) + ", its metadata says " +
                                     std::to_string(record.size));
    }
    return extents;
}

// The rank's bytes, wherever the file has them.
class StreamReader final : public CheckpointReader {
  public:
    StreamReader(File file, Extents extents) : file_(std::move(file)), extents_(std::move(extents)) {}

    void read(const VarRecord& var, std::span<std::byte> out) const override {
        read_checked_var(file_, extents_, var, out);
    }

  private:
    File file_;
    Extents extents_;
};

void verify_stream_crc(const File& file, const Extents& extents, const FileRecord& record, std::size_t buffer_bytes) {
    std::uint32_t crc = crc32_of_extents(file, extents, buffer_bytes);
    if (crc != record.crc32) {
        fail(Damage::checksum, "checkpoint file '" + file.path().string() + "': the data of rank " +
                                   std::to_string(record.rank) + " fails its checksum (stored " +
                                   crc32_hex(record.crc32) + ", computed " + crc32_hex(crc) + ")");
    }
}

}  // namespace

std::unique_ptr<CheckpointReader> open_posix_reader(const fs::path& path, const FileRecord& record, DataWhere) {
    File file = File::open_read(path);
    Extents extents = whole_file(file, record);
    return std::make_unique<StreamReader>(std::move(file), std::move(extents));
}

std::unique_ptr<CheckpointReader> open_mpiio_reader(const fs::path& path, const FileRecord& record, DataWhere) {
    File file = File::open_read(path);
    Extents extents = mpiio_slice(file, record);
    return std::make_unique<StreamReader>(std::move(file), std::move(extents));
}

std::unique_ptr<CheckpointReader> open_container_reader(const fs::path& path, const FileRecord& record, DataWhere) {
    File file = File::open_read(path);
    Extents extents = container_task(file, record);
    return std::make_unique<StreamReader>(std::move(file), std::move(extents));
}

void verify_mpiio_data(const fs::path& path, const FileRecord& record, std::size_t buffer_bytes) {
    File file = File::open_read(path);
    verify_stream_crc(file, mpiio_slice(file, record), record, buffer_bytes);
}

void verify_container_data(const fs::path& path, const FileRecord& record, std::size_t buffer_bytes) {
    File file = File::open_read(path);
    verify_stream_crc(file, container_task(file, record), record, buffer_bytes);
}

}  // namespace mlckpt::core
