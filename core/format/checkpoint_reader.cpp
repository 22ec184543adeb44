#include "format/checkpoint_reader.hpp"

#include "common/error.hpp"
#include "format/container_layout.hpp"
#include "format/ftiff_file.hpp"
#include "format/posix_format.hpp"
#include "hash/crc32.hpp"
#include "mpi/collective.hpp"
#include "mpi/mpi_file.hpp"

namespace mlckpt::core {

namespace {

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

}  // namespace

Extents rank_extents(const File& file, IoMode io, const FileRecord& record) {
    if (io == IoMode::container) {
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
    std::uint64_t size = file.size();
    if (io == IoMode::mpiio) {
        if (size < record.offset + record.size) {
            fail(ErrorKind::corrupt, "checkpoint file '" + file.path().string() + "' has " + std::to_string(size) +
                                         " bytes; the slice of rank " + std::to_string(record.rank) + " ends at " +
                                         std::to_string(record.offset + record.size) + " (truncated)");
        }
        return {{record.offset, record.size}};
    }
    check_recorded_size(file.path(), size, record);
    return {{0, size}};
}

CheckpointReader::CheckpointReader(const fs::path& path, IoMode io, const FileRecord& record)
    : file_(File::open_read(path)), io_(io) {
    if (io == IoMode::ftiff) {
        layout_ = ftiff::read_structure(file_).layout;
    } else {
        extents_ = rank_extents(file_, io, record);
    }
}

void CheckpointReader::read(const VarRecord& var, std::span<std::byte> out) const {
    if (layout_) {
        ftiff::read_variable(file_, *layout_, var.id, out);
    } else {
        read_checked_var(file_, extents_, var, out);
    }
}

void CheckpointReader::read_all(const std::vector<Target>& targets, MPI_Comm comm, std::size_t piece_bytes) const {
    if (io_ != IoMode::mpiio) {
        for (const Target& t : targets) read(*t.var, t.out);
        return;
    }
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

void verify_checkpoint_file(const fs::path& path, const FileRecord& record, IoMode io, std::size_t buffer_bytes) {
    if (record.type == "PARITY" || io == IoMode::posix) {
        verify_posix_file(path, record, buffer_bytes);
        return;
    }
    File file = File::open_read(path);
    if (io == IoMode::ftiff) {
        check_recorded_size(path, file.size(), record);
        ftiff::verify_chunks(file, ftiff::read_structure(file).layout, buffer_bytes);
        return;
    }
    std::uint32_t crc = crc32_of_extents(file, rank_extents(file, io, record), buffer_bytes);
    if (crc != record.crc32) {
        fail(ErrorKind::corrupt, "checkpoint file '" + path.string() + "': the data of rank " +
                                     std::to_string(record.rank) + " fails its checksum (stored " +
                                     crc32_hex(record.crc32) + ", computed " + crc32_hex(crc) + ")");
    }
}

}  // namespace mlckpt::core
