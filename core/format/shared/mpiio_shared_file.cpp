#include "format/shared/mpiio_shared_file.hpp"

#include "mpi/collective.hpp"

namespace mlckpt::core {

MpiioSharedFile::MpiioSharedFile(MPI_Comm comm, const SharedFileSpec& spec, std::vector<SharedTask> mine,
                                 const std::optional<TaskTable>& table)
    : SharedFile(comm, spec, std::move(mine)) {
    final_name_ = shared_file_name(spec.ckpt_id, IoMode::mpiio);
    tmp_name_ = final_name_ + ".tmp";
    // Process 0 sends each process where its tasks start: the exclusive
    // prefix sum of the sizes, in rank order.
    std::vector<std::vector<std::uint64_t>> starts_of;
    if (table) {
        std::vector<std::uint64_t> start(table->sizes.size(), 0);
        for (std::size_t r = 1; r < start.size(); ++r) start[r] = start[r - 1] + table->sizes[r - 1];
        for (const std::vector<int>& ranks : table->ranks_of) {
            starts_of.emplace_back();
            for (int r : ranks) starts_of.back().push_back(start[static_cast<std::size_t>(r)]);
        }
    }
    offsets_ = scatter_values(comm, starts_of, 0);

    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    run_collectively(comm, [&] {
        if (offsets_.size() != mine_.size()) fail(ErrorKind::mpi, "the plan of the shared MPI-IO file arrived short");
        if (rank == 0) File::create(spec_.dir, tmp_name_).close();
    });
    std::exception_ptr failure;
    try {
        // MPI_File_open takes a path, which MPI resolves on every process
        // (on other nodes too): the one write of the library by name. Rank
        // 0 created the file at that name, in the directory it opened,
        // never through a link; the directories on the way are the
        // library's (kDirectoryMode), so only their owner could swap one.
        file_.emplace(comm, spec_.dir.path_of(tmp_name_), MPI_MODE_WRONLY);
    } catch (...) {
        failure = std::current_exception();
    }
    try {
        agree(comm, failure);
    } catch (...) {
        // Some rank could not open the file: a collective close would never
        // complete, so the handles of the others are left to MPI_Finalize.
        if (file_) file_->abandon();
        spec_.dir.remove(tmp_name_);
        throw;
    }
}

MpiioSharedFile::~MpiioSharedFile() {
    if (!committed_) spec_.dir.remove(tmp_name_);
}

void MpiioSharedFile::write_at(std::size_t t, std::uint64_t pos, std::span<const std::byte> data) {
    file_->write_at(offsets_[t] + pos, data);
}

std::string MpiioSharedFile::file_name(std::size_t) const {
    return final_name_;
}

void MpiioSharedFile::commit() {
    // The ranks agree on their writes before the collective sync, so that
    // a failed checkpoint is not synced. Close is collective and made by
    // every rank, failed or not.
    try {
        agree(comm_, outcome());
    } catch (...) {
        try {
            file_->close();
        } catch (...) {
        }  // the agreed failure is the one to report
        throw;
    }
    std::exception_ptr failure;
    try {
        file_->sync();
    } catch (...) {
        failure = std::current_exception();
    }
    try {
        file_->close();
    } catch (...) {
        if (!failure) failure = std::current_exception();
    }
    if (!failure && spec_.before_commit) spec_.before_commit();
    agree(comm_, failure);
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    run_collectively(comm_, [&] {
        if (rank != 0) return;
        spec_.dir.rename(tmp_name_, final_name_);
        spec_.dir.sync();
    });
    committed_ = true;
}

}  // namespace mlckpt::core
