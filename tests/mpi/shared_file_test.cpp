// Shared L4 files: ckpt_io = 2 (one MPI-IO file) and ckpt_io = 4 (the
// block-aligned container), chosen by MLCKPT_TEST_IO. The files are checked
// from the outside: MPI-IO slices at the prefix sums of the ranks' sizes,
// and containers with a parser written from the format's documentation, not
// with the library's reader.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <span>

#include "scenario.hpp"
#include "sion_container.hpp"

namespace mlckpt::test {
namespace {

bool container_mode() {
    return io_mode() == "4";
}

// Rank 1 protects nothing but an empty variable, so one rank of every run
// with more than one rank has zero bytes; the others protect a Dataset.
struct RankData {
    explicit RankData(int rank) : d(rank), empty_rank(rank == 1) {}

    void protect() {
        if (empty_rank) {
            ASSERT_FTI(FTI_SCES, FTI_Protect(4, nullptr, 0, FTI_DBLE));
        } else {
            d.protect();
        }
    }
    bool matches(int version) const { return empty_rank || d.matches(version); }
    // What the rank checkpoints: its variables, one after the other.
    std::vector<std::byte> bytes() const {
        std::vector<std::byte> out;
        if (empty_rank) return out;
        auto add = [&](const auto& v) {
            auto b = std::as_bytes(std::span(v.data(), v.size()));
            out.insert(out.end(), b.begin(), b.end());
        };
        add(d.ints);
        add(d.doubles);
        add(d.bytes);
        add(d.particles);
        return out;
    }

