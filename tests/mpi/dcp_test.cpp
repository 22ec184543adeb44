// L4 differential checkpoints (FTI_L4_DCP): only changed blocks are written
// (checked against the byte counts the library logs), recovery is bit-exact,
// a crash before an update is committed leaves the file as it was, and a
// crash while a committed update is applied is completed from its journal.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "file_checks.hpp"
#include "format/ftiff/ftiff_file.hpp"
#include "scenario.hpp"
#include "verify.hpp"

namespace mlckpt::test {
namespace {

constexpr std::size_t kBlock = 4096;
constexpr std::size_t kBlocks = 250;  // of variable 0

// `io`: the configured ckpt_io; the L4 differential file is an FTI-FF file
// under every one (FTI has differential checkpoints for POSIX and FTI-FF).
std::string dcp_config(const char* mode, const char* io = "3") {
    ConfigOptions o;
    o.basic["ckpt_io"] = io;
    o.basic["enable_dcp"] = "1";
    o.basic["dcp_mode"] = mode;
    o.basic["dcp_block_size"] = std::to_string(kBlock);
    return config(o);
}

// Two variables: 250 whole blocks of bytes, and doubles ending in a partial block.
struct Data {
    explicit Data(int r) : rank(r), bytes(kBlocks * kBlock), doubles(10000) {}
    void protect() {
        ASSERT_FTI(FTI_SCES, FTI_Protect(0, bytes.data(), static_cast<int64_t>(bytes.size()), FTI_CHAR));
        ASSERT_FTI(FTI_SCES, FTI_Protect(1, doubles.data(), static_cast<int64_t>(doubles.size()), FTI_DBLE));
    }
    void fill(int version) {
        for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(pattern(rank, 0, version, i));
        for (std::size_t i = 0; i < doubles.size(); ++i) {
            doubles[i] = static_cast<double>(pattern(rank, 1, version, i) >> 12);
        }
    }
    // Changes one byte in every tenth block of variable 0 (10 % of its blocks).
    void touch_every_tenth_block() {
        for (std::size_t k = 0; k < kBlocks; k += 10) bytes[k * kBlock + 17] ^= 0x5a;
    }
    std::size_t protected_bytes() const { return bytes.size() + doubles.size() * sizeof(double); }
    // dCP checkpoints 1 (every block written) and 2 (every tenth block).
    void checkpoint_whole_then_a_tenth() {
        fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4_DCP));
        touch_every_tenth_block();
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4_DCP));
    }

    int rank;
    std::vector<char> bytes;
    std::vector<double> doubles;
};

// Phase 1 of the scenarios that start a dCP stack: `start` (FTI_Init, the
// data protected), then checkpoints 1 (whole) and 2 (a tenth of the blocks
// changed). False after a fatal failure.
bool first_two_checkpoints(const std::function<void()>& start, std::optional<Data>& data) {
    start();
    if (::testing::Test::HasFatalFailure()) return false;
    data->checkpoint_whole_then_a_tenth();
    return !::testing::Test::HasFatalFailure();
}

// A restart: FTI_Recover brings back the data of `version`, bit for bit.
void expect_restart_recovers(Data& d, int version) {
    EXPECT_EQ(FTI_Status(), 1);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    Data expected(app_rank());
    expected.fill(version);
    EXPECT_EQ(d.bytes, expected.bytes);
    EXPECT_EQ(d.doubles, expected.doubles);
}

// The name of the L4 differential file of the rank named `rank` (file_rank)
// under ckpt_io `io`: FTI's name for its own dCP file, POSIX dCP's
// (<glbl_dir>/<E>/dCP/dcp-id<stack>-rank<R>.fti, mlckpt's stack always 0)
// with ckpt_io = 1, FTI-FF dCP's (dCP/dCPFile-Rank<R>.fti) with the others.
std::string dcp_name(int rank, const char* io = "3") {
    return (std::string(io) == "1" ? "dcp-id0-rank" : "dCPFile-Rank") + std::to_string(rank) + ".fti";
}
std::string own_dcp_name(const char* io = "3") {
    return dcp_name(file_rank(app_rank()), io);
}

// This rank's dCP file, once its last update is applied (after the commit,
// on the rank's background thread, which then removes the journal), in
// <glbl_dir>/<E>/dCP/ as FTI keeps its own.
fs::path applied_dcp_file(const char* io = "3") {
    EXPECT_TRUE(removed_in_background(own_dcp_name(io) + ".journal")) << "the journal was never applied";
    fs::path file = the_file(own_dcp_name(io));
    EXPECT_EQ(file.parent_path().filename(), "dCP") << file;
    EXPECT_EQ(file.parent_path().parent_path().parent_path(), global_dir()) << file;
    return file;
}

