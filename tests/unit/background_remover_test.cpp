// Retired checkpoint files go on a thread of their own: wait() returns once
// everything queued is gone, in the order it was queued, and the destructor
// finishes the queue.
#include "io/background_remover.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

fs::path make_file(const fs::path& path) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "data";
    return path;
}

TEST(BackgroundRemover, WaitReturnsOnceFilesAndEmptiedDirectoriesAreGone) {
    test::TempDir dir;
    fs::path a = make_file(dir.path() / "ckpt1" / "a.fti");
    fs::path b = make_file(dir.path() / "ckpt1" / "b.fti");
    fs::path kept = make_file(dir.path() / "ckpt2" / "a.fti");
    fs::path other = make_file(dir.path() / "ckpt2" / "b.fti");
    BackgroundRemover remover;
    remover.remove_file_and_empty_dir(a);
    remover.remove_file_and_empty_dir(b);
    remover.remove_file_and_empty_dir(other);
    remover.wait();
    EXPECT_FALSE(fs::exists(dir.path() / "ckpt1")) << "emptied by the second removal";
    EXPECT_TRUE(fs::exists(kept));
    EXPECT_FALSE(fs::exists(other));
    EXPECT_TRUE(fs::exists(dir.path() / "ckpt2")) << "a directory that still holds files stays";
}

TEST(BackgroundRemover, TreesAndMissingPathsInQueueOrder) {
    test::TempDir dir;
    make_file(dir.path() / "l4" / "ckpt3" / "x" / "y.fti");
    BackgroundRemover remover;
    remover.remove_file_and_empty_dir(dir.path() / "no-such" / "file");  // nothing to do, no error
    remover.remove_tree(dir.path() / "l4" / "ckpt3");
    remover.remove_file_and_empty_dir(dir.path() / "l4" / "ckpt3" / "x" / "y.fti");  // gone already
    remover.wait();
    EXPECT_FALSE(fs::exists(dir.path() / "l4" / "ckpt3"));
    EXPECT_TRUE(fs::exists(dir.path() / "l4"));
    remover.wait();  // nothing queued: returns at once
}

TEST(BackgroundRemover, DestructorFinishesTheQueue) {
    test::TempDir dir;
    std::vector<fs::path> files;
    for (int i = 0; i < 50; ++i) files.push_back(make_file(dir.path() / "d" / ("f" + std::to_string(i))));
    {
        BackgroundRemover remover;
        for (const fs::path& f : files) remover.remove_file_and_empty_dir(f);
    }
    EXPECT_FALSE(fs::exists(dir.path() / "d"));
}

TEST(BackgroundRemover, NothingQueuedNeedsNoThread) {
    BackgroundRemover remover;
    remover.wait();
}

}  // namespace
}  // namespace mlckpt::core
