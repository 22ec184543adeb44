// The library's directories kept open between checkpoints
// (io/directory_cache.hpp): the second call makes no directory walk, a
// directory removed meanwhile is made again, a link is refused as by
// make_dirs, and a run that makes a directory per checkpoint does not
// accumulate descriptors.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "io/directory_cache.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

namespace fs = std::filesystem;

std::size_t open_descriptors() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
    return n;
}

void create_file(const Directory& d, const std::string& name) {
    File f = File::create(d, name);
    f.close();
}

TEST(DirectoryCache, SecondCallReturnsTheOpenDirectory) {
    test::TempDir base;
    DirectoryCache cache;
    const fs::path dir = base.path() / "exec" / "l4";
    const Directory first = cache.make_dirs(base.path(), dir);
    EXPECT_TRUE(fs::is_directory(dir));
    const Directory second = cache.make_dirs(base.path(), dir);
    EXPECT_EQ(second.fd(), first.fd()) << "the directory was opened again";
    EXPECT_EQ(cache.make_dirs(base.path(), base.path() / "exec" / "." / "l4").fd(), first.fd());
    create_file(second, "Ckpt1-Rank0.fti");
    EXPECT_TRUE(fs::exists(dir / "Ckpt1-Rank0.fti"));
}

TEST(DirectoryCache, RemovedDirectoryIsMadeAgain) {
    test::TempDir base;
    DirectoryCache cache;
    const fs::path dir = base.path() / "exec" / "l1";
    cache.make_dirs(base.path(), dir);
    fs::remove_all(base.path() / "exec");  // a finished execution, or a lost node
    const Directory again = cache.make_dirs(base.path(), dir);
    create_file(again, "Ckpt2-Rank0.fti");
    EXPECT_TRUE(fs::exists(dir / "Ckpt2-Rank0.fti")) << "the file went into the removed directory";
}

TEST(DirectoryCache, LinkBelowTheBaseIsRefused) {
    test::TempDir base;
    test::TempDir outside;
    DirectoryCache cache;
    fs::create_directory_symlink(outside.path(), base.path() / "l4");
    EXPECT_THROW(cache.make_dirs(base.path(), base.path() / "l4"), Error);
    fs::remove(base.path() / "l4");
    const Directory d = cache.make_dirs(base.path(), base.path() / "l4");
    create_file(d, "Ckpt1-Rank0.fti");
    EXPECT_TRUE(fs::is_empty(outside.path()));
    EXPECT_FALSE(fs::is_symlink(base.path() / "l4"));
}

TEST(DirectoryCache, RelativeBaseFollowsTheWorkingDirectory) {
    test::TempDir first;
    test::TempDir second;
    const fs::path was = fs::current_path();
    DirectoryCache cache;
    fs::current_path(first.path());
    create_file(cache.make_dirs("Local", fs::path("Local") / "l1"), "a");
    fs::current_path(second.path());  // the application moved
    create_file(cache.make_dirs("Local", fs::path("Local") / "l1"), "b");
    fs::current_path(was);
    EXPECT_TRUE(fs::exists(first.path() / "Local" / "l1" / "a"));
    EXPECT_TRUE(fs::exists(second.path() / "Local" / "l1" / "b"));
}

TEST(DirectoryCache, ADirectoryPerCheckpointKeepsFewDescriptors) {
    test::TempDir base;
    DirectoryCache cache;
    const std::size_t before = open_descriptors();
    for (int seq = 1; seq <= 500; ++seq) {
        create_file(cache.make_dirs(base.path(), base.path() / "l1" / ("ckpt" + std::to_string(seq))), "f");
    }
    EXPECT_LE(open_descriptors(), before + DirectoryCache::kMaxOpen);
}

TEST(DirectoryCache, ThreadsShareIt) {
    test::TempDir base;
    DirectoryCache cache;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                const Directory d = cache.make_dirs(base.path(), base.path() / ("l" + std::to_string(i % 40)));
                if (i % 50 == 0) create_file(d, "t" + std::to_string(t) + "-" + std::to_string(i));
            }
        });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_TRUE(fs::exists(base.path() / "l0" / "t3-0"));
    EXPECT_TRUE(fs::exists(base.path() / "l10" / "t0-50"));
}

}  // namespace
}  // namespace mlckpt::core
