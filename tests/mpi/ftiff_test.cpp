// FTI-FF (ckpt_io = 3) end to end: the seven checkpoints of the
// specification's example through the C API, checked field for field after
// every checkpoint and printed by `mlckpt inspect`; damaged chunks named by
// variable and offset; the container layout continued after a restart.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "file_checks.hpp"
#include "format/ftiff/ftiff_file.hpp"
#include "ftiff_seed001.hpp"
#include "inspect.hpp"
#include "scenario.hpp"

namespace mlckpt::test {
namespace {

namespace ff = core::ftiff;

std::string ftiff_config() {
    ConfigOptions o;
    o.basic["ckpt_io"] = "3";
    return config(o);
}

ff::FileStructure structure_of(const fs::path& path) {
    return ff::read_structure(core::File::open_read(path));
}

// The file's chunk of variable `id` with content, first container.
ff::Chunk first_chunk(const ff::Layout& layout, int id) {
    auto chunks = layout.chunks_of(id);
    EXPECT_FALSE(chunks.empty()) << "variable " << id;
    return *chunks.at(0);
}

std::int32_t seed_value(int id, int step, std::size_t i) {
    return static_cast<std::int32_t>(pattern(0, id, step, i));
}

TEST(Ftiff, Seed001ThroughTheApi) {
    std::string cfg = ftiff_config();
    auto expected = seed001::expected_checkpoints(MLCKPT_TEST_DATA_DIR);
    ASSERT_EQ(expected.size(), 7u);
    const auto& steps = seed001::protect_calls();
    std::vector<std::vector<std::int32_t>> vars(6);  // by id 1..5
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    if (phase() == 1) {
        for (std::size_t s = 0; s < steps.size(); ++s) {
            for (auto [id, count] : steps[s]) {
                auto& v = vars[static_cast<std::size_t>(id)];
                v.resize(static_cast<std::size_t>(count));
                ASSERT_FTI(FTI_SCES, FTI_Protect(id, v.data(), count, FTI_INTG));
            }
            for (int id = 1; id <= 5; ++id) {
                auto& v = vars[static_cast<std::size_t>(id)];
                for (std::size_t i = 0; i < v.size(); ++i) v[i] = seed_value(id, static_cast<int>(s), i);
            }
            const int ckpt = static_cast<int>(s) + 1;
            ASSERT_FTI(FTI_DONE, FTI_Checkpoint(ckpt, FTI_L1));

            fs::path file = the_file(data_file(ckpt, 0));
            ff::FileStructure st = structure_of(file);
            EXPECT_EQ(seed001::records(ff::dump(st.layout)), expected[s]) << "checkpoint " << ckpt;
            EXPECT_EQ(st.fb.fs, static_cast<std::int64_t>(fs::file_size(file)));
            EXPECT_EQ(st.fb.fs, st.layout.file_size());
            EXPECT_EQ(st.fb.ckpt_size, st.layout.data_size());
            EXPECT_EQ(st.fb.max_fs, st.fb.fs) << "one rank: the largest file is its own";
            EXPECT_EQ(st.fb.pt_fs, 0) << "no groups, no partner";
            EXPECT_GT(st.fb.timestamp, 1600000000LL * 1000000000LL);
            std::size_t chunks = 0;
            for (const auto& b : st.layout.blocks()) chunks += b.chunks.size();
            EXPECT_EQ(ff::verify_chunks(core::File::open_read(file), st.layout, 1 << 20), chunks);

            // mlckpt inspect prints the same structure and verifies the file.
            std::ostringstream out, err;
            EXPECT_EQ(tools::inspect({file.string()}, out, err), 0) << err.str();
            const std::string text = out.str();
            const auto begin = text.find("DataBase-id");
            const auto end = text.find("DATASTRUCTURE END");
            ASSERT_NE(end, std::string::npos) << text;
            EXPECT_EQ(seed001::records(text.substr(begin, end - begin)), expected[s]) << text;
            EXPECT_NE(text.find("verified: file block hash, block records checksum"), std::string::npos);
        }
        EXPECT_EQ(static_cast<std::int64_t>(fs::file_size(the_file(data_file(7, 0)))), seed001::kFinalFileSize);
        return;  // crash
    }
    // The restart recovers the last sizes and continues the same containers.
    EXPECT_EQ(FTI_Status(), 1);
    for (int id = 1; id <= 5; ++id) {
        auto& v = vars[static_cast<std::size_t>(id)];
        v.resize(static_cast<std::size_t>(FTI_GetStoredSize(id) / 4));
        ASSERT_FTI(FTI_SCES, FTI_Protect(id, v.data(), static_cast<int64_t>(v.size()), FTI_INTG));
    }
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    const std::size_t last = steps.size() - 1;
    for (int id = 1; id <= 5; ++id) {
        const auto& v = vars[static_cast<std::size_t>(id)];
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < v.size(); ++i) wrong += v[i] != seed_value(id, static_cast<int>(last), i);
        EXPECT_EQ(wrong, 0u) << "variable " << id << " (" << v.size() << " elements)";
    }
    EXPECT_EQ(vars[2].size(), 1000000u);
    EXPECT_EQ(vars[3].size(), 2000000u);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(8, FTI_L1));
    ff::FileStructure st = structure_of(the_file(data_file(8, 0)));
    EXPECT_EQ(seed001::records(ff::dump(st.layout)), expected[last]) << "no new block after the restart";
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// The newest checkpoint has a damaged chunk on one rank: the restart names
// it and falls back to the older L4 checkpoint.
TEST(Ftiff, DamagedChunkFallsBackToOlderCheckpoint) {
    std::string cfg = ftiff_config();
    const int victim = app_ranks_expected() - 1;
    if (phase() == 1) return write_l4_then_l1(cfg);
    if (world_rank() == 0) {
        fs::path file = the_file(data_file(2, victim));
        const ff::Chunk c = first_chunk(structure_of(file).layout, 1);
        overwrite_in_place(file, static_cast<std::uintmax_t>(c.fptr + c.chunk_size / 2), 8);
    }
    world_barrier();
    recover_then_finalize(cfg, 1);
}

// The only checkpoint has a damaged chunk: FTI_Init says which variable and
// where, and nothing is deleted.
TEST(Ftiff, DamagedChunkOfTheOnlyCheckpointIsNamed) {
    std::string cfg = ftiff_config();
    const int victim = app_ranks_expected() - 1;
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L1, 1);
    std::int64_t offset = 0;
    if (world_rank() == 0) {
        fs::path file = the_file(data_file(1, victim));
        offset = first_chunk(structure_of(file).layout, 2).fptr;
        overwrite_in_place(file, static_cast<std::uintmax_t>(offset), 1);
    }
    MPI_Bcast(&offset, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    // FTI_Init reads the chunk and checks it, as FTI: nothing to restart from.
    EXPECT_FTI(FTI_NREC, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    std::string message = FTI_LastError();
    EXPECT_NE(message.find(data_file(1, victim)), std::string::npos) << message;
    EXPECT_NE(message.find("variable 2: the chunk at file offset " + std::to_string(offset)), std::string::npos)
        << message;
    EXPECT_NE(message.find("fails its MD5"), std::string::npos) << message;
    EXPECT_EQ(FTI_Status(), 0);
    Dataset d(app_rank());
    d.protect();
    EXPECT_FTI(FTI_NREC, FTI_Recover());
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    EXPECT_EQ(find_files(data_file(1, world_rank())).size(), 1u);
}

// A truncated file is named as such and never read.
TEST(Ftiff, TruncatedFileIsNamed) {
    std::string cfg = ftiff_config();
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L1, 1);
    if (world_rank() == 0) {
        fs::path file = the_file(data_file(1, 0));
        truncate_file(file, fs::file_size(file) - 3);
    }
    world_barrier();
    EXPECT_FTI(FTI_NREC, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    std::string message = FTI_LastError();
    EXPECT_NE(message.find(data_file(1, 0)), std::string::npos) << message;
    EXPECT_NE(message.find("(truncated)"), std::string::npos) << message;
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// A restarted run keeps the containers of the file it restarted from: a
// grown variable gets one more container in a new block, nothing moves.
TEST(Ftiff, LayoutContinuesAfterRestart) {
    std::string cfg = ftiff_config();
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L1, 1);
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    ASSERT_TRUE(d.matches(1));
    ff::Layout before = structure_of(the_file(data_file(1, app_rank()))).layout;
    d.ints.resize(d.ints.size() + 1000, 7);
    ASSERT_FTI(FTI_SCES, FTI_Protect(0, d.ints.data(), static_cast<int64_t>(d.ints.size()), FTI_INTG));
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
    ff::Layout after = structure_of(the_file(data_file(2, app_rank()))).layout;
    expect_recorded_size_and_crc(2, 1, the_file(data_file(2, app_rank())));
    ASSERT_EQ(after.blocks().size(), 2u);
    ASSERT_EQ(after.blocks()[0].chunks.size(), before.blocks()[0].chunks.size());
    for (std::size_t j = 0; j < before.blocks()[0].chunks.size(); ++j) {
        const ff::Chunk& a = after.blocks()[0].chunks[j];
        const ff::Chunk& b = before.blocks()[0].chunks[j];
        EXPECT_EQ(a.fptr, b.fptr);
        EXPECT_EQ(a.container_size, b.container_size);
    }
    ASSERT_EQ(after.blocks()[1].chunks.size(), 1u);
    EXPECT_EQ(after.blocks()[1].chunks[0].id, 0);
    EXPECT_EQ(after.blocks()[1].chunks[0].container_id, 1);
    EXPECT_EQ(after.blocks()[1].chunks[0].chunk_size, 4000);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// The metadata directory is lost: the FTI-FF files alone are enough. With
// `damage`, the newest (L1) file of the last rank has a damaged chunk, and
// the restart falls back to the older L4 checkpoint.
void recover_without_metadata(bool damage) {
    std::string cfg = ftiff_config();
    if (phase() == 1) return write_l4_then_l1(cfg);
    if (world_rank() == 0) {
        fs::remove_all(meta_dir());
        if (damage) {
            fs::path file = the_file(data_file(2, app_ranks_expected() - 1));
            const ff::Chunk c = first_chunk(structure_of(file).layout, 0);
            overwrite_in_place(file, static_cast<std::uintmax_t>(c.fptr), 4);
        }
    }
    world_barrier();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    EXPECT_EQ(FTI_Status(), 1);
    Dataset d(app_rank());
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(damage ? 1 : 2));
    // The checkpoint found is committed again: the run goes on normally.
    d.fill(3);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(3, FTI_L4));
    MPI_Barrier(FTI_COMM_WORLD);
    EXPECT_TRUE(removed_in_background(data_file(damage ? 1 : 2, app_rank()))) << "recovered, then superseded";
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(Ftiff, RecoversWithoutMetadata) {
    recover_without_metadata(false);
}
TEST(Ftiff, RecoversWithoutMetadataFallingBack) {
    recover_without_metadata(true);
}

}  // namespace
}  // namespace mlckpt::test
