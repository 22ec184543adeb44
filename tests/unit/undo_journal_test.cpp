// The undo journal of in-place updates: a rollback restores the file byte for
// byte (content and size), ignores a record torn by a crash, and leaves the
// file alone when the journal's header never became durable.
#include "format/undo_journal.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

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

void write_at(const fs::path& p, std::uint64_t offset, std::size_t n, int salt) {
    File f = File::open_update(p);
    f.write_all_at(numbered(n, salt), offset);
    f.close();
}

struct JournalTest : ::testing::Test {
    test::TempDir dir;
    fs::path target = dir.path() / "data.fti";
    fs::path journal = dir.path() / "data.fti.undo";
    std::vector<std::byte> original = numbered(10000, 1);

    void SetUp() override {
        File f = File::create(target);
        f.write_all(original);
        f.close();
    }
};

TEST_F(JournalTest, RollBackRestoresContentAndSize) {
    {
        File t = File::open_update(target);
        UndoJournal j(journal, 42, t.size());
        j.save(t, 100, 500);
        j.save(t, 9000, 2000);  // runs past the old end: only the old part is kept
        j.sync();
    }
    write_at(target, 100, 500, 9);
    write_at(target, 9000, 2000, 9);  // the file grew to 11000 bytes
    ASSERT_EQ(fs::file_size(target), 11000u);
    EXPECT_EQ(undo_journal_seq(journal), std::optional<std::uint64_t>(42));
    roll_back(journal, target);
    EXPECT_EQ(bytes_of(target), original);
    EXPECT_FALSE(fs::exists(journal));
}

TEST_F(JournalTest, RollBackRestoresACutFile) {
    {
        File t = File::open_update(target);
        UndoJournal j(journal, 7, t.size());
        j.save(t, 4000, 6000);
        j.sync();
        t.resize(4000);
    }
    roll_back(journal, target);
    EXPECT_EQ(bytes_of(target), original);
}

TEST_F(JournalTest, TornRecordIsIgnored) {
    {
        File t = File::open_update(target);
        UndoJournal j(journal, 3, t.size());
        j.save(t, 0, 1000);
        j.sync();
        j.save(t, 5000, 1000);  // the crash comes while this record is written
    }
    write_at(target, 0, 1000, 5);  // only the first range was overwritten
    fs::resize_file(journal, fs::file_size(journal) - 10);
    roll_back(journal, target);
    EXPECT_EQ(bytes_of(target), original);
}

TEST_F(JournalTest, UnreadableHeaderLeavesTheFileAlone) {
    {
        File t = File::open_update(target);
        UndoJournal j(journal, 3, 5);  // claims an old size of 5 bytes
        j.sync();
    }
    fs::resize_file(journal, 10);  // header torn: nothing was touched yet
    EXPECT_EQ(undo_journal_seq(journal), std::nullopt);
    roll_back(journal, target);
    EXPECT_EQ(bytes_of(target), original);
    EXPECT_FALSE(fs::exists(journal));
}

}  // namespace
}  // namespace mlckpt::core