// Checkpoints at FTI_L4_DCP and returns the data bytes written by all ranks,
// read from the library's log line on rank 0 (-1 on other ranks).
long long dcp_checkpoint(int id, long long expected_protected) {
    if (app_rank() == 0) testing::internal::CaptureStdout();
    int rc = FTI_Checkpoint(id, FTI_L4_DCP);
    std::string out = app_rank() == 0 ? testing::internal::GetCapturedStdout() : "";
    EXPECT_EQ(rc, FTI_DONE) << FTI_LastError();
    if (app_rank() != 0) return -1;
    std::smatch m;
    static const std::regex line(R"(L4 differential checkpoint \d+: (\d+) of (\d+) protected bytes written)");
    EXPECT_TRUE(std::regex_search(out, m, line)) << out;
    if (m.empty()) return -2;
    EXPECT_EQ(std::stoll(m[2]), expected_protected);
    const long long written = std::stoll(m[1]);
    // FTI's statistics line, whose 19th field FTI's test suite reads as the share.
    std::smatch f;
    static const std::regex fti_line(R"(\[ FTI  dCP Message \] : Total CP data: [0-9.]+ [MGT]B, Total dCP update: )"
                                     R"([0-9.]+ [MGT]B, dCP share: [0-9.]+%)");
    EXPECT_TRUE(std::regex_search(out, f, fti_line)) << out;
    if (!f.empty()) {
        std::istringstream fields(f.str());
        std::string field;
        for (int i = 0; i < 19; ++i) fields >> field;
        char share[32];
        std::snprintf(share, sizeof share, "%.2f%%",
                      expected_protected == 0
                          ? 0.0
                          : 100.0 * static_cast<double>(written) / static_cast<double>(expected_protected));
        EXPECT_EQ(field, share) << f.str();
    }
    return written;
}

// A rank's layered L4 differential file (ckpt_io = 1) as the metadata of
// the newest dCP checkpoint records it: the file and its layers.
struct LayeredFile {
    fs::path path;
    std::vector<core::DcpLayer> layers;
    int ckpt_id = -1;  // the checkpoint's, as the metadata records it
};
LayeredFile layered_file_of(int rank) {
    const std::vector<fs::path> metas = files_below(
        meta_dir(), [](const fs::path& f) { return f.extension() == ".meta" && f.stem().extension() == ".l8"; });
    EXPECT_EQ(metas.size(), 1u) << "one L4 differential checkpoint in " << meta_dir();
    if (metas.empty()) return {};
    const core::CheckpointMeta meta = core::parse_meta(core::read_text_file(metas.front()), metas.front().string());
    for (const core::FileRecord& f : meta.files) {
        if (f.rank == rank) return {the_file(f.file), f.layers, meta.ckpt_id};
    }
    ADD_FAILURE() << "no record of rank " << rank;
    return {};
}

void only_changed_blocks(const char* mode, const char* io = "3") {
    std::string cfg = dcp_config(mode, io);
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    int ranks = 0;
    MPI_Comm_size(FTI_COMM_WORLD, &ranks);
    Data d(app_rank());
    d.protect();
    const long long total = static_cast<long long>(d.protected_bytes()) * ranks;
    const bool zero = app_rank() == 0;
    if (phase() == 1) {
        d.fill(1);
        long long first = dcp_checkpoint(1, total);
        if (zero) {
            EXPECT_EQ(first, total) << "the first dCP checkpoint writes everything";
        }
        long long unchanged = dcp_checkpoint(2, total);
        if (zero) {
            EXPECT_EQ(unchanged, 0) << "nothing changed, no data written";
        }
        d.touch_every_tenth_block();
        long long tenth = dcp_checkpoint(3, total);
        if (zero) {
            EXPECT_EQ(tenth, static_cast<long long>(kBlocks / 10 * kBlock) * ranks);
        }
        d.fill(2);
        long long all = dcp_checkpoint(4, total);
        if (zero) {
            EXPECT_EQ(all, total) << "every block changed";
        }
        MPI_Barrier(FTI_COMM_WORLD);
        if (std::string(io) == "1") {
            // One file per rank, a layer per checkpoint (FTI's POSIX dCP).
            const LayeredFile mine = layered_file_of(app_rank());
            EXPECT_EQ(mine.path.filename(), own_dcp_name(io));
            ASSERT_EQ(mine.layers.size(), 4u);
            for (int i = 0; i < 4; ++i) EXPECT_EQ(mine.layers[i].ckpt_id, i + 1);
            EXPECT_EQ(fs::file_size(mine.path), mine.layers[3].offset + mine.layers[3].size);
            EXPECT_TRUE(find_files(data_file(4, app_rank())).empty()) << "no per-checkpoint file";
            return;  // crash
        }
        // One file per rank, updated in place: still a sound FTI-FF file of one block.
        fs::path file = applied_dcp_file(io);
        core::File f = core::File::open_read(file);
        core::ftiff::FileStructure s = core::ftiff::read_structure(f);
        EXPECT_EQ(s.layout.blocks().size(), 1u);
        EXPECT_EQ(s.fb.hash_block, kBlock) << "version 2: chunk hashes from the dCP blocks' CRCs";
        EXPECT_EQ(core::ftiff::verify_chunks(f, s.layout, 1 << 16), 2u);
        EXPECT_TRUE(find_files(data_file(4, app_rank())).empty()) << "no per-checkpoint file";
        expect_recorded_size_and_crc(4, 8, file);
        return;  // crash
    }
    expect_restart_recovers(d, 2);
    // The recovered data is the baseline: an unchanged checkpoint writes nothing.
    long long after_restart = dcp_checkpoint(5, total);
    if (zero) {
        EXPECT_EQ(after_restart, 0);
    }
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    EXPECT_TRUE(find_files(dcp_name(world_rank(), io)).empty());
}