    Dataset d;
    bool empty_rank;
};

std::vector<fs::path> l4_files() {
    // The data files, not the copy of the metadata kept beside them.
    auto out = files_below(global_dir(), [](const fs::path& file) {
        return file.string().find("/l4/") != std::string::npos && file.extension() != ".meta";
    });
    std::sort(out.begin(), out.end());
    return out;
}

std::string shared_name(int ckpt_id, int file = 0) {
    std::string base = "Ckpt" + std::to_string(ckpt_id) + (container_mode() ? "-sionlib.fti" : "-mpiio.fti");
    return sion::physical_file_name(base, file);
}

std::vector<char> read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::uint64_t> all_sizes(std::uint64_t mine) {
    std::vector<std::uint64_t> all(static_cast<std::size_t>(app_ranks_expected()));
    MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, FTI_COMM_WORLD);
    return all;
}

int first_rank_of_file(int f, int ranks, int files) {
    return static_cast<int>(static_cast<long>(f) * ranks / files);
}

// The preferred block size of the file system, as the library rounds it.
std::int64_t detected_block_size() {
    struct stat st {};
    if (::stat(global_dir().c_str(), &st) != 0) return 4096;
    std::int64_t size = 512;
    while (size * 2 <= st.st_blksize && size < (std::int64_t{1} << 30)) size *= 2;
    return size;
}

// Checks, on every application rank, that the shared file(s) of checkpoint
// `ckpt_id` hold exactly what the ranks wrote, where the format says.
void check_shared_file(int ckpt_id, const RankData& data, int files, std::int64_t block_size) {
    const int rank = app_rank();
    const int ranks = app_ranks_expected();
    std::vector<std::byte> mine = data.bytes();
    std::vector<std::uint64_t> sizes = all_sizes(mine.size());
    std::vector<fs::path> expected;
    for (int f = 0; f < (container_mode() ? files : 1); ++f) expected.push_back(shared_name(ckpt_id, f));
    std::vector<fs::path> found;
    for (const fs::path& p : l4_files()) found.push_back(p.filename());
    EXPECT_EQ(found, expected) << "one shared file (or container_files files) per L4 checkpoint";

    if (!container_mode()) {
        fs::path file = the_file(shared_name(ckpt_id));
        std::uint64_t offset = 0;
        std::uint64_t total = 0;
        for (int r = 0; r < ranks; ++r) {
            if (r < rank) offset += sizes[static_cast<std::size_t>(r)];
            total += sizes[static_cast<std::size_t>(r)];
        }
        std::vector<char> bytes = read_file(file);
        ASSERT_EQ(bytes.size(), total) << "the file is the ranks' slices, nothing else";
        EXPECT_TRUE(std::equal(mine.begin(), mine.end(), reinterpret_cast<const std::byte*>(bytes.data()) + offset))
            << "slice of rank " << rank;
        return;
    }
    int f = 0;
    while (f + 1 < files && first_rank_of_file(f + 1, ranks, files) <= rank) ++f;
    const int first = first_rank_of_file(f, ranks, files);
    const int ntasks = first_rank_of_file(f + 1, ranks, files) - first;
    fs::path path = the_file(shared_name(ckpt_id, f));
    sion::ParsedFile p = sion::parse_file(path.string());
    std::vector<std::string> problems = sion::layout_problems(p);
    EXPECT_TRUE(problems.empty()) << path << ": " << (problems.empty() ? "" : problems.front());
    EXPECT_EQ(std::string(p.m1.id, 4), "sion");
    EXPECT_EQ(p.m1.endianness, 1);
    EXPECT_EQ(p.m1.blocksize, block_size);
    EXPECT_EQ(p.m1.ntasks, ntasks);
    EXPECT_EQ(p.m1.nfiles, files);
    EXPECT_EQ(p.m1.filenumber, f);
    EXPECT_EQ(p.m1.flag1, 0);
    EXPECT_EQ(p.m1.flag2, 0);
    EXPECT_EQ(p.m1.filenameprefix, shared_name(ckpt_id));
    bool any_data = false;
    for (int i = 0; i < ntasks; ++i) {
        const auto task = static_cast<std::size_t>(i);
        const std::uint64_t size = sizes[static_cast<std::size_t>(first + i)];
        any_data = any_data || size > 0;
        EXPECT_EQ(p.m1.globalrank[task], first + i);
        EXPECT_EQ(p.m1.size[task], static_cast<std::int64_t>(size)) << "requested chunk size of task " << i;
        EXPECT_EQ(p.m2.chunks[task], size > 0 ? 1 : 0) << "chunks of task " << i;
        if (!p.m2.chunksize.empty()) {
            EXPECT_EQ(p.m2.chunksize[0][task], size > 0 ? static_cast<std::int64_t>(size) : -1)
                << "bytes written by task " << i;
        }
        for (const sion::ChunkLocation& c : p.chunks[task]) {
            EXPECT_EQ(c.offset % static_cast<std::uint64_t>(block_size), 0u) << "chunk of task " << i;
        }
    }
    EXPECT_EQ(p.m1.maxchunks, any_data ? 1 : 0);
    std::vector<std::byte> stored = sion::task_data(path.string(), p, rank - first);
    EXPECT_EQ(stored, mine) << "the chunk of rank " << rank;
    if (f == 0 && files > 1) {
        ASSERT_TRUE(p.mapping.has_value()) << "file 0 maps every rank";
        ASSERT_EQ(p.mapping->size, ranks);
        for (int r = 0; r < ranks; ++r) {
            int g = 0;
            while (g + 1 < files && first_rank_of_file(g + 1, ranks, files) <= r) ++g;
            EXPECT_EQ(p.mapping->entries[static_cast<std::size_t>(r)],
                      std::make_pair(g, r - first_rank_of_file(g, ranks, files)))
                << "mapping of rank " << r;
        }
    } else {
        EXPECT_FALSE(p.mapping.has_value());
    }
}

void roundtrip(const ConfigOptions& options, int files, std::int64_t block_size) {
    std::string cfg = config(options);
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    RankData data(app_rank());
    data.protect();
    if (phase() == 1) {
        data.d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        data.d.fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4));
        MPI_Barrier(FTI_COMM_WORLD);
        for (int f = 0; f < files; ++f) EXPECT_TRUE(removed_in_background(shared_name(1, f))) << "file " << f;
        MPI_Barrier(FTI_COMM_WORLD);
        check_shared_file(2, data, files, block_size);
        EXPECT_TRUE(find_files(data_file(2, app_rank())).empty()) << "no per-rank L4 file";
        return;  // crash
    }
    EXPECT_EQ(FTI_Status(), 1);
    EXPECT_EQ(FTI_GetStoredSize(data.empty_rank ? 4 : 2),
              data.empty_rank ? 0 : static_cast<int64_t>(data.d.bytes.size()));
    data.d.clear();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(data.matches(2));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    EXPECT_TRUE(l4_files().empty()) << "Finalize removes the shared file";
}

