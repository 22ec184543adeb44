#include "format/undo_journal.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "common/error.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {

namespace {

constexpr char kMagic[4] = {'M', 'L', 'U', 'J'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 4 + 4 + 8 + 8 + 4;
constexpr std::size_t kRecordHeadBytes = 16;
constexpr std::uint64_t kPieceBytes = 1 << 20;

void put(std::vector<std::byte>& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xff));
}

std::uint64_t get(const std::byte* in, int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(in[i]) << (8 * i);
    return v;
}

struct Header {
    std::uint64_t seq = 0;
    std::uint64_t old_size = 0;
};

std::optional<Header> read_header(const File& journal) {
    if (journal.size() < kHeaderBytes) return std::nullopt;
    std::array<std::byte, kHeaderBytes> h;
    journal.read_exact_at(h, 0);
    if (std::memcmp(h.data(), kMagic, 4) != 0 || get(h.data() + 4, 4) != kVersion ||
        get(h.data() + 24, 4) != crc32_of(std::span(h.data(), 24))) {
        return std::nullopt;
    }
    return Header{get(h.data() + 8, 8), get(h.data() + 16, 8)};
}

}  // namespace

UndoJournal::UndoJournal(const fs::path& path, std::uint64_t seq, std::uint64_t old_size)
    : file_(File::create(path)), old_size_(old_size) {
    const auto* magic = reinterpret_cast<const std::byte*>(kMagic);
    std::vector<std::byte> h(magic, magic + 4);
    put(h, kVersion, 4);
    put(h, seq, 8);
    put(h, old_size, 8);
    put(h, crc32_of(h), 4);
    file_.write_all(h);
}

void UndoJournal::save(const File& target, std::uint64_t offset, std::uint64_t length) {
    if (offset >= old_size_) return;
    length = std::min(length, old_size_ - offset);
    std::vector<std::byte> head;
    put(head, offset, 8);
    put(head, length, 8);
    file_.write_all(head);
    Crc32 crc;
    crc.update(head);
    std::vector<std::byte> piece(static_cast<std::size_t>(std::min(length, kPieceBytes)));
    for (std::uint64_t done = 0; done < length;) {
        auto n = static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), length - done));
        std::span<std::byte> bytes(piece.data(), n);
        target.read_exact_at(bytes, offset + done);
        file_.write_all(bytes);
        crc.update(bytes);
        done += n;
    }
    std::vector<std::byte> tail;
    put(tail, crc.value(), 4);
    file_.write_all(tail);
}

void UndoJournal::sync() {
    file_.sync();
    if (entry_durable_) return;  // every dCP checkpoint syncs once per variable: one directory sync is enough
    sync_dir(file_.path().parent_path());
    entry_durable_ = true;
}

std::optional<std::uint64_t> undo_journal_seq(const fs::path& journal) {
    std::optional<Header> h = read_header(File::open_read(journal));
    if (!h) return std::nullopt;
    return h->seq;
}

void roll_back(const fs::path& journal_path, const fs::path& target_path) {
    File journal = File::open_read(journal_path);
    std::optional<Header> header = read_header(journal);
    if (header) {
        File target = File::open_update(target_path);
        const std::uint64_t size = journal.size();
        std::vector<std::byte> buffer;
        for (std::uint64_t pos = kHeaderBytes; pos + kRecordHeadBytes + 4 <= size;) {
            std::array<std::byte, kRecordHeadBytes> head;
            journal.read_exact_at(head, pos);
            std::uint64_t offset = get(head.data(), 8);
            std::uint64_t length = get(head.data() + 8, 8);
            if (length > size - pos - kRecordHeadBytes - 4) break;  // torn: never applied to the target
            buffer.resize(static_cast<std::size_t>(length) + 4);
            journal.read_exact_at(buffer, pos + kRecordHeadBytes);
            Crc32 crc;
            crc.update(head);
            crc.update(std::span(buffer.data(), static_cast<std::size_t>(length)));
            if (crc.value() != get(buffer.data() + length, 4)) break;
            target.write_all_at(std::span(buffer.data(), static_cast<std::size_t>(length)), offset);
            pos += kRecordHeadBytes + length + 4;
        }
        target.resize(header->old_size);
        target.sync();
        target.close();
    }
    remove_file(journal_path);
    sync_dir(journal_path.parent_path());
}

}  // namespace mlckpt::core
