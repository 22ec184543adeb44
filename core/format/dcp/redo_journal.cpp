#include "format/dcp/redo_journal.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "common/error.hpp"
#include "hash/crc32.hpp"
#include "io/buffer_pool.hpp"

namespace mlckpt::core {

namespace {

constexpr char kJournalMagic[4] = {'M', 'L', 'R', 'J'};
constexpr std::uint32_t kJournalVersion = 1;
constexpr std::size_t kHeaderBytes = 4 + 4 + 8 + 4;
constexpr std::size_t kRecordHeadBytes = 4 + 8 + 8;
constexpr std::uint32_t kBytes = 1;
constexpr std::uint32_t kZeros = 2;
constexpr std::uint32_t kEnd = 3;
constexpr std::size_t kPendingBytes = 1 << 20;  // small records are written together up to this

void put(std::vector<std::byte>& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xff));
}

std::uint64_t get(const std::byte* in, int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(in[i]) << (8 * i);
    return v;
}

[[noreturn]] void damaged(const fs::path& journal, const std::string& why) {
    fail(ErrorKind::corrupt, "the L4 differential journal '" + journal.string() + "' " + why);
}

std::optional<std::uint64_t> read_header(const File& journal) {
    if (journal.size() < kHeaderBytes) return std::nullopt;
    std::array<std::byte, kHeaderBytes> h;
    journal.read_exact_at(h, 0);
    if (std::memcmp(h.data(), kJournalMagic, 4) != 0 || get(h.data() + 4, 4) != kJournalVersion ||
        get(h.data() + 16, 4) != crc32_of(std::span(h.data(), 16))) {
        return std::nullopt;
    }
    return get(h.data() + 8, 8);
}

struct Record {
    std::uint32_t kind = 0;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    std::uint64_t payload_at = 0;  // kind 1: where its bytes are in the journal
};

// Every record of a sealed journal, each checked against its CRC.
std::vector<Record> read_records(const File& journal, std::uint64_t& new_size) {
    const fs::path& path = journal.path();
    const std::uint64_t size = journal.size();
    std::vector<Record> records;
    std::vector<std::byte> payload;
    for (std::uint64_t pos = kHeaderBytes;;) {
        if (size - pos < kRecordHeadBytes + 4) damaged(path, "is not sealed: the update it holds was never complete");
        std::array<std::byte, kRecordHeadBytes> head;
        journal.read_exact_at(head, pos);
        Record r{static_cast<std::uint32_t>(get(head.data(), 4)), get(head.data() + 4, 8), get(head.data() + 12, 8),
                 pos + kRecordHeadBytes};
        const std::uint64_t payload_bytes = r.kind == kBytes ? r.length : 0;
        if (r.kind < kBytes || r.kind > kEnd) damaged(path, "has a damaged record at offset " + std::to_string(pos));
        if (payload_bytes > size - pos - kRecordHeadBytes - 4) {
            damaged(path, "is not sealed: its last record is cut, the update it holds was never complete");
        }
        Crc32 crc;
        crc.update(head);
        payload.resize(static_cast<std::size_t>(std::min<std::uint64_t>(payload_bytes, 1 << 20)));
        for (std::uint64_t done = 0; done < payload_bytes;) {
            auto n = static_cast<std::size_t>(std::min<std::uint64_t>(payload.size(), payload_bytes - done));
            std::span<std::byte> piece(payload.data(), n);
            journal.read_exact_at(piece, r.payload_at + done);
            crc.update(piece);
            done += n;
        }
        std::array<std::byte, 4> stored;
        journal.read_exact_at(stored, r.payload_at + payload_bytes);
        if (crc.value() != get(stored.data(), 4))
            damaged(path, "has a record at offset " + std::to_string(pos) + " that fails its CRC-32");
        pos = r.payload_at + payload_bytes + 4;
        if (r.kind == kEnd) {
            if (r.length != records.size())
                damaged(path, "ends after " + std::to_string(records.size()) + " records, its end record says " +
                                  std::to_string(r.length));
            new_size = r.offset;
            return records;
        }
        records.push_back(r);
    }
}

// A sealed journal is still input: it may only bring the file what it
// carries. Neither the file's new size nor any record reaches past the
// file's present size plus the bytes the journal holds (a crafted journal
// would otherwise grow the file, or write zeros, without bound).
void check_bounds(const fs::path& path, const std::vector<Record>& records, std::uint64_t new_size,
                  std::uint64_t old_size) {
    std::uint64_t carried = 0;
    for (const Record& r : records) {
        if (r.kind == kBytes) carried += r.length;  // bounded by the journal's size, read whole above
    }
    if (new_size > old_size + carried) {
        damaged(path, "sets the file's size to " + std::to_string(new_size) + " bytes, more than its " +
                          std::to_string(old_size) + " bytes and the " + std::to_string(carried) +
                          " bytes the journal carries");
    }
    const std::uint64_t reach = old_size + carried;
    for (const Record& r : records) {
        if (r.offset > reach || r.length > reach - r.offset) {
            damaged(path, "has a record for bytes " + std::to_string(r.offset) + " to " + std::to_string(r.offset) +
                              " + " + std::to_string(r.length) + ", past the " + std::to_string(reach) +
                              " bytes that the file and the journal hold");
        }
    }
}

}  // namespace