TEST(Shared, RoundTrip) {
    roundtrip({}, 1, container_mode() ? detected_block_size() : 0);
}

TEST(Shared, MultiFileContainer) {
    ConfigOptions o;
    o.advanced["container_files"] = "3";
    o.advanced["container_block_size"] = "65536";
    roundtrip(o, 3, 65536);
}

// Ranks with different numbers of pieces (transfer_size = 1 MiB, 0 to
// 6 MiB per rank), written and read back.
TEST(Shared, UnevenPieces) {
    ConfigOptions o;
    o.advanced["transfer_size"] = "1";
    std::string cfg = config(o);
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    const int rank = app_rank();
    std::vector<std::uint64_t> big(rank == 1 ? 0 : (static_cast<std::size_t>(rank) + 1) * (3u << 17));  // 1.5 MiB steps
    auto fill = [&](std::uint64_t salt) {
        for (std::size_t i = 0; i < big.size(); ++i) big[i] = pattern(rank, 7, static_cast<int>(salt), i);
    };
    ASSERT_FTI(FTI_SCES, FTI_Protect(0, big.data(), static_cast<int64_t>(big.size()), FTI_ULNG));
    if (phase() == 1) {
        fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        return;
    }
    std::fill(big.begin(), big.end(), 0);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    std::vector<std::uint64_t> expected = big;
    fill(1);
    EXPECT_TRUE(expected == big) << "rank " << rank;
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// The format is recorded with the checkpoint: a run configured with
// ckpt_io = 1 restarts from a shared file.
TEST(Shared, RestartWithAnotherIoMode) {
    std::string cfg = config();
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L4, 1);
    if (world_rank() == 0) {
        std::vector<char> text = read_file(cfg);
        std::string s(text.begin(), text.end());
        std::string from = "ckpt_io = " + io_mode();
        ASSERT_NE(s.find(from), std::string::npos) << s;
        s.replace(s.find(from), from.size(), "ckpt_io = 1");
        std::ofstream(cfg) << s;
    }
    world_barrier();
    recover_then_finalize(cfg, 1);
}