TEST(Dcp, OnlyChangedBlocksAreWrittenMd5) {
    only_changed_blocks("1");
}

TEST(Dcp, OnlyChangedBlocksAreWrittenWithPosixFiles) {
    only_changed_blocks("1", "1");
}

TEST(Dcp, OnlyChangedBlocksAreWrittenWithMpiioFiles) {
    only_changed_blocks("2", "2");
}

// As FTI: without dCP, FTI_L4_DCP takes a full L4 checkpoint (with a
// warning), and levels 5 to 7 are levels 1 to 3.
TEST(Dcp, L4DcpWithoutDcpTakesAFullL4) {
    ConfigOptions o;
    o.basic["enable_dcp"] = "0";
    o.basic["dcp_block_size"] = "-1";
    std::string cfg = config(o);
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Data d(app_rank());
    d.protect();
    if (phase() == 1) {
        d.fill(1);
        if (app_rank() == 0) {
            testing::internal::CaptureStdout();
            testing::internal::CaptureStderr();
        }
        int rc = FTI_Checkpoint(1, FTI_L4_DCP);
        std::string out;
        if (app_rank() == 0) {
            out = testing::internal::GetCapturedStdout();
            out += testing::internal::GetCapturedStderr();
        }
        ASSERT_EQ(rc, FTI_DONE) << FTI_LastError();
        if (app_rank() == 0) {
            EXPECT_NE(out.find("FTI_L4_DCP requested, but differential checkpoints are off"), std::string::npos) << out;
            EXPECT_NE(out.find("(L4)"), std::string::npos) << out;
        }
        d.fill(2);
        ASSERT_EQ(FTI_Checkpoint(2, 5), FTI_DONE) << FTI_LastError();  // L1
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_TRUE(
            files_matching("(dcp-id\\d+-rank|dCPFile-Rank|dCP-Rank)" + std::to_string(file_rank(app_rank())) + "\\.fti")
                .empty())
            << "no dCP file";
        std::vector<fs::path> l4 = find_files(data_file(1, app_rank()));
        ASSERT_EQ(l4.size(), 1u) << "the L4 checkpoint stays";
        EXPECT_NE(l4[0].string().find("/l4/"), std::string::npos) << l4[0];
        std::vector<fs::path> l1 = find_files(data_file(2, app_rank()));
        ASSERT_EQ(l1.size(), 1u);
        EXPECT_NE(l1[0].string().find("/l1/"), std::string::npos) << "level 5 is L1: " << l1[0];
        return;  // crash
    }
    expect_restart_recovers(d, 2);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}
TEST(Dcp, OnlyChangedBlocksAreWrittenCrc32) {
    only_changed_blocks("2");
}

// World rank 0, between launches: damages the newest layer of application
// rank `victim`'s file, as FTI's dCP test does (cut off its last `cut`
// bytes) or by overwriting 8 bytes in its middle (`cut` 0).
void damage_newest_layer(int victim, std::uint64_t cut) {
    const LayeredFile f = layered_file_of(victim);
    ASSERT_GE(f.layers.size(), 2u);
    const core::DcpLayer& newest = f.layers.back();
    ASSERT_EQ(fs::file_size(f.path), newest.offset + newest.size) << f.path;
    if (cut != 0) {
        fs::resize_file(f.path, newest.offset + newest.size - cut);
        return;
    }
    std::fstream io(f.path, std::ios::in | std::ios::out | std::ios::binary);
    const auto at = static_cast<std::streamoff>(newest.offset + newest.size / 2);
    char bytes[8];
    io.seekg(at);
    io.read(bytes, sizeof bytes);
    for (char& b : bytes) b = static_cast<char>(~b);
    io.seekp(at);
    io.write(bytes, sizeof bytes);
    ASSERT_TRUE(io.good()) << f.path;
}

// World rank 0, between launches: the L4 differential files (with any
// journal) and the metadata that records them, as mlckpt left them before it
// took FTI's names: <glbl_dir>/<E>/dcp/dCP-Rank<R>.fti, named so in the
// metadata of each L4 differential checkpoint and in its copy beside the
// data (both rewritten with their checksums, the same text).
// With `in_place_posix`, they are left as the version before layered files
// named its in-place FTI-FF file with ckpt_io = 1: dCP/dcp-id0-rank<R>.fti.
void as_an_earlier_version_left_it(bool in_place_posix = false) {
    static const std::regex fti_name(R"((?:dcp-id0-rank|dCPFile-Rank)(\d+)\.fti(\.journal)?)");
    const std::string dir = in_place_posix ? "dCP" : "dcp";
    auto renamed = [&](const std::smatch& m, const std::string& tail) {
        return (in_place_posix ? "dcp-id0-rank" : "dCP-Rank") + m[1].str() + ".fti" + tail;
    };
    int moved = 0;
    for (const fs::directory_entry& exec : fs::directory_iterator(global_dir())) {
        const fs::path now = exec.path() / "dCP";
        if (!fs::is_directory(now)) continue;
        const fs::path before = exec.path() / dir;
        fs::create_directory(before);
        std::vector<fs::path> files;
        for (const fs::directory_entry& file : fs::directory_iterator(now)) files.push_back(file.path());
        for (const fs::path& file : files) {
            const std::string name = file.filename().string();
            std::smatch m;
            ASSERT_TRUE(std::regex_match(name, m, fti_name)) << file;
            fs::rename(file, before / renamed(m, m[2].str()));
            ++moved;
        }
        if (!in_place_posix) fs::remove(now);
    }
    EXPECT_GE(moved, world_size());
    const std::vector<fs::path> metas = files_below(
        workdir(), [](const fs::path& f) { return f.extension() == ".meta" && f.stem().extension() == ".l8"; });
    ASSERT_GE(metas.size(), 2u) << "the metadata and its copy";
    for (const fs::path& path : metas) {
        core::CheckpointMeta meta = core::parse_meta(core::read_text_file(path), path.string());
        for (core::FileRecord& f : meta.files) {
            std::smatch m;
            const std::string name = f.file;
            ASSERT_TRUE(std::regex_match(name, m, fti_name)) << f.file;
            f.file = renamed(m, "");
        }
        std::ofstream(path, std::ios::trunc) << core::serialize_meta(meta);
    }
}

