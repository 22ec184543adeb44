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
    Catalog back = Catalog::parse(c.serialize());
    EXPECT_EQ(back.refs().size(), 3u);
    EXPECT_TRUE(back.contains(1, 4));
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

TEST(Layout, PathsAndNames) {
    Config cfg;
    cfg.ckpt_dir = "/l";
    cfg.glbl_dir = "/g";
    cfg.meta_dir = "/m";
    StorageLayout l(cfg, "exec");
    EXPECT_EQ(l.ckpt_dir(1, 7, 3), "/l/node3/exec/l1/ckpt7");
    EXPECT_EQ(l.ckpt_dir(4, 7, 3), "/g/exec/l4/ckpt7");
    EXPECT_EQ(l.meta_file(4, 7), "/m/exec/ckpt7.l4.meta");
    EXPECT_EQ(l.archive_dir(), "/g/exec/l4_archive");
    EXPECT_EQ(StorageLayout::data_file_name(3, 12, IoMode::posix), "Ckpt3-Rank12.fti");
    std::uint64_t seq = 0;
    int level = 0;
    EXPECT_TRUE(StorageLayout::parse_meta_file_name("ckpt17.l4.meta", seq, level));
    EXPECT_EQ(seq, 17u);
    EXPECT_EQ(level, 4);
    EXPECT_FALSE(StorageLayout::parse_meta_file_name("ckpt17.l9.meta", seq, level));
    EXPECT_FALSE(StorageLayout::parse_meta_file_name("ckpt.l1.meta", seq, level));
    EXPECT_FALSE(StorageLayout::parse_meta_file_name("ckpt1.l1.meta.tmp.5", seq, level));
    EXPECT_TRUE(StorageLayout::parse_ckpt_dir_name("ckpt3", seq));
    EXPECT_FALSE(StorageLayout::parse_ckpt_dir_name("ckpt3.tmp", seq));
}

// HDF5 checkpoints are named as FTI names them, "Ckpt<I>-Rank<R>.h5", and
// so are their partner copies and parity; L4 differential files stay FTI-FF.
TEST(Layout, Hdf5FilesEndInH5) {
    Config cfg;
    cfg.ckpt_dir = "/l";
    cfg.glbl_dir = "/g";
    cfg.meta_dir = "/m";
    cfg.ckpt_io = IoMode::hdf5;
    const StorageLayout l(cfg, "exec");
    EXPECT_EQ(l.data_file({7, 1, 3}, 12, 0), "/l/node0/exec/l1/ckpt7/Ckpt3-Rank12.h5");
    EXPECT_EQ(l.data_file({7, 4, 3}, 12, 0), "/g/exec/l4/ckpt7/Ckpt3-Rank12.h5");
    EXPECT_EQ(l.redundancy_file({7, 2, 3}, 12, 0), "/l/node0/exec/l2/ckpt7/Ckpt3-Pcof12.h5");
    EXPECT_EQ(l.redundancy_file({7, 3, 3}, 12, 0), "/l/node0/exec/l3/ckpt7/Ckpt3-RSed12.h5");
    EXPECT_EQ(l.data_file({7, kDcpLevel, 3}, 12, 0), "/g/exec/dcp/dCP-Rank12.fti");
    // A checkpoint written under another ckpt_io keeps its names.
    EXPECT_EQ(l.for_io(IoMode::posix).data_file({7, 1, 3}, 12, 0), "/l/node0/exec/l1/ckpt7/Ckpt3-Rank12.fti");
    cfg.ckpt_io = IoMode::posix;
    EXPECT_EQ(StorageLayout(cfg, "exec").for_io(IoMode::hdf5).redundancy_file({7, 2, 3}, 12, 0),
              "/l/node0/exec/l2/ckpt7/Ckpt3-Pcof12.h5");
}

// make_dir follows links only down to the configured directory a path lies
// in: the innermost one when they nest (meta_dir inside ckpt_dir, say).
TEST(Layout, BaseOfIsTheInnermostConfiguredDirectory) {
    Config cfg;
    cfg.ckpt_dir = "/scratch/ckpt/";
    cfg.glbl_dir = "/scratch/ckpt/global";
    cfg.meta_dir = "meta";
    StorageLayout l(cfg, "exec");
    EXPECT_EQ(l.base_of(l.ckpt_dir(1, 7, 3)), fs::path("/scratch/ckpt/"));
    EXPECT_EQ(l.base_of(l.ckpt_dir(4, 7, 0)), fs::path("/scratch/ckpt/global"));
    EXPECT_EQ(l.base_of(l.meta_exec_dir()), fs::path("meta"));
    EXPECT_EQ(l.base_of("/scratch/ckpt"), fs::path("/scratch/ckpt/"));
    EXPECT_THROW(l.base_of("/elsewhere/node0"), Error);
    EXPECT_THROW(l.base_of("/scratch/ckpt/../x"), Error);
}

}  // namespace
}  // namespace mlckpt::core
