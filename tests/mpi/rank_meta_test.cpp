// What a restart sends each rank of a checkpoint's metadata
// (core/store/rank_meta.hpp): its own records and its group's, whatever the
// number of ranks, and the same verdict on every rank when the file is bad.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.hpp"
#include "config/config.hpp"
#include "io/file.hpp"
#include "scenario.hpp"
#include "store/checkpoint_store.hpp"
#include "store/rank_meta.hpp"

namespace mlckpt::test {
namespace {

using core::CheckpointMeta;
using core::CheckpointRef;
using core::FileRecord;

// A context over every rank of the launch: two ranks per node, groups of four nodes.
struct LibraryRun {
    core::Context ctx;
    core::AppCommunicators comms;

    LibraryRun() : ctx(make()) {
        ctx.layout = core::StorageLayout(ctx.config, "rank-meta");
        comms = core::open_app_communicators(ctx, MPI_COMM_WORLD);
    }
    static core::Context make() {
        ConfigOptions o;
        o.group_size = 4;
        return core::make_context(core::load_config(config(o)), MPI_COMM_WORLD);
    }
};

FileRecord full_record(const core::Context& ctx, int rank) {
    FileRecord r;
    r.rank = rank;
    r.holder = rank;
    r.node = ctx.topo.app_node.at(static_cast<std::size_t>(rank));
    r.file = "Ckpt3-Rank" + std::to_string(rank) + ".fti";
    r.complete = true;
    r.size = 1000 + static_cast<std::uint64_t>(rank);
    r.crc32 = 77u * static_cast<std::uint32_t>(rank);
    return r;
}

// Commits L2 checkpoint `ref`: every rank's file, and the partner copy it
// keeps of its left neighbour's unless `copies` is false on this rank.
void commit(LibraryRun& run, const CheckpointRef& ref, bool copies = true) {
    const core::Context& ctx = run.ctx;
    std::vector<FileRecord> mine{full_record(ctx, ctx.rank())};
    if (copies) {
        FileRecord copy = full_record(ctx, ctx.topo.left_app_rank);
        copy.type = "PARTNER";
        copy.holder = ctx.rank();
        copy.node = ctx.topo.node_id;
        mine.push_back(copy);
    }
    core::commit_metadata(ctx, ctx.app, ref, mine, core::IoMode::posix);
}

TEST(RankMeta, EachRankReceivesItsOwnRecordsAndItsGroupsOnly) {
    ASSERT_EQ(world_size(), 8);
    LibraryRun run;
    const core::Context& ctx = run.ctx;
    const CheckpointRef ref{5, 2, 3};
    commit(run, ref);

    core::RankMeta own = core::distribute_meta(ctx, ref, core::MetaScope::own);
    EXPECT_EQ(own.meta.ranks, 8);
    EXPECT_EQ(own.meta.ckpt_id, 3);
    ASSERT_EQ(own.meta.files.size(), 1u);
    EXPECT_EQ(own.meta.file_of(ctx.rank()).size, full_record(ctx, ctx.rank()).size);
    ASSERT_EQ(own.meta.redundancy.size(), 1u);
    EXPECT_EQ(own.meta.redundancy_held_by(ctx.rank())->rank, ctx.topo.left_app_rank);
    EXPECT_TRUE(own.redundancy_recorded);

    core::RankMeta group = core::distribute_meta(ctx, ref, core::MetaScope::group);
    std::vector<int> members = ctx.topo.group_app_ranks;
    std::sort(members.begin(), members.end());
    ASSERT_EQ(group.meta.files.size(), members.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
        EXPECT_EQ(group.meta.files[i].rank, members[i]);
        EXPECT_EQ(group.meta.files[i].crc32, full_record(ctx, members[i]).crc32);
    }
    for (int r = 0; r < 8; ++r) {
        if (!std::binary_search(members.begin(), members.end(), r)) {
            EXPECT_THROW(static_cast<void>(group.meta.file_of(r)), core::Error)
                << "rank " << r << " is not in the group";
        }
    }
    EXPECT_EQ(group.meta.redundancy.size(), 1u);
}

// A dataset of scr.h, whose ranks have several files or none: each rank
// receives every file of its own and none of the others'.
TEST(RankMeta, DatasetRanksReceiveEveryFileOfTheirOwnAndNoOther) {
    LibraryRun run;
    const core::Context& ctx = run.ctx;
    const CheckpointRef ref{8, 1, 6, true};
    const int files = ctx.rank() % 3;
    std::vector<FileRecord> mine;
    for (int f = 0; f < files; ++f) {
        FileRecord r = full_record(ctx, ctx.rank());
        r.file = "out" + std::to_string(f) + ".dat";
        r.origpath = "/results";
        r.origname = r.file;
        mine.push_back(r);
    }
    CheckpointMeta label;
    label.name = "dataset.8";
    label.flags = 1;
    core::commit_metadata(ctx, ctx.app, ref, mine, core::IoMode::posix, &label);

    const CheckpointMeta part = core::distribute_dataset_meta(ctx, ref);
    EXPECT_EQ(part.name, "dataset.8");
    EXPECT_EQ(part.ranks, world_size());
    ASSERT_EQ(part.files.size(), static_cast<std::size_t>(files));
    for (int f = 0; f < files; ++f) {
        EXPECT_EQ(part.files[static_cast<std::size_t>(f)].rank, ctx.rank());
        EXPECT_EQ(part.files[static_cast<std::size_t>(f)].origname, "out" + std::to_string(f) + ".dat");
    }
}

TEST(RankMeta, RedundancyNotRecordedForEveryHolderIsSeenByEveryRank) {
    LibraryRun run;
    const CheckpointRef ref{6, 2, 4};
    commit(run, ref, run.ctx.rank() != 5);
    core::RankMeta part = core::distribute_meta(run.ctx, ref, core::MetaScope::own);
    EXPECT_FALSE(part.redundancy_recorded);
    EXPECT_EQ(part.meta.redundancy.size(), run.ctx.rank() == 5 ? 0u : 1u);
}

TEST(RankMeta, RecordsOutOfPlaceAreCorruptOnEveryRank) {
    LibraryRun run;
    const core::Context& ctx = run.ctx;
    const CheckpointRef ref{7, 2, 5};
    commit(run, ref);
    const fs::path path = ctx.layout.meta_file(ref.level, ref.seq);
    if (ctx.rank() == 0) {
        CheckpointMeta meta = core::parse_meta(core::read_text_file(path), path.string());
        std::swap(meta.files[2], meta.files[3]);
        const core::Directory dir = ctx.layout.make_dir(path.parent_path());
        core::atomic_write_file(dir, path.filename().string(), core::serialize_meta(meta));
    }
    world_barrier();
    try {
        static_cast<void>(core::distribute_meta(ctx, ref, core::MetaScope::group));
        ADD_FAILURE() << "metadata with the records of ranks 2 and 3 swapped was accepted";
    } catch (const core::Error& e) {
        EXPECT_EQ(e.kind(), core::ErrorKind::corrupt);
        EXPECT_NE(std::string(e.what()).find("lists the file of rank 3 where that of rank 2 belongs"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace mlckpt::test