// The restart finds the L4 differential files under other names than this
// run's: an earlier version's (`earlier_version`), or those of ckpt_io
// `io_before` where this run has `io_after`.
// Phase 1: dCP checkpoints 1 and 2 (10 % of the blocks changed), ends as a
// crash would; then, before the relaunch, the files take the other names
// (world rank 0), and mlckpt verify finds checkpoint 2 intact there.
// Phase 2: the restart recovers checkpoint 2 bit for bit from those files.
// Checkpoint 3 changes nothing but writes a new file, whole, under this
// run's names (FTI's): the other file is not updated in place, and it goes
// with checkpoint 2. Checkpoint 4 writes only its changed blocks into the
// new file. Ends as a crash would.
// Phase 3: the restart recovers checkpoint 4 bit for bit, and FTI_Finalize
// leaves no L4 differential file under any name.
enum class Earlier { none, legacy, in_place_posix };
void restarts_from_files_named_otherwise(const char* io_before, const char* io_after, Earlier earlier) {
    const bool earlier_version = earlier != Earlier::none;
    std::string cfg = dcp_config("2", io_before);
    std::optional<Data> data;
    auto start = [&] {
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        data.emplace(app_rank()).protect();
    };
    auto expect_data = [&](const std::function<void(Data&)>& make_expected) {
        Data expected(app_rank());
        make_expected(expected);
        EXPECT_EQ(data->bytes, expected.bytes);
        EXPECT_EQ(data->doubles, expected.doubles);
    };
    if (phase() == 1) {
        if (!first_two_checkpoints(start, data)) return;
        applied_dcp_file(io_before);
        return;  // crash
    }
    if (phase() == 2) {
        if (world_rank() == 0) {
            if (earlier_version) as_an_earlier_version_left_it(earlier == Earlier::in_place_posix);
            if (std::string(io_before) != io_after) {
                const std::string text = core::read_text_file(cfg);
                std::ofstream(cfg, std::ios::trunc) << std::regex_replace(
                    text, std::regex("ckpt_io = " + std::string(io_before)), "ckpt_io = " + std::string(io_after));
            }
            std::ostringstream out;
            std::ostringstream err;
            EXPECT_EQ(tools::verify({cfg}, out, err), 0) << out.str() << err.str();
            const std::string ranks = std::to_string(world_size()) + (world_size() == 1 ? " rank" : " ranks");
            const std::string format =
                std::string(io_before) == "1" && !earlier_version ? "POSIX dCP layers" : "FTI-FF";
            EXPECT_NE(out.str().find("checkpoint 2 (L4 differential, seq 2, " + format + ", " + ranks +
                                     "): intact; a restart can use it"),
                      std::string::npos)
                << out.str();
        }
        world_barrier();
        start();
        if (::testing::Test::HasFatalFailure()) return;
        Data& d = *data;
        int ranks = 0;
        MPI_Comm_size(FTI_COMM_WORLD, &ranks);
        const long long total = static_cast<long long>(d.protected_bytes()) * ranks;
        const std::string r = std::to_string(file_rank(app_rank()));
        const std::string old_name = earlier == Earlier::legacy           ? "dCP-Rank" + r + ".fti"
                                     : earlier == Earlier::in_place_posix ? "dcp-id0-rank" + r + ".fti"
                                                                          : own_dcp_name(io_before);
        // With ckpt_io = 1 the new file is a stack of layers, after any stack there.
        const std::string new_name = std::string(io_after) != "1"         ? own_dcp_name(io_after)
                                     : earlier == Earlier::in_place_posix ? "dcp-id1-rank" + r + ".fti"
                                                                          : "dcp-id0-rank" + r + ".fti";
        EXPECT_EQ(FTI_Status(), 1);
        ASSERT_FTI(FTI_SCES, FTI_Recover());
        expect_data([](Data& e) {
            e.fill(1);
            e.touch_every_tenth_block();
        });
        EXPECT_EQ(the_file(old_name).parent_path().filename(), earlier == Earlier::legacy ? "dcp" : "dCP");
        long long whole = dcp_checkpoint(3, total);
        if (app_rank() == 0) {
            EXPECT_EQ(whole, total) << "a new file, written whole";
        }
        EXPECT_TRUE(removed_in_background(old_name)) << "the file under the other names goes with checkpoint 2";
        d.touch_every_tenth_block();
        long long tenth = dcp_checkpoint(4, total);
        if (app_rank() == 0) {
            EXPECT_EQ(tenth, static_cast<long long>(kBlocks / 10 * kBlock) * ranks) << "the new file is updated";
        }
        MPI_Barrier(FTI_COMM_WORLD);
        if (std::string(io_after) == "1") {
            const LayeredFile mine = layered_file_of(app_rank());
            EXPECT_EQ(mine.path.filename(), new_name);
            EXPECT_EQ(mine.layers.size(), 2u) << "checkpoints 3 and 4";
        } else {
            expect_recorded_size_and_crc(4, 8, applied_dcp_file(io_after));
        }
        return;  // crash
    }
    start();
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_EQ(FTI_Status(), 1);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    expect_data([](Data& e) { e.fill(1); });  // touched twice: as it was
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    EXPECT_TRUE(files_matching("(dcp-id\\d+-rank|dCPFile-Rank|dCP-Rank)\\d+\\.fti.*").empty());
}

