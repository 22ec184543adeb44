// Crash safety for files updated in place (L4 differential checkpoints).
// Before a range of the target file is overwritten, its old bytes are
// appended to the journal and the journal is synced; each record carries its
// own CRC-32, so a record torn by a crash is recognised (and the bytes it
// would have protected were never touched). Rolling back writes the saved
// bytes back and restores the old size: the target is again exactly the file
// the last committed checkpoint describes.
//
//   header: "MLUJ" version(u32)=1 seq(u64) old_size(u64) crc(u32)
//   record: offset(u64) length(u64) bytes[length] crc(u32)   (repeated)
//
// All integers little-endian; each CRC covers the bytes of its header or
// record before it.
#pragma once

#include <cstdint>
#include <optional>

#include "io/file.hpp"

namespace mlckpt::core {

class UndoJournal {
  public:
    // Starts the journal of the update made by checkpoint `seq` of `target`
    // (whose size is `old_size`). Replaces any journal left at `path`.
    UndoJournal(const fs::path& path, std::uint64_t seq, std::uint64_t old_size);

    // Saves target's bytes [offset, offset + length) that lie below the old
    // size (bytes beyond it are undone by the truncation).
    void save(const File& target, std::uint64_t offset, std::uint64_t length);
    // Makes the saved records durable: only then may the target be written.
    // The journal's directory entry is made durable by the first call.
    void sync();
    std::uint64_t old_size() const { return old_size_; }

  private:
    File file_;
    std::uint64_t old_size_;
    bool entry_durable_ = false;
};

// The checkpoint sequence number a journal belongs to; nullopt when its
// header is unreadable (then the target was never touched).
std::optional<std::uint64_t> undo_journal_seq(const fs::path& journal);

// Restores `target` from the complete records of `journal`, syncs it and
// removes the journal. Throws an io Error if the target cannot be written.
void roll_back(const fs::path& journal, const fs::path& target);

}  // namespace mlckpt::core
