#include "format/stream_reader.hpp"

#include <algorithm>
#include <exception>
#include <optional>

#include "common/error.hpp"
#include "format/container_layout.hpp"
#include "format/data_extents.hpp"
#include "format/posix_format.hpp"
#include "hash/crc32.hpp"
#include "mpi/collective.hpp"
#include "mpi/mpi_file.hpp"

namespace mlckpt::core {

namespace {

Extents whole_file(const File& file, const FileRecord& record) {
    check_recorded_size(file.path(), file.size(), record);
    return {{0, record.size}};
}

Extents mpiio_slice(const File& file, const FileRecord& record) {
    std::uint64_t size = file.size();
    if (size < record.offset + record.size) {
        fail(ErrorKind::corrupt, "checkpoint file '" + file.path().string() + "' has " + std::to_string(size) +
                                     " bytes; the slice of rank " + std::to_string(record.rank) + " ends at " +
                                     std::to_string(record.offset + record.size) + " (truncated)");
    }
    return {{record.offset, record.size}};
}

Extents container_task(const File& file, const FileRecord& record) {
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
class StreamReader : public CheckpointReader {
  public:
    StreamReader(File file, Extents extents) : file_(std::move(file)), extents_(std::move(extents)) {}

    void read(const VarRecord& var, std::span<std::byte> out) const override {
        read_checked_var(file_, extents_, var, out);
    }

  protected:
    File file_;
    Extents extents_;
};

struct Piece {
    std::uint64_t offset;
    std::span<std::byte> out;
};

// The file pieces behind `targets`, cut to at most `piece_bytes` each.
std::vector<Piece> pieces_of(const Extents& extents, const std::vector<CheckpointReader::Target>& targets,
                             std::size_t piece_bytes) {
    std::vector<Piece> pieces;
    for (const CheckpointReader::Target& t : targets) {
        if (t.out.size() != t.var->size) {
            fail(ErrorKind::usage, "variable " + std::to_string(t.var->id) + ": buffer of " +
                                       std::to_string(t.out.size()) + " bytes for " + std::to_string(t.var->size) +
                                       " stored bytes");
        }
        std::size_t done = 0;
        for (const Extent& e : sub_extents(extents, t.var->offset, t.var->size)) {
            for (std::uint64_t pos = 0; pos < e.length;) {
                auto n = static_cast<std::size_t>(std::min<std::uint64_t>(piece_bytes, e.length - pos));
                pieces.push_back({e.offset + pos, t.out.subspan(done, n)});
                pos += n;
                done += n;
            }
        }
    }
    return pieces;
}

// A slice of the shared MPI-IO file: read_all opens and closes the file
// collectively over `comm` and reads with independent calls.
class MpiioSliceReader final : public StreamReader {
  public:
    using StreamReader::StreamReader;

    void read_all(const std::vector<Target>& targets, MPI_Comm comm, std::size_t piece_bytes) const override {
        std::exception_ptr failure;
        std::vector<Piece> pieces;
        try {
            pieces = pieces_of(extents_, targets, piece_bytes);
        } catch (...) {
            failure = std::current_exception();
        }
        std::optional<MpiFile> mpi;
        std::exception_ptr open_failure;
        try {
            mpi.emplace(comm, file_.path(), MPI_MODE_RDONLY);
        } catch (...) {
            open_failure = std::current_exception();
        }
        try {
            agree(comm, open_failure);
        } catch (...) {
            if (mpi) mpi->abandon();  // a collective close would never complete
            throw;
        }
        try {
            if (!failure) {
                for (const Piece& p : pieces) mpi->read_at(p.offset, p.out);
            }
        } catch (...) {
            failure = std::current_exception();
        }
        try {
            mpi->close();
        } catch (...) {
            if (!failure) failure = std::current_exception();
        }
        if (failure) std::rethrow_exception(failure);
        for (const Target& t : targets) check_var_crc(file_, *t.var, t.out);
    }
};

void verify_stream_crc(const File& file, const Extents& extents, const FileRecord& record, std::size_t buffer_bytes) {
    std::uint32_t crc = crc32_of_extents(file, extents, buffer_bytes);
    if (crc != record.crc32) {
        fail(ErrorKind::corrupt, "checkpoint file '" + file.path().string() + "': the data of rank " +
                                     std::to_string(record.rank) + " fails its checksum (stored " +
                                     crc32_hex(record.crc32) + ", computed " + crc32_hex(crc) + ")");
    }
}

}  // namespace

std::unique_ptr<CheckpointReader> open_posix_reader(const fs::path& path, const FileRecord& record) {
    File file = File::open_read(path);
    Extents extents = whole_file(file, record);
    return std::make_unique<StreamReader>(std::move(file), std::move(extents));
}

std::unique_ptr<CheckpointReader> open_mpiio_reader(const fs::path& path, const FileRecord& record) {
    File file = File::open_read(path);
    Extents extents = mpiio_slice(file, record);
    return std::make_unique<MpiioSliceReader>(std::move(file), std::move(extents));
}

std::unique_ptr<CheckpointReader> open_container_reader(const fs::path& path, const FileRecord& record) {
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