// Files an earlier version of mlckpt wrote (dcp/dCP-Rank<R>.fti).
// Those were FTI-FF files updated in place whatever ckpt_io said; the restart
// with ckpt_io = 1 starts a layered file.
TEST(Dcp, RestartsFromAnEarlierVersionsFiles) {
    restarts_from_files_named_otherwise("3", "1", Earlier::legacy);
}

// The in-place FTI-FF file the version before layered files wrote with
// ckpt_io = 1 under FTI's name, dCP/dcp-id0-rank<R>.fti: the restart
// recovers from it, and the next checkpoint starts stack 1
// (dcp-id1-rank<R>.fti) whole, never writing over it; dcp-id0 goes once it
// is committed.
TEST(Dcp, RestartsFromTheInPlacePosixFilesBeforeLayers) {
    restarts_from_files_named_otherwise("3", "1", Earlier::in_place_posix);
}

// Files a run with ckpt_io = 1 wrote (dCP/dcp-id0-rank<R>.fti), restarted with ckpt_io = 3.
TEST(Dcp, RestartsFromFilesOfAnotherCkptIo) {
    restarts_from_files_named_otherwise("1", "3", Earlier::none);
}

std::string layered_config(int stack_size = 5) {
    ConfigOptions o;
    o.basic["ckpt_io"] = "1";
    o.basic["enable_dcp"] = "1";
    o.basic["dcp_mode"] = "2";
    o.basic["dcp_block_size"] = std::to_string(kBlock);
    o.basic["dcp_stack_size"] = std::to_string(stack_size);
    return config(o);
}

// ckpt_io = 1: each dCP checkpoint appends a layer to the rank's file.
// Phase 1: checkpoints 1, 2 and 3 (10 % of the blocks changed each time)
// in three layers of dcp-id0-rank<R>.fti. Ends as a crash would.
// Phase 2: FTI's dCP test's damage: the last rank's file loses the last
// 3000 bytes of its newest layer. The restart falls back, on every rank, to
// checkpoint 2, the newest layer intact on all: it recovers it bit for bit,
// the metadata now records checkpoint 2's layers, and every file ends with
// it. Checkpoint 3 is taken again, appended: only its changed blocks.
// Phase 3: 8 bytes in the middle of rank 0's newest layer are overwritten:
// the restart falls back to checkpoint 2 again, bit for bit.
TEST(Dcp, LayersFallBackToTheNewestIntactOnEveryRank) {
    const std::string cfg = layered_config();
    const int victim = app_ranks_expected() - 1;
    std::optional<Data> data;
    auto start = [&] {
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        data.emplace(app_rank()).protect();
    };
    auto checkpoint_2 = [](Data& e) {
        e.fill(1);
        e.touch_every_tenth_block();
    };
    if (phase() == 1) {
        if (!first_two_checkpoints(start, data)) return;
        Data& d = *data;
        d.bytes[5] ^= 0x11;
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(3, FTI_L4_DCP));
        const LayeredFile mine = layered_file_of(app_rank());
        EXPECT_EQ(mine.path.filename(), dcp_name(file_rank(app_rank()), "1"));
        ASSERT_EQ(mine.layers.size(), 3u);
        EXPECT_EQ(mine.layers[2].ckpt_id, 3);
        EXPECT_EQ(fs::file_size(mine.path), mine.layers[2].offset + mine.layers[2].size);
        return;  // crash
    }
    if (world_rank() == 0) {
        std::ostringstream out;
        std::ostringstream err;
        tools::verify({cfg}, out, err);
        EXPECT_NE(out.str().find(std::string("layers (checkpoints 1 to 3), each intact")), std::string::npos)
            << out.str() << err.str();
        damage_newest_layer(phase() == 2 ? victim : 0, phase() == 2 ? 3000 : 0);
        out.str("");
        tools::verify({cfg}, out, err);
        EXPECT_NE(out.str().find("and those before are intact: a restart falls back to the newest layer intact on "
                                 "every rank"),
                  std::string::npos)
            << out.str() << err.str();
    }
    world_barrier();
    start();
    if (::testing::Test::HasFatalFailure()) return;
    Data& d = *data;
    EXPECT_EQ(FTI_Status(), 1);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    Data expected(app_rank());
    checkpoint_2(expected);
    EXPECT_EQ(d.bytes, expected.bytes);
    EXPECT_EQ(d.doubles, expected.doubles);
    const LayeredFile mine = layered_file_of(app_rank());
    ASSERT_EQ(mine.layers.size(), 2u) << "the metadata records checkpoint 2's layers";
    EXPECT_EQ(mine.layers[1].ckpt_id, 2);
    EXPECT_EQ(mine.ckpt_id, 2) << "the checkpoint recovered is checkpoint 2";
    EXPECT_EQ(fs::file_size(mine.path), mine.layers[1].offset + mine.layers[1].size) << "cut back to its layer";
    if (phase() == 3) {
        ASSERT_FTI(FTI_SCES, FTI_Finalize());
        return;
    }
    int ranks = 0;
    MPI_Comm_size(FTI_COMM_WORLD, &ranks);
    d.bytes[5] ^= 0x11;
    const long long written = dcp_checkpoint(3, static_cast<long long>(d.protected_bytes()) * ranks);
    if (app_rank() == 0) {
        EXPECT_EQ(written, static_cast<long long>(kBlock) * ranks) << "one block per rank";
    }
    EXPECT_EQ(layered_file_of(app_rank()).layers.size(), 3u);
    // crash
}

