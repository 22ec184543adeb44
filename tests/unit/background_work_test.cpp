// Retired checkpoint files go on a thread of their own: wait() returns once
// everything queued is gone, in the order it was queued, and the destructor
// finishes the queue. The removals a call queues while it settles earlier
// checkpoints are held until it has written its own.
#include "io/background_work.hpp"

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

TEST(BackgroundWork, WaitReturnsOnceFilesAndEmptiedDirectoriesAreGone) {
    test::TempDir dir;
    fs::path a = make_file(dir.path() / "ckpt1" / "a.fti");
    fs::path b = make_file(dir.path() / "ckpt1" / "b.fti");
    fs::path kept = make_file(dir.path() / "ckpt2" / "a.fti");
    fs::path other = make_file(dir.path() / "ckpt2" / "b.fti");
    BackgroundWork work;
    work.remove_file_and_empty_dir(a);
    work.remove_file_and_empty_dir(b);
    work.remove_file_and_empty_dir(other);
    work.wait();
    EXPECT_FALSE(fs::exists(dir.path() / "ckpt1")) << "emptied by the second removal";
    EXPECT_TRUE(fs::exists(kept));
    EXPECT_FALSE(fs::exists(other));
    EXPECT_TRUE(fs::exists(dir.path() / "ckpt2")) << "a directory that still holds files stays";
}

TEST(BackgroundWork, TreesAndMissingPathsInQueueOrder) {
    test::TempDir dir;
    make_file(dir.path() / "l4" / "ckpt3" / "x" / "y.fti");
    BackgroundWork work;
    work.remove_file_and_empty_dir(dir.path() / "no-such" / "file");  // nothing to do, no error
    work.remove_tree(dir.path() / "l4" / "ckpt3");
    work.remove_file_and_empty_dir(dir.path() / "l4" / "ckpt3" / "x" / "y.fti");  // gone already
    work.wait();
    EXPECT_FALSE(fs::exists(dir.path() / "l4" / "ckpt3"));
    EXPECT_TRUE(fs::exists(dir.path() / "l4"));
    work.wait();  // nothing queued: returns at once
}

TEST(BackgroundWork, DestructorFinishesTheQueue) {
    test::TempDir dir;
    std::vector<fs::path> files;
    for (int i = 0; i < 50; ++i) files.push_back(make_file(dir.path() / "d" / ("f" + std::to_string(i))));
    {
        BackgroundWork work;
        for (const fs::path& f : files) work.remove_file_and_empty_dir(f);
    }
    EXPECT_FALSE(fs::exists(dir.path() / "d"));
}

TEST(BackgroundWork, TheRemovalsOfACallRunOnceItEnds) {
    test::TempDir dir;
    fs::path earlier = make_file(dir.path() / "ckpt1" / "a.fti");
    fs::path settled = make_file(dir.path() / "ckpt2" / "a.fti");
    BackgroundWork work;
    work.remove_file_and_empty_dir(earlier);  // retired by an earlier call
    {
        BackgroundWork::DuringTheNextCompute hold(work);
        work.remove_file_and_empty_dir(settled);  // retired by this call's settle
        work.wait_before_writing(false);
        EXPECT_FALSE(fs::exists(earlier)) << "queued before the call: waited for";
        EXPECT_TRUE(fs::exists(settled)) << "queued by the call: held while it writes";
    }
    work.wait();
    EXPECT_FALSE(fs::exists(settled)) << "released when the call ended";
}

TEST(BackgroundWork, AWriterInPlaceOrAWaitReleasesWhatIsHeld) {
    test::TempDir dir;
    fs::path a = make_file(dir.path() / "dcp" / "a.fti");
    fs::path b = make_file(dir.path() / "ckpt3" / "b.fti");
    BackgroundWork work;
    BackgroundWork::DuringTheNextCompute hold(work);
    work.remove_file_and_empty_dir(a);
    work.wait_before_writing(true);
    EXPECT_FALSE(fs::exists(a)) << "the L4 differential file's writer went on while its removal was held";
    work.remove_file_and_empty_dir(b);
    work.wait();
    EXPECT_FALSE(fs::exists(b));
}

// The threads of this process.
std::size_t thread_count() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& task : fs::directory_iterator("/proc/self/task")) ++n;
    return n;
}

TEST(BackgroundWork, NothingQueuedNeedsNoThread) {
    const std::size_t before = thread_count();
    {
        BackgroundWork work;
        work.wait();
        EXPECT_EQ(thread_count(), before) << "a thread was started with nothing to do";
    }
    EXPECT_EQ(thread_count(), before);
}

}  // namespace
}  // namespace mlckpt::core
