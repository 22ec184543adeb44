#include "config/restart_state.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "config/config.hpp"
#include "io/file.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

TEST(RestartState, ReplacesOnlyTheTwoLinesAndKeepsComments) {
    std::string before =
        "# my settings\n"
        "[basic]\n"
        "node_size = 2   ; two per node\n"
        "\n"
        "[restart]\n"
        "; keep this comment\n"
        "failure = 0\n"
        "  exec_id = old\n"
        "[advanced]\n"
        "local_test = 1\n";
    std::string after = with_restart_state(before, 1, "2026-11-22_10-00-00");
    EXPECT_EQ(after,
              "# my settings\n"
              "[basic]\n"
              "node_size = 2   ; two per node\n"
              "\n"
              "[restart]\n"
              "; keep this comment\n"
              "failure = 1\n"
              "  exec_id = 2026-11-22_10-00-00\n"
              "[advanced]\n"
              "local_test = 1\n");
}

TEST(RestartState, AddsMissingKeysToExistingSection) {
    std::string after = with_restart_state("[restart]\n[basic]\nnode_size = 1\n", 2, "x");
    EXPECT_EQ(after, "[restart]\nfailure = 2\nexec_id = x\n[basic]\nnode_size = 1\n");
}

TEST(RestartState, AddsMissingSection) {
    std::string after = with_restart_state("[basic]\nnode_size = 1", 1, "x");
    EXPECT_EQ(after, "[basic]\nnode_size = 1\n\n[restart]\nfailure = 1\nexec_id = x\n");
}

TEST(RestartState, KeysOutsideRestartSectionAreUntouched) {
    std::string after = with_restart_state("[basic]\nfailure = 7\n[restart]\nfailure = 0\n", 1, "e");
    EXPECT_EQ(after, "[basic]\nfailure = 7\n[restart]\nexec_id = e\nfailure = 1\n");
}

TEST(RestartState, FileRewriteIsReadableAndKeepsMode) {
    test::TempDir dir;
    std::string path = dir.write("c.fti",
                                 "[basic]\nnode_size = 1\nckpt_dir = a\nglbl_dir = b\nmeta_dir = c\n"
                                 "[restart]\nfailure = 0\nexec_id =\n");
    ::chmod(path.c_str(), 0600);
    write_restart_state(path, 1, "run-7");
    Config c = load_config(path);
    EXPECT_EQ(c.failure, 1);
    EXPECT_EQ(c.exec_id, "run-7");
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    // No temporary file is left next to it.
    int files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
    EXPECT_EQ(files, 1);
}

TEST(RestartState, SymlinkedFileIsUpdatedThroughTheLink) {
    test::TempDir dir;
    std::string real = dir.write("real.fti", "[restart]\nfailure = 0\n");
    std::filesystem::path link = dir.path() / "link.fti";
    std::filesystem::create_symlink(real, link);
    write_restart_state(link.string(), 1, "e");
    EXPECT_TRUE(std::filesystem::is_symlink(link));
    EXPECT_EQ(test::slurp(real), "[restart]\nexec_id = e\nfailure = 1\n");
}

// Someone who may write to the configuration's directory plants a link at
// the temporary name of the rewrite: the file it points to is not touched
// (neither written nor given the configuration's mode), and the link is
// replaced.
TEST(RestartState, LinkAtTheTemporaryNameReachesNothing) {
    test::TempDir dir;
    std::string path = dir.write("c.fti", "[restart]\nfailure = 0\n");
    ::chmod(path.c_str(), 0640);
    std::string victim = dir.write("victim", "secret\n");
    ::chmod(victim.c_str(), 0600);
    const std::filesystem::path planted = path + ".tmp." + std::to_string(::getpid());
    std::filesystem::create_symlink(victim, planted);
    write_restart_state(path, 1, "e");
    EXPECT_EQ(test::slurp(victim), "secret\n");
    struct stat st {};
    ASSERT_EQ(::stat(victim.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_EQ(test::slurp(path), "[restart]\nexec_id = e\nfailure = 1\n");
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(planted)));
}

// Every file the library creates is new: a link planted at its name is
// removed, never followed.
TEST(FileCreate, LinkAtTheNameIsReplacedNotFollowed) {
    test::TempDir dir;
    std::string victim = dir.write("victim", "keep\n");
    const std::filesystem::path name = dir.path() / "Ckpt1-Rank0.fti.tmp";
    std::filesystem::create_symlink(victim, name);
    File f = File::create(name);
    const char data[] = "new";
    f.write_all(std::as_bytes(std::span(data, 3)));
    f.close();
    EXPECT_FALSE(std::filesystem::is_symlink(name));
    EXPECT_EQ(test::slurp(name.string()), "new");
    EXPECT_EQ(test::slurp(victim), "keep\n");
    // open_update refuses a link.
    const std::filesystem::path journal = dir.path() / "dCP-Rank0.fti.journal";
    std::filesystem::create_symlink(victim, journal);
    EXPECT_THROW(File::open_update(journal), Error);
    EXPECT_EQ(test::slurp(victim), "keep\n");
}

}  // namespace
}  // namespace mlckpt::core
