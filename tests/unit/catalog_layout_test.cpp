#include <gtest/gtest.h>

#include "common/error.hpp"
#include "storage/layout.hpp"
#include "store/catalog.hpp"

namespace mlckpt::core {
namespace {

TEST(Catalog, SupersedesSameAndLowerLevelsOnly) {
    Catalog c;
    c.add({1, 4, 10});
    c.add({2, 1, 11});
    c.add({3, 1, 12});
    EXPECT_EQ(c.next_seq(), 4u);
    EXPECT_EQ(c.last_ckpt_id(), 12);
    auto by_l1 = c.superseded_by(1, 4);
    ASSERT_EQ(by_l1.size(), 2u);  // the two L1 checkpoints, not the L4 one
    for (const auto& r : by_l1) EXPECT_EQ(r.level, 1);
    EXPECT_EQ(c.superseded_by(4, 4).size(), 3u);
    c.add({4, 2, 12, true});
    Catalog back = Catalog::parse(c.serialize());
    ASSERT_EQ(back.refs().size(), 4u);
    EXPECT_TRUE(back.contains(1, 4));
    EXPECT_FALSE(back.refs()[0].own_dir);
    EXPECT_TRUE(back.refs()[3].own_dir);
    EXPECT_EQ(back.refs()[3].ckpt_id, 12);
    back.remove({1, 4, 10});
    EXPECT_FALSE(back.contains(1, 4));
}

TEST(Catalog, NewestPrefersHighestSeqThenLowestLevel) {
    Catalog c;
    EXPECT_EQ(c.newest(), nullptr);
    EXPECT_EQ(c.next_seq(), 1u);
    c.add({5, 4, 3});
    c.add({5, 1, 3});
    c.add({4, 1, 2});
    EXPECT_EQ(c.newest()->seq, 5u);
    EXPECT_EQ(c.newest()->level, 1);
}

// A checkpoint goes where FTI keeps it, in the level's directory, unless a
// live checkpoint there has its id, so its names: then in a directory of
// its own. Unrecorded data (lost metadata) may have any id.
TEST(Catalog, PlacesARepeatedIdInADirectoryOfItsOwn) {
    Catalog c;
    EXPECT_FALSE(c.place(1, 1, 5).own_dir);
    c.add(c.place(1, 1, 5));
    EXPECT_TRUE(c.place(2, 4, 5).own_dir);   // any level: the heads' L1 copy of an L4 checkpoint shares the seq
    EXPECT_FALSE(c.place(1, 4, 5).own_dir);  // the same checkpoint, promoted
    EXPECT_FALSE(c.place(2, 1, 6).own_dir);
    c.add(c.place(2, 1, 5));
    EXPECT_TRUE(c.refs().back().own_dir);
    c.remove({1, 1, 5});
    EXPECT_FALSE(c.place(3, 1, 5).own_dir);  // the one in a directory of its own takes no names
    c.keep_unrecorded(9, "found");
    EXPECT_TRUE(c.place(10, 1, 7).own_dir);
}

Config directories(const char* ckpt, const char* glbl, const char* meta) {
    Config cfg;
    cfg.ckpt_dir = ckpt;
    cfg.glbl_dir = glbl;
    cfg.meta_dir = meta;
    return cfg;
}

TEST(Layout, PathsAndNames) {
    Config cfg = directories("/l", "/g", "/m");
    StorageLayout l(cfg, "exec");
    EXPECT_EQ(l.ckpt_dir({7, 1, 2}, 3), "/l/node3/exec/l1");
    EXPECT_EQ(l.ckpt_dir({7, 4, 2}, 3), "/g/exec/l4");
    EXPECT_EQ(l.ckpt_dir({7, 1, 2, true}, 3), "/l/node3/exec/l1/ckpt7");
    EXPECT_EQ(l.ckpt_dir({7, 4, 2, true}, 3), "/g/exec/l4/ckpt7");
    EXPECT_EQ(l.data_file({7, 2, 2}, 5, 3), "/l/node3/exec/l2/Ckpt2-Rank5.fti");
    EXPECT_EQ(l.redundancy_file({7, 2, 2}, 5, 3), "/l/node3/exec/l2/Ckpt2-Pcof5.fti");
    EXPECT_EQ(l.meta_file(4, 7), "/m/exec/ckpt7.l4.meta");
    EXPECT_EQ(l.meta_copy(2, 7, 3), "/l/node3/exec/meta/ckpt7.l2.meta");
    EXPECT_EQ(l.meta_copy(4, 7, 3), "/g/exec/meta/ckpt7.l4.meta");
    EXPECT_EQ(l.archive_dir(), "/g/exec/l4_archive");
    EXPECT_EQ(data_file_name(3, 12, IoMode::posix), "Ckpt3-Rank12.fti");
    std::uint64_t seq = 0;
    int level = 0;
    EXPECT_TRUE(parse_meta_file_name("ckpt17.l4.meta", seq, level));
    EXPECT_EQ(seq, 17u);
    EXPECT_EQ(level, 4);
    EXPECT_FALSE(parse_meta_file_name("ckpt17.l9.meta", seq, level));
    EXPECT_FALSE(parse_meta_file_name("ckpt.l1.meta", seq, level));
    EXPECT_FALSE(parse_meta_file_name("ckpt1.l1.meta.tmp.5", seq, level));
    EXPECT_TRUE(parse_own_dir_name("ckpt3", seq));
    EXPECT_FALSE(parse_own_dir_name("ckpt3.tmp", seq));
    int id = 0;
    EXPECT_TRUE(parse_file_name_id("Ckpt12-Pcof3.fti", id));
    EXPECT_EQ(id, 12);
    EXPECT_TRUE(parse_file_name_id("Ckpt4-mpiio.fti", id));
    EXPECT_EQ(id, 4);
    EXPECT_FALSE(parse_file_name_id("ckpt4", id));
    EXPECT_FALSE(parse_file_name_id(".Ckpt4-Rank0.fti.retired", id));
    EXPECT_FALSE(parse_file_name_id("Ckpt-Rank0.fti", id));
    EXPECT_FALSE(parse_file_name_id("Ckpt99999999999-Rank0.fti", id));
}

// HDF5 checkpoints are named as FTI names them, "Ckpt<I>-Rank<R>.h5", and
// so are their partner copies and parity; L4 differential files stay FTI-FF.
TEST(Layout, Hdf5FilesEndInH5) {
    Config cfg = directories("/l", "/g", "/m");
    cfg.ckpt_io = IoMode::hdf5;
    const StorageLayout l(cfg, "exec");
    EXPECT_EQ(l.data_file({7, 1, 3}, 12, 0), "/l/node0/exec/l1/Ckpt3-Rank12.h5");
    EXPECT_EQ(l.data_file({7, 4, 3}, 12, 0), "/g/exec/l4/Ckpt3-Rank12.h5");
    EXPECT_EQ(l.redundancy_file({7, 2, 3}, 12, 0), "/l/node0/exec/l2/Ckpt3-Pcof12.h5");
    EXPECT_EQ(l.redundancy_file({7, 3, 3}, 12, 0), "/l/node0/exec/l3/Ckpt3-RSed12.h5");
    EXPECT_EQ(l.data_file({7, kDcpLevel, 3}, 12, 0), "/g/exec/dcp/dCP-Rank12.fti");
    // A checkpoint written under another ckpt_io keeps its names.
    EXPECT_EQ(l.for_io(IoMode::posix).data_file({7, 1, 3}, 12, 0), "/l/node0/exec/l1/Ckpt3-Rank12.fti");
    cfg.ckpt_io = IoMode::posix;
    EXPECT_EQ(StorageLayout(cfg, "exec").for_io(IoMode::hdf5).redundancy_file({7, 2, 3}, 12, 0),
              "/l/node0/exec/l2/Ckpt3-Pcof12.h5");
}

// With heads, files carry the rank in FTI_Init's communicator (FTI's
// names); a checkpoint whose metadata records other names (written with
// another placement of heads, or by an older version) is read by those.
TEST(Layout, FilesNamedAfterTheirRankInFtiInitsCommunicator) {
    Config cfg = directories("/l", "/g", "/m");
    const StorageLayout heads(cfg, "exec", {1, 3, 5});  // nodes of 2, a head first on each
    EXPECT_EQ(heads.file_rank(1), 3);
    EXPECT_EQ(heads.data_file({7, 2, 4}, 1, 0), "/l/node0/exec/l2/Ckpt4-Rank3.fti");
    EXPECT_EQ(heads.redundancy_file({7, 2, 4}, 2, 1), "/l/node1/exec/l2/Ckpt4-Pcof5.fti");
    EXPECT_EQ(heads.redundancy_file({7, 3, 4}, 0, 0), "/l/node0/exec/l3/Ckpt4-RSed1.fti");
    EXPECT_EQ(heads.data_file({7, kDcpLevel, 4}, 2, 0), "/g/exec/dcp/dCP-Rank5.fti");

    CheckpointMeta meta;
    meta.io = IoMode::posix;
    for (int r = 0; r < 3; ++r) {
        FileRecord f;
        f.rank = f.holder = r;
        f.file = "Ckpt4-Rank" + std::to_string(r) + ".fti";  // written without heads
        meta.files.push_back(f);
    }
    const StorageLayout written = heads.for_checkpoint(meta);
    EXPECT_EQ(written.data_file({7, 2, 4}, 1, 0), "/l/node0/exec/l2/Ckpt4-Rank1.fti");
    EXPECT_EQ(written.redundancy_file({7, 2, 4}, 2, 1), "/l/node1/exec/l2/Ckpt4-Pcof2.fti");
    // A rank the metadata part does not describe keeps this run's name.
    EXPECT_EQ(written.file_rank(5), 5);
    meta.files[1].file = "Ckpt4-mpiio.fti";  // a shared file names no rank
    EXPECT_EQ(heads.for_checkpoint(meta).file_rank(1), 3);

    int rank = -1;
    EXPECT_TRUE(parse_data_file_rank("Ckpt12-Rank30.h5", rank));
    EXPECT_EQ(rank, 30);
    EXPECT_FALSE(parse_data_file_rank("Ckpt12-Pcof3.fti", rank));
    EXPECT_FALSE(parse_data_file_rank("Ckpt12-Rank.fti", rank));
    EXPECT_FALSE(parse_data_file_rank("Ckpt12-Rank3", rank));
    EXPECT_FALSE(parse_data_file_rank("Ckpt12-Rank99999999999.fti", rank));
}

// make_dir follows links only down to the configured directory a path lies
// in: the innermost one when they nest (meta_dir inside ckpt_dir, say).
TEST(Layout, BaseOfIsTheInnermostConfiguredDirectory) {
    Config cfg;
    cfg.ckpt_dir = "/scratch/ckpt/";
    cfg.glbl_dir = "/scratch/ckpt/global";
    cfg.meta_dir = "meta";
    StorageLayout l(cfg, "exec");
    EXPECT_EQ(l.base_of(l.ckpt_dir({7, 1, 2, true}, 3)), fs::path("/scratch/ckpt/"));
    EXPECT_EQ(l.base_of(l.ckpt_dir({7, 4, 2}, 0)), fs::path("/scratch/ckpt/global"));
    EXPECT_EQ(l.base_of(l.meta_exec_dir()), fs::path("meta"));
    EXPECT_EQ(l.base_of("/scratch/ckpt"), fs::path("/scratch/ckpt/"));
    EXPECT_THROW(l.base_of("/elsewhere/node0"), Error);
    EXPECT_THROW(l.base_of("/scratch/ckpt/../x"), Error);
}

}  // namespace
}  // namespace mlckpt::core
