// ckpt_io = 4: the block-aligned multi-task container (docs/formats.md).
// The first task's process of each physical file creates it and writes
// META1; every process then writes its tasks' chunks with its own file
// descriptor, at block-aligned offsets; META2 (and, in file 0, the task
// mapping) is written at commit. Process 0 alone sees every task: it sends
// each process its offsets and each owner the sizes of its file's tasks.
#pragma once

#include <map>

#include "format/shared/container_layout.hpp"
#include "format/shared/shared_file.hpp"
#include "io/direct_writer.hpp"

namespace mlckpt::core {

class ContainerSharedFile final : public SharedFile {
  public:
    // Collective; all ranks throw if any failed.
    ContainerSharedFile(MPI_Comm comm, const SharedFileSpec& spec, std::vector<SharedTask> mine,
                        const std::optional<TaskTable>& table);
    ~ContainerSharedFile() override;

    void commit() override;
    std::string file_name(std::size_t t) const override;
    std::uint64_t offset(std::size_t t) const override { return offsets_.at(t); }
    std::vector<fs::path> paths() const override;

  private:
    void write_at(std::size_t t, std::uint64_t pos, std::span<const std::byte> data) override;
    bool owns(int file) const { return headers_.count(file) != 0; }
    std::string final_name(int file) const;
    std::string tmp_name(int file) const;
    void write_tails();

    std::vector<int> file_of_;            // per task of mine_
    std::vector<std::uint64_t> offsets_;  // per task of mine_: its chunk
    // The files this process owns: it writes their first task, so it
    // creates them and writes META1 and META2.
    std::map<int, container::Header> headers_;
    std::map<int, File> open_;  // their descriptors until commit
    // The chunks go around the page cache (created at the first write to a
    // file; gone before open_ closes): per-rank regions are block-aligned,
    // and buffered writes of all ranks into one file contend in the kernel.
    std::map<int, DirectWriter> direct_;
};

}  // namespace mlckpt::core
