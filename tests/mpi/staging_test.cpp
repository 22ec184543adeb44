// Staging (FTI_GetStageDir, FTI_SendFile, FTI_GetStageStatus) through the C
// API, with and without heads: every file arrives complete, a full
// destination is reported as FTI_SI_FAIL and leaves nothing behind, and the
// calls answer as FTI's do.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

std::string payload(int rank, int file) {
    // A few files span several transfer pieces ([advanced] transfer_size = 1).
    const std::size_t bytes = file % 25 == 0 ? (3u << 19) + 17 : 1000u * static_cast<std::size_t>(file % 40) + 13;
    std::string s(bytes, '\0');
    for (std::size_t i = 0; i < bytes; ++i)
        s[i] = static_cast<char>((i * 131 + static_cast<std::size_t>(rank * 7 + file)) % 251);
    return s;
}

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

fs::path stage_dir() {
    char dir[4096];
    EXPECT_FTI(FTI_SCES, FTI_GetStageDir(dir, sizeof dir));
    return dir;
}

// Polls until every request reached a final state (at most 120 s) and
// returns them by id. Each final state is returned once: the id then says
// FTI_SI_NINI.
std::map<int, int> final_states(const std::vector<int>& ids) {
    std::map<int, int> done;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (done.size() < ids.size() && std::chrono::steady_clock::now() < deadline) {
        for (int id : ids) {
            if (done.count(id) != 0) continue;
            const int status = FTI_GetStageStatus(id);
            EXPECT_TRUE(status == FTI_SI_PEND || status == FTI_SI_ACTV || status == FTI_SI_SCES ||
                        status == FTI_SI_FAIL)
                << "request " << id << ": " << status << " " << FTI_LastError();
            if (status == FTI_SI_SCES || status == FTI_SI_FAIL) {
                done[id] = status;
                EXPECT_EQ(FTI_GetStageStatus(id), FTI_SI_NINI) << "a final state is returned once";
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(done.size(), ids.size()) << "requests still unfinished after 120 s";
    return done;
}

std::vector<fs::path> temporary_files(const fs::path& dir) {
    return files_below(dir, [](const fs::path& p) { return p.filename().string().find(".stage-") == 0; });
}

ConfigOptions staging_options() {
    ConfigOptions o;
    o.basic["enable_staging"] = "1";
    o.advanced["transfer_size"] = "1";
    return o;
}

void make_shared_dir(const fs::path& dir) {
    if (world_rank() == 0) fs::create_directories(dir);
    world_barrier();
}

// 100 files per rank, sent from the stage directory around a checkpoint:
// every one arrives complete, its source goes, and FTI_Finalize waits for
// those sent just before it.
TEST(Staging, EveryFileArrivesComplete) {
    std::string cfg = config(staging_options());
    const fs::path pfs = workdir() / "pfs";
    make_shared_dir(pfs);
    if (!start(cfg)) return;
    const fs::path stage = stage_dir();
    ASSERT_TRUE(fs::is_directory(stage)) << stage;
    const int rank = app_rank();
    auto name = [&](const std::string& kind, int i) {
        return "rank" + std::to_string(rank) + "-" + kind + std::to_string(i);
    };
    constexpr int kFiles = 100;
    std::vector<int> ids;
    Dataset d(rank);
    d.protect();
    d.fill(1);
    for (int i = 0; i < kFiles; ++i) {
        // A checkpoint in the middle: with heads, handed to the head between
        // staging requests, and post-processed while it moves files.
        if (i == kFiles / 2) ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        write_file(stage / name("file", i), payload(rank, i));
        const int id = FTI_SendFile((stage / name("file", i)).c_str(), (pfs / name("file", i)).c_str());
        ASSERT_GE(id, 0) << FTI_LastError();
        ids.push_back(id);
    }
    for (const auto& [id, status] : final_states(ids)) EXPECT_EQ(status, FTI_SI_SCES) << "request " << id;
    for (int i = 0; i < kFiles; ++i) {
        EXPECT_EQ(read_file(pfs / name("file", i)), payload(rank, i)) << name("file", i);
        EXPECT_FALSE(fs::exists(stage / name("file", i))) << "the source is moved, not copied";
    }
    // Sent, never asked about: FTI_Finalize returns once they are there.
    for (int i = 0; i < 5; ++i) {
        write_file(stage / name("late", i), payload(rank, i + 1));
        ASSERT_GE(FTI_SendFile((stage / name("late", i)).c_str(), (pfs / name("late", i)).c_str()), 0)
            << FTI_LastError();
    }
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    for (int i = 0; i < 5; ++i) EXPECT_EQ(read_file(pfs / name("late", i)), payload(rank, i + 1)) << name("late", i);
    EXPECT_TRUE(temporary_files(pfs).empty());
}

// A destination that cannot take the file: a 1 MiB tmpfs where mounting is
// allowed (a real ENOSPC), else a file-size limit on the process that moves
// the files (EFBIG): the rank itself without heads, the head with heads.
TEST(Staging, FullDestinationFails) {
    std::string cfg = config(staging_options());
    const fs::path pfs = workdir() / "pfs";
    make_shared_dir(pfs);
    static SmallFileSystem full(workdir() / "full", "1m");  // unmounted when the process ends
    const bool head = heads_mode() && world_rank() % 2 == 0;
    constexpr std::uint64_t kLimit = 1u << 20;
    if (head) {
        // The head moves the files: its whole life under the limit.
        with_file_size_limit(!full.mounted(), kLimit, [&] { start(cfg); });
        return;
    }
    if (!start(cfg)) return;
    const fs::path stage = stage_dir();
    const std::string big = "big-" + std::to_string(app_rank());
    const std::string small = "small-" + std::to_string(app_rank());
    write_file(stage / big, payload(app_rank(), 0) + payload(app_rank(), 25));  // 3 MiB
    write_file(stage / small, "fits");
    std::map<int, int> states;
    with_file_size_limit(!full.mounted() && !heads_mode(), kLimit, [&] {
        const int failing = FTI_SendFile((stage / big).c_str(), (full.dir() / big).c_str());
        ASSERT_GE(failing, 0) << FTI_LastError();
        // The mover goes on after a failure.
        const int next = FTI_SendFile((stage / small).c_str(), (pfs / small).c_str());
        ASSERT_GE(next, 0) << FTI_LastError();
        states = final_states({failing, next});
        EXPECT_EQ(states[failing], FTI_SI_FAIL);
        EXPECT_EQ(states[next], FTI_SI_SCES);
    });
    EXPECT_FALSE(fs::exists(full.dir() / big)) << "no partial file at the destination";
    EXPECT_TRUE(temporary_files(full.dir()).empty()) << "no temporary file left";
    EXPECT_TRUE(fs::exists(stage / big)) << "a failed move keeps its source";
    EXPECT_EQ(read_file(pfs / small), "fits");
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
}

// Phase 1: staging off, every call FTI_NSCS. Phase 2: on; the arguments
// FTI refuses, ids never handed out, and a source that does not exist.
TEST(Staging, CallsFollowFti) {
    std::string cfg = config();
    if (phase() == 2 && world_rank() == 0) {
        std::string text = read_file(cfg);
        text.replace(text.find("[basic]\n"), 8, "[basic]\nenable_staging = 1\n");
        write_file(cfg, text);
    }
    world_barrier();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    char dir[4096];
    if (phase() == 1) {
        EXPECT_FTI(FTI_NSCS, FTI_GetStageDir(dir, sizeof dir));
        EXPECT_NE(std::string(FTI_LastError()).find("enable_staging"), std::string::npos) << FTI_LastError();
        EXPECT_FTI(FTI_NSCS, FTI_SendFile("a", "b"));
        EXPECT_FTI(FTI_NSCS, FTI_GetStageStatus(0));
        EXPECT_FALSE(FTI_GetConfig(cfg.c_str(), FTI_COMM_WORLD).configuration.stagingEnabled);
        ASSERT_FTI(FTI_SCES, FTI_Finalize());
        return;
    }
    const fs::path stage = stage_dir();
    EXPECT_EQ(stage.filename(), "stage");
    const FTIT_allConfiguration all = FTI_GetConfig(cfg.c_str(), FTI_COMM_WORLD);
    EXPECT_TRUE(all.configuration.stagingEnabled);
    EXPECT_EQ(all.configuration.stageDir, stage.string());
    EXPECT_NE(stage.string().find(local_dir().string()), std::string::npos) << stage;
    const int fits = static_cast<int>(stage.string().size()) + 1;
    EXPECT_FTI(FTI_NSCS, FTI_GetStageDir(dir, fits - 1));
    EXPECT_FTI(FTI_SCES, FTI_GetStageDir(dir, fits));
    EXPECT_FTI(FTI_NSCS, FTI_GetStageDir(nullptr, 10));
    EXPECT_FTI(FTI_NSCS, FTI_GetStageDir(dir, 0));
    EXPECT_FTI(FTI_SI_NINI, FTI_GetStageStatus(0));
    EXPECT_FTI(FTI_SI_NINI, FTI_GetStageStatus(-1));
    EXPECT_FTI(FTI_SI_NINI, FTI_GetStageStatus(1 << 30));
    EXPECT_FTI(FTI_NSCS, FTI_SendFile(nullptr, "b"));
    EXPECT_FTI(FTI_NSCS, FTI_SendFile("a", nullptr));
    EXPECT_FTI(FTI_NSCS, FTI_SendFile("", "b"));
    write_file(stage / "same", "x");
    EXPECT_FTI(FTI_NSCS, FTI_SendFile((stage / "same").c_str(), (stage / "." / "same").c_str()));
    EXPECT_FTI(FTI_NSCS, FTI_SendFile((stage / "same").c_str(), (workdir().string() + "/").c_str()));
    // Checked by the mover: reported as a failed request, as FTI's head does.
    const int missing = FTI_SendFile((stage / "missing").c_str(), (workdir() / "missing").c_str());
    ASSERT_EQ(missing, 0) << "ids start at 0: " << FTI_LastError();
    const int nowhere = FTI_SendFile((stage / "same").c_str(), (workdir() / "no-such-dir" / "same").c_str());
    ASSERT_EQ(nowhere, 1) << FTI_LastError();
    auto states = final_states({missing, nowhere});
    EXPECT_EQ(states[missing], FTI_SI_FAIL);
    EXPECT_EQ(states[nowhere], FTI_SI_FAIL);
    EXPECT_TRUE(fs::exists(stage / "same"));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    EXPECT_FALSE(fs::exists(stage)) << "FTI_Finalize removes the stage directory";
}

}  // namespace
}  // namespace mlckpt::test