// dcp_stack_size = 2: checkpoints 1 and 2 in dcp-id0-rank<R>.fti; 3 starts
// dcp-id1-rank<R>.fti, written whole, and dcp-id0 goes once it is
// committed; 4 is appended to it. Phase 2: the newest layer of the last
// rank's file is cut: the restart falls back to checkpoint 3, the first
// layer of stack 1, without the metadata of any older checkpoint.
TEST(Dcp, LayerStackRollsOver) {
    const std::string cfg = layered_config(2);
    if (phase() == 2) {
        if (world_rank() == 0) damage_newest_layer(app_ranks_expected() - 1, 3000);
        world_barrier();
    }
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Data d(app_rank());
    d.protect();
    int ranks = 0;
    MPI_Comm_size(FTI_COMM_WORLD, &ranks);
    const long long total = static_cast<long long>(d.protected_bytes()) * ranks;
    const long long tenth = static_cast<long long>(kBlocks / 10 * kBlock) * ranks;
    const std::string r = std::to_string(file_rank(app_rank()));
    if (phase() == 1) {
        d.fill(1);
        long long written = dcp_checkpoint(1, total);
        d.touch_every_tenth_block();
        long long second = dcp_checkpoint(2, total);
        EXPECT_EQ(layered_file_of(app_rank()).layers.size(), 2u);
        d.touch_every_tenth_block();
        long long third = dcp_checkpoint(3, total);
        EXPECT_TRUE(removed_in_background("dcp-id0-rank" + r + ".fti")) << "the stack before goes";
        LayeredFile mine = layered_file_of(app_rank());
        EXPECT_EQ(mine.path.filename(), "dcp-id1-rank" + r + ".fti");
        EXPECT_EQ(mine.layers.size(), 1u);
        d.touch_every_tenth_block();
        long long fourth = dcp_checkpoint(4, total);
        mine = layered_file_of(app_rank());
        EXPECT_EQ(mine.path.filename(), "dcp-id1-rank" + r + ".fti");
        EXPECT_EQ(mine.layers.size(), 2u);
        if (app_rank() == 0) {
            EXPECT_EQ(written, total);
            EXPECT_EQ(second, tenth);
            EXPECT_EQ(third, total) << "a new stack is written whole";
            EXPECT_EQ(fourth, tenth);
        }
        return;  // crash
    }
    EXPECT_EQ(FTI_Status(), 1);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    Data expected(app_rank());
    expected.fill(1);
    for (int i = 0; i < 2; ++i) expected.touch_every_tenth_block();  // checkpoint 3
    EXPECT_EQ(d.bytes, expected.bytes);
    EXPECT_EQ(d.doubles, expected.doubles);
    const LayeredFile mine = layered_file_of(app_rank());
    EXPECT_EQ(mine.layers.size(), 1u);
    EXPECT_EQ(mine.ckpt_id, 3) << "the checkpoint recovered is checkpoint 3";
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    EXPECT_TRUE(files_matching("dcp-id\\d+-rank\\d+\\.fti").empty());
}

// Phase 1 of the crash scenarios: dCP checkpoints 1 and 2 (the second
// changes 10 % of the blocks), then rank `victim` armed to be killed at
// fault point `point` of checkpoint 3, whose data (`d`) is version 3.
void checkpoint_twice_then_arm(std::optional<Data>& data, const std::string& cfg, const char* point, int victim) {
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Data& d = data.emplace(app_rank());
    d.protect();
    d.fill(1);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4_DCP));
    d.touch_every_tenth_block();
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4_DCP));
    mark("two-checkpoints-done");
    std::string spec = std::string(point) + ":" + std::to_string(victim) + ":3";
    ::setenv("MLCKPT_FAULT_INJECT", spec.c_str(), 1);
    d.fill(3);
}

