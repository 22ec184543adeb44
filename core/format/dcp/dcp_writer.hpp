// L4 differential checkpoints (FTI_L4_DCP): one FTI-FF file per rank that
// successive dCP checkpoints update in place. Every variable is cut into
// dcp_block_size blocks whose digests (MD5 or CRC-32) are kept from the last
// dCP checkpoint; only blocks whose digest changed are rewritten. An update
// of an existing file goes whole into a redo journal first, applied to the
// file only once the checkpoint is committed: a crash or a failure before
// the commit leaves the file as the checkpoint its metadata describes, and
// one after it is completed from the journal. The file is FTI-FF version 2:
// its chunk hashes are made from the CRC-32s of dcp_block_size blocks, so an
// update hashes at CRC speed, in the same pass that finds the changed blocks.
#pragma once

#include <filesystem>
#include <map>
#include <optional>

#include "format/dcp/redo_journal.hpp"
#include "format/file_writer.hpp"
#include "format/ftiff/ftiff_file.hpp"
#include "format/ftiff/ftiff_writer.hpp"
#include "format/io_mode.hpp"

namespace mlckpt::core {

// What the dCP file on disk holds, as of its last committed update.
struct DcpBaseline {
    std::uint64_t seq = 0;                           // that checkpoint's sequence number; 0: none
    std::filesystem::path file;                      // the file
    ftiff::Layout layout;                            // the file's layout
    std::map<int, std::vector<ftiff::Md5>> digests;  // block digests by variable id
    std::vector<DcpLayer> layers;                    // a layered file (ckpt_io = 1): its layers, oldest first
};

// The block digests that `baseline` (if any) holds of variable `id`; null
// when there is none: every block of the variable counts as changed.
inline const std::vector<ftiff::Md5>* baseline_digests(const std::optional<DcpBaseline>& baseline, int id) {
    if (!baseline) return nullptr;
    auto it = baseline->digests.find(id);
    return it == baseline->digests.end() ? nullptr : &it->second;
}

struct DcpOptions {
    DcpMode mode = DcpMode::md5;
    std::size_t block_size = 16384;
    std::size_t threads = 1;  // for the pass over every block (CPUs the rank has to itself)
};

class DcpWriter final : public FileWriter {
  public:
    // Opens (or creates) file `name` in `dir` for checkpoint `seq`. Without
    // a `baseline` that describes the file, every block counts as changed. A
    // file that holds nothing yet is written directly; an existing one
    // through the journal `journal` beside it.
    DcpWriter(const Directory& dir, const std::string& name, const std::string& journal, std::uint64_t seq,
              ftiff::Layout layout, const DcpBaseline* baseline, DcpOptions options, FtiffWriter::Sizes sizes);

    void add(int id, std::span<const std::byte> data, const std::string& name) override;
    bool has(int id) const override { return writer_.has(id); }
    // The update is durable when this returns: in the file, or in the sealed journal.
    FileRecord finish() override;
    const ftiff::Layout* ftiff_layout() const override { return &writer_.layout(); }

    // After the metadata commit: whether the sealed journal is left to apply
    // to the file (roll_forward), which the caller does in the background.
    bool journaled() const { return journal_.has_value(); }
    const Directory& dir() const { return dir_; }
    const std::string& name() const { return name_; }
    const std::string& journal_name() const { return journal_name_; }
    // The update failed before its commit: the journal goes and the file,
    // never touched, still holds the last committed checkpoint (a new file
    // is emptied).
    void abandon() noexcept;

    // What the file holds once this update is committed.
    const DcpBaseline& next_baseline() const { return next_; }
    std::uint64_t bytes_written() const { return bytes_written_; }      // data, changed blocks only
    std::uint64_t bytes_protected() const { return bytes_protected_; }  // data of every variable

  private:
    PlacedOutput& output() { return journal_ ? static_cast<PlacedOutput&>(*journal_) : direct_; }

    Directory dir_;
    std::string name_;
    std::string journal_name_;
    ftiff::Writer writer_;
    std::optional<RedoJournal> journal_;  // an existing file's update
    FileOutput direct_;                   // a new file's
    std::optional<DcpBaseline> baseline_;
    DcpOptions options_;
    FtiffWriter::Sizes sizes_;
    DcpBaseline next_;
    FileRecord record_;
    std::uint64_t bytes_written_ = 0;
    std::uint64_t bytes_protected_ = 0;
};

// CRC-32 of each `block_size` block of `data` (the last may be short),
// computed by `threads` threads.
std::vector<std::uint32_t> block_crcs(std::span<const std::byte> data, std::size_t block_size, std::size_t threads = 1);
// The digests of `data`'s blocks, given their CRC-32s (block_crcs).
std::vector<ftiff::Md5> digests_from(std::span<const std::byte> data, const std::vector<std::uint32_t>& crcs,
                                     const DcpOptions& options);
// Digests of `data` in blocks of `block_size` bytes (the last may be short).
std::vector<ftiff::Md5> block_digests(std::span<const std::byte> data, const DcpOptions& options);

}  // namespace mlckpt::core
