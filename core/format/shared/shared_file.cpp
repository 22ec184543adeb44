#include "format/shared/shared_file.hpp"

#include <algorithm>
#include <cstdio>

#include "common/error.hpp"
#include "format/shared/container_shared_file.hpp"
#include "format/shared/mpiio_shared_file.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core {

std::string shared_file_name(int ckpt_id, IoMode io, int number) {
    std::string name = "Ckpt" + std::to_string(ckpt_id) + (io == IoMode::mpiio ? "-mpiio.fti" : "-sionlib.fti");
    if (number == 0) return name;
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, ".%06d", number);
    return name + suffix;
}

std::vector<std::string> shared_file_names(int ckpt_id, int files) {
    std::vector<std::string> names{shared_file_name(ckpt_id, IoMode::mpiio)};
    for (int f = 0; f < files; ++f) names.push_back(shared_file_name(ckpt_id, IoMode::container, f));
    return names;
}

std::span<const std::byte> SpanStream::next(std::size_t max) {
    if (index_ == pieces_.size()) return {};
    std::span<const std::byte> piece = pieces_[index_];
    std::size_t n = std::min(max, piece.size() - pos_);
    std::span<const std::byte> out = piece.subspan(pos_, n);
    pos_ += n;
    if (pos_ == piece.size()) {
        ++index_;
        pos_ = 0;
    }
    return out;
}

SharedFile::SharedFile(MPI_Comm comm, const SharedFileSpec& spec, std::vector<SharedTask> mine)
    : comm_(comm), spec_(spec), mine_(std::move(mine)), written_(mine_.size(), 0) {}

std::unique_ptr<SharedFile> SharedFile::create(MPI_Comm comm, const SharedFileSpec& spec,
                                               const std::vector<SharedTask>& mine) {
    std::optional<TaskTable> table = gather_tasks(comm, spec.ranks, mine);
    if (spec.io == IoMode::mpiio) return std::make_unique<MpiioSharedFile>(comm, spec, mine, table);
    return std::make_unique<ContainerSharedFile>(comm, spec, mine, table);
}

void SharedFile::write(std::size_t t, std::uint64_t pos, std::span<const std::byte> data) {
    if (failure_) return;
    try {
        if (pos + data.size() > mine_.at(t).size) {
            fail(ErrorKind::usage, "rank " + std::to_string(mine_[t].rank) + " writes bytes " + std::to_string(pos) +
                                       ".." + std::to_string(pos + data.size()) + " of a checkpoint of " +
                                       std::to_string(mine_[t].size) + " bytes");
        }
        write_at(t, pos, data);
        written_[t] += data.size();
    } catch (...) {
        remember(std::current_exception());
    }
}

void SharedFile::write_streams(const std::vector<ByteStream*>& streams) {
    for (std::size_t t = 0; t < streams.size() && !failure_; ++t) {
        std::uint64_t pos = 0;
        try {
            for (auto piece = streams[t]->next(spec_.piece_bytes); !piece.empty() && !failure_;
                 piece = streams[t]->next(spec_.piece_bytes)) {
                write(t, pos, piece);
                pos += piece.size();
            }
        } catch (...) {
            remember(std::current_exception());  // the stream's own failure: a source it cannot read
        }
    }
}

void SharedFile::remember(std::exception_ptr failure) {
    if (!failure_) failure_ = std::move(failure);
}

std::exception_ptr SharedFile::outcome() const {
    if (failure_) return failure_;
    for (std::size_t t = 0; t < mine_.size(); ++t) {
        if (written_[t] != mine_[t].size) {
            return std::make_exception_ptr(Error(
                ErrorKind::usage, "rank " + std::to_string(mine_[t].rank) + " wrote " + std::to_string(written_[t]) +
                                      " of the " + std::to_string(mine_[t].size) + " bytes of its checkpoint"));
        }
    }
    return nullptr;
}

namespace {

TaskTable check_tasks(const std::vector<std::vector<std::uint64_t>>& pairs_of, int ranks) {
    TaskTable table{std::vector<std::uint64_t>(static_cast<std::size_t>(ranks), 0),
                    std::vector<std::vector<int>>(pairs_of.size())};
    std::vector<bool> seen(static_cast<std::size_t>(ranks), false);
    for (std::size_t p = 0; p < pairs_of.size(); ++p) {
        const std::vector<std::uint64_t>& pairs = pairs_of[p];
        for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
            const auto rank = static_cast<std::int64_t>(pairs[i]);
            if (rank < 0 || rank >= ranks || seen[static_cast<std::size_t>(rank)]) {
                fail(ErrorKind::usage, "shared checkpoint file: task of rank " + std::to_string(rank) +
                                           " is out of range or written twice");
            }
            seen[static_cast<std::size_t>(rank)] = true;
            table.sizes[static_cast<std::size_t>(rank)] = pairs[i + 1];
            table.ranks_of[p].push_back(static_cast<int>(rank));
        }
    }
    for (int r = 0; r < ranks; ++r) {
        if (!seen[static_cast<std::size_t>(r)]) {
            fail(ErrorKind::usage, "shared checkpoint file: no process writes rank " + std::to_string(r));
        }
    }
    return table;
}

}  // namespace

std::optional<TaskTable> gather_tasks(MPI_Comm comm, int ranks, const std::vector<SharedTask>& mine) {
    std::vector<std::uint64_t> pairs;
    for (const SharedTask& t : mine) {
        pairs.push_back(static_cast<std::uint64_t>(t.rank));
        pairs.push_back(t.size);
    }
    std::vector<std::vector<std::uint64_t>> pairs_of = gather_values(comm, pairs, 0);
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::optional<TaskTable> table;
    run_collectively(comm, [&] {
        if (rank == 0) table = check_tasks(pairs_of, ranks);
    });
    return table;
}

}  // namespace mlckpt::core