// Phase 2: the restart recovers the data `make_expected` fills, bit for
// bit, and leaves no journal.
void restart_recovers(const std::string& cfg, const std::function<void(Data&)>& make_expected) {
    ASSERT_TRUE(marked("two-checkpoints-done"));
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    EXPECT_EQ(FTI_Status(), 1);
    Data d(app_rank());
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    Data expected(app_rank());
    make_expected(expected);
    EXPECT_EQ(d.bytes, expected.bytes);
    EXPECT_EQ(d.doubles, expected.doubles);
    EXPECT_TRUE(files_matching(".*\\.journal").empty());
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// Rank `victim` is killed at fault point `point` of checkpoint 3: checkpoint
// 3 was never committed, the restart discards its journals and recovers
// checkpoint 2 bit for bit.
void crash_rolls_back(const char* point, int victim, const char* io = "3") {
    std::string cfg = dcp_config("2", io);
    if (phase() == 1) {
        std::optional<Data> d;
        checkpoint_twice_then_arm(d, cfg, point, victim);
        if (::testing::Test::HasFatalFailure()) return;
        FTI_Checkpoint(3, FTI_L4_DCP);
        ADD_FAILURE() << "rank " << victim << " should have been killed";
        return;
    }
    restart_recovers(cfg, [](Data& expected) {
        expected.fill(1);
        expected.touch_every_tenth_block();
    });
}

// Killed after journaling part of its changed blocks.
TEST(Dcp, CrashDuringUpdateRollsBack) {
    crash_rolls_back("during_dcp_update", app_ranks_expected() - 1);
}
// Killed once its journal is sealed and synced, block records and file block
// included, before the ranks agree.
TEST(Dcp, CrashAfterTheJournalIsSealedRollsBack) {
    crash_rolls_back("after_data_write", app_ranks_expected() - 1);
}
// Rank 0 killed once every journal is sealed, before the metadata commit.
TEST(Dcp, CrashBeforeTheCommitRollsBack) {
    crash_rolls_back("before_meta_commit", 0);
}

// ckpt_io = 1, layered files: the last rank is killed while it appends the
// layer of checkpoint 3, after its first variable; the restart recovers
// checkpoint 2 from the layers the metadata records, whatever the
// interrupted append left past them.
TEST(Dcp, LayeredCrashDuringAppendRollsBack) {
    crash_rolls_back("during_dcp_update", app_ranks_expected() - 1, "1");
}
// Every layer of checkpoint 3 appended and synced, rank 0 killed before the commit.
TEST(Dcp, LayeredCrashBeforeTheCommitRollsBack) {
    crash_rolls_back("before_meta_commit", 0, "1");
}

// The last rank is killed on its background thread once checkpoint 3 is
// committed, after applying the first record of its journal to its file:
// the restart completes the update from the journal and recovers
// checkpoint 3 bit for bit. With `lose_metadata`, the metadata directory is
// lost as well: the restart restores it from the copies beside the data,
// and only then is the journal's update known to have committed.
void journal_applied_at_restart(bool lose_metadata, bool earlier_version = false) {
    std::string cfg = dcp_config("2");
    const int victim = app_ranks_expected() - 1;
    if (phase() == 1) {
        std::optional<Data> d;
        checkpoint_twice_then_arm(d, cfg, "during_dcp_apply", victim);
        if (::testing::Test::HasFatalFailure()) return;
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(3, FTI_L4_DCP));
        // No FTI_Finalize: it would mark the execution as ended cleanly. The
        // victim's worker thread reaches the fault point while applying its
        // journal; every rank sleeps meanwhile (a barrier would poll, and
        // take the cores that thread needs on a loaded machine) until the
        // launcher ends the job, well within the launch's bound.
        std::this_thread::sleep_for(std::chrono::seconds(240));
        ADD_FAILURE() << "rank " << victim << " should have been killed";
        return;
    }
    if (world_rank() == 0) {
        EXPECT_FALSE(find_files(dcp_name(file_rank(victim)) + ".journal").empty())
            << "the victim's journal was left to apply";
        if (earlier_version) as_an_earlier_version_left_it();
        if (lose_metadata) {
            for (const auto& entry : fs::directory_iterator(meta_dir())) fs::remove_all(entry.path());
        }
    }
    world_barrier();
    restart_recovers(cfg, [](Data& expected) { expected.fill(3); });
}

TEST(Dcp, CrashWhileTheJournalIsAppliedRollsForward) {
    journal_applied_at_restart(false);
}

// The same with the files as an earlier version named them: the journal
// beside dcp/dCP-Rank<R>.fti is applied to that file.
TEST(Dcp, AnEarlierVersionsJournalRollsForward) {
    journal_applied_at_restart(false, true);
}

TEST(Dcp, LostMetadataStillRollsTheJournalForward) {
    journal_applied_at_restart(true);
}