// Incremental checkpoints write each variable when it is added (independent
// writes), collective or not.
TEST(Shared, IncrementalCheckpoint) {
    std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    if (phase() == 1) {
        d.fill(1);
        ASSERT_FTI(FTI_SCES, FTI_InitICP(1, FTI_L4, true));
        for (int id = Dataset::kVariables - 1; id >= 0; --id) {
            ASSERT_FTI(FTI_SCES, FTI_AddVarICP(id));
            d.fill(9);  // changes after a variable was added do not reach the checkpoint
            d.fill(1);
        }
        ASSERT_FTI(FTI_DONE, FTI_FinalizeICP());
        d.clear();
        return;
    }
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// A rank killed while the shared file of checkpoint 2 is incomplete: the
// relaunch removes what there is of it and recovers checkpoint 1.
TEST(Shared, KilledBeforeTheFileIsComplete) {
    std::string cfg = config();
    if (phase() == 1) {
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        RankData data(app_rank());
        data.protect();
        data.d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        mark("first-checkpoint-done");
        std::string spec = "before_shared_commit:" + std::to_string(world_size() - 1) + ":2";
        ::setenv("MLCKPT_FAULT_INJECT", spec.c_str(), 1);
        data.d.fill(2);
        FTI_Checkpoint(2, FTI_L4);
        ADD_FAILURE() << "the last rank should have been killed";
        return;
    }
    ASSERT_TRUE(marked("first-checkpoint-done"));
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    MPI_Barrier(FTI_COMM_WORLD);
    std::vector<fs::path> left = l4_files();
    ASSERT_EQ(left.size(), 1u) << "only checkpoint 1 is left";
    EXPECT_EQ(left.front().filename(), shared_name(1));
    RankData data(app_rank());
    data.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(data.matches(1));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// The disk fills up under the last rank while checkpoint 2 is written (its
// file-size limit makes every write past 1 MiB of the shared file fail,
// with EFBIG where a full disk gives ENOSPC; the LargeDataset of every rank
// puts its slice past that). Checkpoint 2 fails on every rank, naming the file
// on that rank and the rank on the others; checkpoint 1 stays the one
// recovered.
TEST(Shared, FullDiskKeepsThePreviousCheckpoint) {
    std::string cfg = config();
    const int victim = world_size() - 1;
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    LargeDataset data;
    data.protect();
    if (phase() == 1) {
        data.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        data.fill(2);
        with_file_size_limit(app_rank() == victim, 1u << 20, [&] { EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(2, FTI_L4)); });
        std::string message = FTI_LastError();
        if (app_rank() == victim) {
            EXPECT_NE(message.find(shared_name(2)), std::string::npos) << message;
        } else {
            EXPECT_NE(message.find("rank " + std::to_string(victim)), std::string::npos) << message;
        }
        return;  // ends as a crash would
    }
    EXPECT_EQ(FTI_Status(), 1);
    MPI_Barrier(FTI_COMM_WORLD);
    std::vector<fs::path> left = l4_files();
    ASSERT_EQ(left.size(), 1u) << "only checkpoint 1 is left";
    EXPECT_EQ(left.front().filename(), shared_name(1));
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(data.matches(1)) << "rank " << app_rank();
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// Damage to the only checkpoint: the restart fails, naming what is wrong,
// at FTI_Init when the file's structure shows it, else when FTI_Recover
// reads the data.
template <typename Damage>
void damaged_only_checkpoint(Damage damage, const std::string& expected, bool seen_at_init = true) {
    std::string cfg = config();
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L4, 1);
    if (world_rank() == 0) damage(the_file(shared_name(1)));
    world_barrier();
    if (seen_at_init) {
        EXPECT_FTI(FTI_NREC, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    } else {
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        Dataset d(app_rank());
        d.protect();
        EXPECT_FTI(FTI_NREC, FTI_Recover());
    }
    std::string message = FTI_LastError();
    EXPECT_NE(message.find(shared_name(1)), std::string::npos) << message;
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_EQ(FTI_Status(), 0);
    EXPECT_FTI(FTI_NREC, FTI_Recover());
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    EXPECT_EQ(l4_files().size(), 1u) << "a failed restart deletes nothing";
}

TEST(Shared, TruncatedFileIsNamed) {
    damaged_only_checkpoint([](const fs::path& f) { truncate_file(f, fs::file_size(f) - 8); }, "truncated");
}

// Ten bytes inside the data of the last rank are overwritten: its first
// variable fails its CRC-32 when FTI_Init reads the slice.
TEST(Shared, CorruptSliceIsNamed) {
    const int victim = world_size() - 1;
    auto damage = [victim](const fs::path& f) {
        std::uint64_t at = 10;
        if (container_mode()) {
            at += sion::parse_file(f.string()).chunks[static_cast<std::size_t>(victim)].at(0).offset;
        } else {
            for (int r = 0; r < victim; ++r) {  // the slices of the ranks before it
                for (int v = 0; v < Dataset::kVariables; ++v) at += Dataset(r).bytes_of(v);
            }
        }
        overwrite_in_place(f, at, 10);
    };
    damaged_only_checkpoint(damage, "fails its checksum");
}

TEST(Shared, CorruptContainerHeaderIsNamed) {
    damaged_only_checkpoint([](const fs::path& f) { overwrite_in_place(f, 0, 4); }, "does not start with 'sion'");
}

// An older shared L4 checkpoint is the fallback when a newer L1 one is lost.
TEST(Shared, FallbackToSharedL4) {
    std::string cfg = config();
    if (phase() == 1) return write_l4_then_l1(cfg);
    if (world_rank() == 0) {
        ASSERT_TRUE(fs::remove(the_file(data_file(2, world_size() - 1))));
    }
    world_barrier();
    recover_then_finalize(cfg, 1);
}

// With heads (inline_l4 = 0) the heads copy the ranks' L1 files into the
// shared file; every node-local directory can then go.
TEST(Shared, HeadsFlushIntoTheSharedFile) {
    std::string cfg = config();
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L4, 1);
    std::vector<fs::path> files = l4_files();
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files.front().filename(), shared_name(1));
    world_barrier();
    if (world_rank() == 0) fs::remove_all(local_dir());
    world_barrier();
    recover_then_finalize(cfg, 1);
}

}  // namespace
}  // namespace mlckpt::test
