// Staging's building blocks: FTI's id space and life cycle of a request,
// the durable copy (complete at its destination or absent, never through a
// planted link), the worker that moves files and reports, and the request
// text a head receives.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <fstream>
#include <string>

#include "expect_error.hpp"
#include "io/file_transfer.hpp"
#include "staging/stage_requests.hpp"
#include "staging/stage_worker.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

TEST(StageRequests, IdsInOrderAndFinalStatusReturnedOnce) {
    StageRequests r;
    EXPECT_EQ(r.open(), 0);
    EXPECT_EQ(r.open(), 1);
    EXPECT_EQ(r.collect(0), StageStatus::pending);
    r.update(0, StageStatus::active);
    EXPECT_EQ(r.collect(0), StageStatus::active);
    EXPECT_EQ(r.unfinished(), 2);
    r.update(0, StageStatus::succeeded);
    r.update(1, StageStatus::failed);
    EXPECT_EQ(r.unfinished(), 0);
    EXPECT_EQ(r.collect(0), StageStatus::succeeded);
    EXPECT_EQ(r.collect(0), StageStatus::none);
    EXPECT_EQ(r.collect(1), StageStatus::failed);
    EXPECT_EQ(r.collect(1), StageStatus::none);
    // Ids never handed out, and reports for them, are nothing.
    EXPECT_EQ(r.collect(-1), StageStatus::none);
    EXPECT_EQ(r.collect(7), StageStatus::none);
    r.update(7, StageStatus::succeeded);
    r.update(0, StageStatus::succeeded);  // already collected
    EXPECT_EQ(r.collect(0), StageStatus::none);
    EXPECT_EQ(r.unfinished(), 0);
    // In order until every id was used once, as FTI.
    EXPECT_EQ(r.open(), 2);
}

TEST(StageRequests, FullIdSpaceReusesTheLowestFreeId) {
    StageRequests r(3);
    EXPECT_EQ(r.open(), 0);
    EXPECT_EQ(r.open(), 1);
    EXPECT_EQ(r.open(), 2);
    EXPECT_EQ(r.open(), -1);
    r.update(2, StageStatus::succeeded);
    r.update(1, StageStatus::failed);
    EXPECT_EQ(r.open(), -1) << "an id is free only once its final status was returned";
    EXPECT_EQ(r.collect(2), StageStatus::succeeded);
    EXPECT_EQ(r.collect(1), StageStatus::failed);
    EXPECT_EQ(r.open(), 1);
    EXPECT_EQ(r.open(), 2);
    EXPECT_EQ(r.open(), -1);
}

std::string content(std::size_t bytes) {
    std::string s(bytes, '\0');
    for (std::size_t i = 0; i < bytes; ++i) s[i] = static_cast<char>((i * 131 + 7) % 251);
    return s;
}

void write(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

TEST(FileTransfer, CopiesCompletelyAndLeavesNoTemporaryFile) {
    test::TempDir dir;
    fs::create_directory(dir.path() / "pfs");
    const std::string data = content(100000);
    write(dir.path() / "a", data);
    write(dir.path() / "pfs" / "a", "older content");
    FileTransfer t{dir.path() / "a", dir.path() / "pfs" / "a", "0-1", 4096};
    copy_durably(t);
    EXPECT_EQ(test::slurp(t.to), data);
    EXPECT_TRUE(fs::exists(t.from)) << "copy_durably leaves the source to its caller";
    EXPECT_FALSE(fs::exists(transfer_temp_path(t)));
}

TEST(FileTransfer, LinkPlantedAtTheTemporaryNameReachesNothing) {
    test::TempDir dir;
    fs::create_directory(dir.path() / "pfs");
    write(dir.path() / "a", "staged");
    write(dir.path() / "victim", "untouched");
    FileTransfer t{dir.path() / "a", dir.path() / "pfs" / "a", "0-2", 4096};
    fs::create_symlink(dir.path() / "victim", transfer_temp_path(t));
    copy_durably(t);
    EXPECT_EQ(test::slurp(dir.path() / "victim"), "untouched");
    EXPECT_EQ(test::slurp(t.to), "staged");
    EXPECT_FALSE(fs::is_symlink(t.to));
}

TEST(FileTransfer, FailureLeavesTheDestinationAsItWas) {
    test::TempDir dir;
    fs::create_directory(dir.path() / "pfs");
    write(dir.path() / "big", content(1 << 20));
    write(dir.path() / "pfs" / "big", "previous");
    FileTransfer t{dir.path() / "big", dir.path() / "pfs" / "big", "0-3", 64 << 10};
    // A file-size limit makes writes past 256 KiB fail as a full disk does.
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
    rlimit lowered = saved;
    lowered.rlim_cur = 256 << 10;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lowered), 0);
    std::string message = test::error_message(ErrorKind::io, [&] { copy_durably(t); });
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
    EXPECT_NE(message.find("File too large"), std::string::npos) << message;
    EXPECT_EQ(test::slurp(t.to), "previous");
    EXPECT_FALSE(fs::exists(transfer_temp_path(t)));
    EXPECT_TRUE(fs::exists(t.from));
}

