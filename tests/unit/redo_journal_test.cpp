// The redo journal of in-place updates: rolling forward gives the file the
// update byte for byte (content and size), whether or not an earlier apply
// was cut short, and a journal that is not sealed or is damaged is refused
// before any byte of the file changes.
#include "format/dcp/redo_journal.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <fstream>
#include <iterator>

#include "common/error.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

std::vector<std::byte> bytes_of(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(c.size());
    std::memcpy(out.data(), c.data(), c.size());
    return out;
}

std::vector<std::byte> numbered(std::size_t n, int salt) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 7 + static_cast<std::size_t>(salt)) & 0xff);
    return v;
}

// `file` with `bytes` at `offset` (zeros where it grows past its end).
void put_at(std::vector<std::byte>& file, std::uint64_t offset, std::span<const std::byte> bytes) {
    if (file.size() < offset + bytes.size()) file.resize(offset + bytes.size());
    std::memcpy(file.data() + offset, bytes.data(), bytes.size());
}

struct JournalTest : ::testing::Test {
    test::TempDir dir;
    fs::path target = dir.path() / "data.fti";
    fs::path journal = dir.path() / "data.fti.journal";
    std::vector<std::byte> original = numbered(10000, 1);
    std::vector<std::byte> small = numbered(500, 9);
    std::vector<std::byte> large = numbered(3 << 19, 4);  // 1.5 MiB: written past the journal's buffer

    void SetUp() override {
        File f = File::create(target);
        f.write_all(original);
        f.close();
    }

    // Journals an update that writes `small` at 100, zeros 2000..2999, writes
    // `large` at 9000 and leaves the file `new_size` long; returns that file.
    std::vector<std::byte> journal_update(std::uint64_t new_size, bool seal = true) {
        RedoJournal j(journal, 42);
        j.write_at(small, 100);
        j.zeros_at(2000, 1000);
        j.write_at(large, 9000);
        j.resize(new_size);
        if (seal) j.sync();
        std::vector<std::byte> expected = original;
        put_at(expected, 100, small);
        std::memset(expected.data() + 2000, 0, 1000);
        put_at(expected, 9000, large);
        expected.resize(new_size);
        return expected;
    }

    void expect_refused(const std::string& why) {
        // `mlckpt verify` checks a journal as roll_forward does, touching nothing.
        try {
            check_redo_journal(journal, original.size());
            ADD_FAILURE() << "the journal was accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::corrupt);
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
        try {
            roll_forward(journal, target);
            ADD_FAILURE() << "the journal was applied";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::corrupt);
            EXPECT_NE(std::string(e.what()).find(journal.string()), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
        EXPECT_EQ(bytes_of(target), original) << "the file was touched";
    }
};

TEST_F(JournalTest, RollForwardAppliesTheUpdateAndItsSize) {
    const std::vector<std::byte> expected = journal_update(9000 + large.size() + 100);
    EXPECT_EQ(bytes_of(target), original) << "journaling alone changes the file";
    EXPECT_EQ(redo_journal_seq(journal), std::optional<std::uint64_t>(42));
    EXPECT_EQ(check_redo_journal(journal, original.size()), 42u);
    EXPECT_EQ(bytes_of(target), original) << "checking the journal changes the file";
    roll_forward(journal, target);
    EXPECT_EQ(bytes_of(target), expected);
    EXPECT_FALSE(fs::exists(journal));
}

TEST_F(JournalTest, RollForwardCutsAShorterFile) {
    const std::vector<std::byte> expected = journal_update(5000);
    roll_forward(journal, target);
    EXPECT_EQ(bytes_of(target), expected);
}

// A crash while the journal is applied: applying it again from the start
// gives the same file.
TEST_F(JournalTest, AnApplyCutShortIsCompletedByTheNext) {
    const std::vector<std::byte> expected = journal_update(9000 + large.size());
    EXPECT_THROW(roll_forward(journal, target, [] { throw std::runtime_error("crash"); }), std::runtime_error);
    EXPECT_NE(bytes_of(target), original) << "the first record was applied";
    ASSERT_TRUE(fs::exists(journal));
    roll_forward(journal, target);
    EXPECT_EQ(bytes_of(target), expected);
}

TEST_F(JournalTest, UnsealedJournalIsRefused) {
    journal_update(20000, false);
    expect_refused("is not sealed");
    EXPECT_TRUE(fs::exists(journal));
}

TEST_F(JournalTest, DamagedRecordIsRefused) {
    journal_update(20000);
    {
        File j = File::open_update(journal);
        const std::array<std::byte, 1> flipped{std::byte{0xee}};
        j.write_all_at(flipped, 20 + 20 + 300);  // inside the first record's bytes
    }
    expect_refused("fails its CRC-32");
}

// A sealed journal that asks for more than it carries (found by fuzzing: a
// 49-byte journal sized the file to 137 GB, one of 68 bytes wrote 2^40 zero
// bytes) is refused before the file is touched.
TEST_F(JournalTest, JournalBeyondWhatItCarriesIsRefused) {
    {
        RedoJournal j(journal, 42);
        j.write_at(small, 100);
        j.resize(std::uint64_t{137} << 30);
        j.sync();
    }
    expect_refused("sets the file's size to 147102629888 bytes, more than its 10000 bytes and the 500 bytes");
    {
        RedoJournal j(journal, 42);
        j.zeros_at(5000, std::uint64_t{1} << 40);
        j.resize(10000);
        j.sync();
    }
    expect_refused("has a record for bytes 5000 to 5000 + 1099511627776, past the 10000 bytes that the file and the");
}

TEST_F(JournalTest, TornJournalIsRefused) {
    journal_update(20000);
    fs::resize_file(journal, fs::file_size(journal) - 10);  // the end record is cut
    expect_refused("not sealed");
}

TEST_F(JournalTest, UnreadableHeaderHasNoSequenceNumber) {
    journal_update(20000);
    fs::resize_file(journal, 10);
    EXPECT_EQ(redo_journal_seq(journal), std::nullopt);
    expect_refused("has no valid header");
}

}  // namespace
}  // namespace mlckpt::core
