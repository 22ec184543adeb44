// ckpt_io = 2: one file, each rank's data at the exclusive prefix sum of
// the ranks' sizes, written with independent MPI-IO calls (docs/formats.md).
#pragma once

#include <optional>

#include "format/shared/shared_file.hpp"
#include "mpi/mpi_file.hpp"

namespace mlckpt::core {

class MpiioSharedFile final : public SharedFile {
  public:
    // Collective: rank 0 of `comm` creates the file, then every process
    // opens it; all ranks throw if any failed.
    MpiioSharedFile(MPI_Comm comm, const SharedFileSpec& spec, std::vector<SharedTask> mine,
                    const std::optional<TaskTable>& table);
    ~MpiioSharedFile() override;

    void commit() override;
    std::string file_name(std::size_t t) const override;
    std::uint64_t offset(std::size_t t) const override { return offsets_.at(t); }
    std::vector<fs::path> paths() const override { return {spec_.dir.path_of(final_name_)}; }

  private:
    void write_at(std::size_t t, std::uint64_t pos, std::span<const std::byte> data) override;

    std::string final_name_;
    std::string tmp_name_;
    std::vector<std::uint64_t> offsets_;  // per task of mine_
    std::optional<MpiFile> file_;
};

}  // namespace mlckpt::core