// The restarted run protects only variable 0: variable 1 keeps its
// containers in the dCP file, emptied, and its old bytes are zeroed, so the
// file is exactly what its records (and the metadata's CRC) say.
TEST(Dcp, VariableNoLongerProtectedIsEmptied) {
    std::string cfg = dcp_config("1");
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Data d(app_rank());
    if (phase() == 1) {
        d.protect();
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4_DCP));
        return;  // crash
    }
    ASSERT_FTI(FTI_SCES, FTI_Protect(0, d.bytes.data(), static_cast<int64_t>(d.bytes.size()), FTI_CHAR));
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    d.touch_every_tenth_block();
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4_DCP));
    fs::path file = applied_dcp_file();
    core::File f = core::File::open_read(file);
    core::ftiff::Layout layout = core::ftiff::read_structure(f).layout;
    auto dropped = layout.chunks_of(1);
    ASSERT_EQ(dropped.size(), 1u);
    EXPECT_FALSE(dropped[0]->has_content);
    EXPECT_EQ(dropped[0]->chunk_size, 0);
    std::vector<std::byte> old(static_cast<std::size_t>(dropped[0]->container_size));
    f.read_exact_at(old, static_cast<std::uint64_t>(dropped[0]->fptr));
    EXPECT_EQ(std::count(old.begin(), old.end(), std::byte{0}), static_cast<std::ptrdiff_t>(old.size()));
    expect_recorded_size_and_crc(2, 8, file);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// A variable that grows gets a second container whose chunk starts in the
// middle of a dCP block (byte 10000 of 4096-byte blocks): its hash blocks
// then differ from the blocks that find the changes, and both must agree
// with what the reader computes. One changed byte in it rewrites one block.
TEST(Dcp, GrownVariableHashesItsUnalignedChunk) {
    std::string cfg = dcp_config("2");
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    int ranks = 0;
    MPI_Comm_size(FTI_COMM_WORLD, &ranks);
    std::vector<char> v(10000);
    auto fill = [&](int version) {
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<char>(pattern(app_rank(), 0, version, i));
    };
    auto protect = [&] { ASSERT_FTI(FTI_SCES, FTI_Protect(0, v.data(), static_cast<int64_t>(v.size()), FTI_CHAR)); };
    protect();
    if (phase() == 1) {
        fill(1);
        dcp_checkpoint(1, 10000LL * ranks);
        v.resize(25000);
        fill(2);
        protect();
        dcp_checkpoint(2, 25000LL * ranks);
        v[20000] ^= 0x21;  // in dCP block 4 (16384..20479), the grown chunk's second hash block
        long long written = dcp_checkpoint(3, 25000LL * ranks);
        if (app_rank() == 0) {
            EXPECT_EQ(written, 4096LL * ranks);
        }
        MPI_Barrier(FTI_COMM_WORLD);
        fs::path file = applied_dcp_file();
        core::File f = core::File::open_read(file);
        core::ftiff::FileStructure s = core::ftiff::read_structure(f);
        auto chunks = s.layout.chunks_of(0);
        ASSERT_EQ(chunks.size(), 2u);
        EXPECT_EQ(chunks[1]->dptr, 10000);
        EXPECT_EQ(core::ftiff::verify_chunks(f, s.layout, 1000), 2u);
        expect_recorded_size_and_crc(3, 8, file);
        return;  // crash
    }
    v.resize(25000);
    protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    std::vector<char> expected = v;
    v.assign(25000, 0);
    fill(2);
    v[20000] ^= 0x21;
    EXPECT_EQ(expected, v);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// A full L4 checkpoint supersedes the dCP chain and removes its files.
TEST(Dcp, FullL4CheckpointReplacesTheDcpFiles) {
    std::string cfg = dcp_config("1");
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Data d(app_rank());
    d.protect();
    if (phase() == 1) {
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4_DCP));
        d.fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4));
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_TRUE(removed_in_background(own_dcp_name()));
        return;
    }
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    Data expected(app_rank());
    expected.fill(2);
    EXPECT_EQ(d.bytes, expected.bytes);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// The disk fills up under the last rank while checkpoint 2 rewrites every
// block (its file-size limit makes every write past 512 KiB fail, with
// EFBIG where a full disk gives ENOSPC): its journal cannot be written.
// Checkpoint 2 fails on every rank with the reason, no journal is left, the
// dCP files still hold checkpoint 1 as its metadata records them, and the
// relaunch recovers checkpoint 1 bit for bit.
TEST(Dcp, FullDiskKeepsThePreviousCheckpoint) {
    std::string cfg = dcp_config("2");
    const int victim = app_ranks_expected() - 1;
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Data d(app_rank());
    d.protect();
    if (phase() == 1) {
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4_DCP));
        d.fill(2);
        with_file_size_limit(app_rank() == victim, 1u << 19,
                             [&] { EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(2, FTI_L4_DCP)); });
        std::string message = FTI_LastError();
        if (app_rank() == victim) {
            EXPECT_NE(message.find("File too large"), std::string::npos) << message;
            EXPECT_NE(message.find(dcp_name(file_rank(victim)) + ".journal"), std::string::npos) << message;
        } else {
            EXPECT_NE(message.find("rank " + std::to_string(victim)), std::string::npos) << message;
        }
        fs::path file = applied_dcp_file();
        expect_recorded_size_and_crc(1, 8, file);
        return;  // ends as a crash would
    }
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    Data expected(app_rank());
    expected.fill(1);
    EXPECT_EQ(d.bytes, expected.bytes);
    EXPECT_EQ(d.doubles, expected.doubles);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

}  // namespace
}  // namespace mlckpt::test