RedoJournal::RedoJournal(const fs::path& path, std::uint64_t seq)
    : RedoJournal(Directory::open(path.parent_path()), path.filename().string(), seq) {}

RedoJournal::RedoJournal(const Directory& dir, const std::string& name, std::uint64_t seq)
    : dir_(dir), file_(File::create(dir, name)), pending_(take_buffer(2 * kPendingBytes)) {
    const auto* magic = reinterpret_cast<const std::byte*>(kJournalMagic);
    std::vector<std::byte> header(magic, magic + 4);
    put(header, kJournalVersion, 4);
    put(header, seq, 8);
    put(header, crc32_of(header), 4);
    append(header);
}

void RedoJournal::append(std::span<const std::byte> bytes) {
    // Every piece is smaller than kPendingBytes, the buffer twice as large.
    if (bytes.empty()) return;  // an empty span may have no address, which memcpy must not see
    if (pending_bytes_ + bytes.size() > pending_.size()) flush();
    std::memcpy(pending_.data() + pending_bytes_, bytes.data(), bytes.size());
    pending_bytes_ += bytes.size();
}

void RedoJournal::record(std::uint32_t kind, std::uint64_t offset, std::uint64_t length,
                         std::span<const std::byte> bytes) {
    if (sealed_) fail(ErrorKind::usage, "the L4 differential journal '" + file_.path().string() + "' is sealed");
    std::vector<std::byte> head;
    put(head, kind, 4);
    put(head, offset, 8);
    put(head, length, 8);
    Crc32 crc;
    crc.update(head);
    crc.update(bytes);
    std::vector<std::byte> tail;
    put(tail, crc.value(), 4);
    append(head);
    if (bytes.size() >= kPendingBytes) {  // large: straight from the caller's memory
        flush();
        file_.write_all(bytes);
    } else {
        append(bytes);
    }
    append(tail);
    if (pending_bytes_ >= kPendingBytes) flush();
    if (kind != kEnd) ++records_;
    bytes_ += bytes.size();
}

void RedoJournal::flush() {
    if (pending_bytes_ == 0) return;
    file_.write_all({pending_.data(), pending_bytes_});
    pending_bytes_ = 0;
}

void RedoJournal::write_at(std::span<const std::byte> bytes, std::uint64_t offset) {
    record(kBytes, offset, bytes.size(), bytes);
}

void RedoJournal::zeros_at(std::uint64_t offset, std::uint64_t length) {
    record(kZeros, offset, length, {});
}

void RedoJournal::sync() {
    record(kEnd, new_size_, records_, {});
    sealed_ = true;
    flush();
    file_.sync();
    dir_.sync();
}

std::optional<std::uint64_t> redo_journal_seq(const fs::path& journal) {
    return read_header(File::open_read(journal));
}

std::uint64_t check_redo_journal(const fs::path& journal_path, std::uint64_t target_size) {
    File journal = File::open_read(journal_path);
    std::optional<std::uint64_t> seq = read_header(journal);
    if (!seq) damaged(journal_path, "has no valid header");
    std::uint64_t new_size = 0;
    const std::vector<Record> records = read_records(journal, new_size);
    check_bounds(journal_path, records, new_size, target_size);
    return *seq;
}

void roll_forward(const fs::path& journal, const fs::path& target, const std::function<void()>& between_records) {
    if (journal.parent_path() != target.parent_path()) {
        fail(ErrorKind::usage, "the journal '" + journal.string() + "' is not beside '" + target.string() + "'");
    }
    roll_forward(Directory::open(journal.parent_path()), journal.filename().string(), target.filename().string(),
                 between_records);
}

void roll_forward(const Directory& dir, const std::string& journal_name, const std::string& target_name,
                  const std::function<void()>& between_records) {
    const fs::path journal_path = dir.path_of(journal_name);
    File journal = File::open_read(dir, journal_name);
    if (!read_header(journal)) damaged(journal_path, "has no valid header");
    std::uint64_t new_size = 0;
    const std::vector<Record> records = read_records(journal, new_size);
    File target = File::open_update(dir, target_name);
    check_bounds(journal_path, records, new_size, target.size());
    FileOutput out(target);
    std::vector<std::byte> buffer;
    for (const Record& r : records) {
        if (r.kind == kZeros) {
            out.zeros_at(r.offset, r.length);
        } else {
            buffer.resize(static_cast<std::size_t>(std::min<std::uint64_t>(r.length, 1 << 20)));
            for (std::uint64_t done = 0; done < r.length;) {
                auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), r.length - done));
                std::span<std::byte> piece(buffer.data(), n);
                journal.read_exact_at(piece, r.payload_at + done);
                out.write_at(piece, r.offset + done);
                done += n;
            }
        }
        if (between_records) between_records();
    }
    target.resize(new_size);
    target.sync();
    target.close();
    journal.close();
    dir.remove(journal_name);
    dir.sync();
}

}  // namespace mlckpt::core