TEST(FileTransfer, MissingDirectoryOrSourceIsNamed) {
    test::TempDir dir;
    write(dir.path() / "a", "x");
    std::string message = test::error_message(ErrorKind::io, [&] {
        copy_durably({dir.path() / "a", dir.path() / "nowhere" / "a", "0-4", 4096});
    });
    EXPECT_NE(message.find("nowhere"), std::string::npos) << message;
    message = test::error_message(ErrorKind::io, [&] {
        copy_durably({dir.path() / "b", dir.path() / "c", "0-5", 4096});
    });
    EXPECT_NE(message.find("not a regular file"), std::string::npos) << message;
}

TEST(StageWorker, MovesInOrderAndReportsEveryStep) {
    test::TempDir dir;
    fs::create_directory(dir.path() / "pfs");
    write(dir.path() / "a", "first");
    StageWorker worker(Logger(3, 0, false, 0));
    worker.submit({5, 2, 0, {dir.path() / "a", dir.path() / "pfs" / "a", stage_tag(2, 0), 4096}});
    worker.submit({5, 2, 1, {dir.path() / "missing", dir.path() / "pfs" / "b", stage_tag(2, 1), 4096}});
    worker.wait();
    auto events = worker.take_events();
    ASSERT_EQ(events.size(), 4u);
    EXPECT_EQ(events[0].id, 0);
    EXPECT_EQ(events[0].status, StageStatus::active);
    EXPECT_EQ(events[1].status, StageStatus::succeeded);
    EXPECT_EQ(events[2].id, 1);
    EXPECT_EQ(events[3].status, StageStatus::failed);
    EXPECT_EQ(events[3].owner, 5);
    EXPECT_EQ(test::slurp(dir.path() / "pfs" / "a"), "first");
    EXPECT_FALSE(fs::exists(dir.path() / "a")) << "the source goes once the file arrived";
    EXPECT_FALSE(fs::exists(dir.path() / "pfs" / "b"));
    EXPECT_TRUE(worker.take_events().empty());
}

TEST(StageRequestText, PathsWithAnyByteSurvive) {
    StageJob job{0, 3, 42, {"/local/a b\nc", "/pfs/d\ne f", stage_tag(3, 42), 1}};
    StageJob parsed;
    ASSERT_TRUE(parse_stage_request(stage_request_text(job), 9, parsed));
    EXPECT_EQ(parsed.owner, 9);
    EXPECT_EQ(parsed.app_rank, 3);
    EXPECT_EQ(parsed.id, 42);
    EXPECT_EQ(parsed.transfer.from, job.transfer.from);
    EXPECT_EQ(parsed.transfer.to, job.transfer.to);
    EXPECT_EQ(parsed.transfer.tag, "3-42");
    EXPECT_FALSE(parse_stage_request("POST 1 2 3\nrecord", 9, parsed));
    EXPECT_FALSE(parse_stage_request("STAGE 1 2 99\nshort", 9, parsed));
    EXPECT_FALSE(parse_stage_request("FINALIZE", 9, parsed));
}

}  // namespace
}  // namespace mlckpt::core
