// Crash safety for files updated in place (L4 differential checkpoints).
// An update is first written whole into a journal next to the file: the new
// bytes of every changed range, the ranges to zero and the file's new size.
// The journal is sealed (an end record, then synced) before the checkpoint
// is committed; only then is it applied to the file, and a crash or a
// failure before that leaves the file exactly as the last committed
// checkpoint describes it. A crash while the journal is applied leaves a
// sealed journal of a committed checkpoint, which the restart applies again
// (applying is idempotent). Each record carries its own CRC-32, so a journal
// torn by a crash, or damaged since, is recognised and never applied.
//
//   header: "MLRJ" version(u32)=1 seq(u64) crc(u32)
//   record: kind(u32) offset(u64) length(u64) [bytes[length] when kind 1] crc(u32)
//     kind 1: write bytes at offset; kind 2: write `length` zeros at offset;
//     kind 3 (last): the end; offset is the file's new size, length the
//     number of records before it.
//
// All integers little-endian; each CRC covers the bytes of its header or
// record before it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "io/buffer_pool.hpp"
#include "io/file.hpp"
#include "io/placed_output.hpp"

namespace mlckpt::core {

class RedoJournal final : public PlacedOutput {
  public:
    // Starts the journal `name` in `dir` of the update made by checkpoint
    // `seq`. Replaces any journal left at the name.
    RedoJournal(const Directory& dir, const std::string& name, std::uint64_t seq);
    RedoJournal(const fs::path& path, std::uint64_t seq);

    void write_at(std::span<const std::byte> bytes, std::uint64_t offset) override;
    void zeros_at(std::uint64_t offset, std::uint64_t length) override;
    void resize(std::uint64_t size) override { new_size_ = size; }
    // Seals the journal (the end record) and makes it durable, directory
    // entry included: only then may the update be committed.
    void sync() override;

    std::uint64_t bytes_journaled() const { return bytes_; }

  private:
    void record(std::uint32_t kind, std::uint64_t offset, std::uint64_t length, std::span<const std::byte> bytes);
    void append(std::span<const std::byte> bytes);
    void flush();

    Directory dir_;
    File file_;
    // Small records, written together; kept by the pool from one
    // checkpoint's journal to the next.
    PooledBuffer pending_;
    std::size_t pending_bytes_ = 0;
    std::uint64_t records_ = 0;
    std::uint64_t new_size_ = 0;
    std::uint64_t bytes_ = 0;
    bool sealed_ = false;
};

// The checkpoint sequence number a journal belongs to; nullopt when its
// header is unreadable.
std::optional<std::uint64_t> redo_journal_seq(const fs::path& journal);

// Checks the sealed `journal` as roll_forward() does before it applies
// anything (header, every record's CRC-32, the end record, the bounds
// against a target of `target_size` bytes), touching no file. Returns the
// sequence number of its checkpoint; throws a corrupt Error naming it.
std::uint64_t check_redo_journal(const fs::path& journal, std::uint64_t target_size);

// Applies the sealed `journal` to `target`: every record, then the new size;
// syncs the target and removes the journal. Every record is checked before
// the first is applied: a journal that is not sealed or has a damaged record
// throws a corrupt Error naming it, and the target is left alone.
// `between_records` runs after each applied record (fault injection).
void roll_forward(const Directory& dir, const std::string& journal, const std::string& target,
                  const std::function<void()>& between_records = nullptr);
// The same for a journal and a target in one directory, named by paths.
void roll_forward(const fs::path& journal, const fs::path& target,
                  const std::function<void()>& between_records = nullptr);

}  // namespace mlckpt::core
