#include <gtest/gtest.h>

#include <algorithm>

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
    EXPECT_EQ(l.data_file({7, kDcpLevel, 3}, 12, 0), "/g/exec/dCP/dCPFile-Rank12.fti");
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
    EXPECT_EQ(heads.data_file({7, kDcpLevel, 4}, 2, 0), "/g/exec/dCP/dcp-id0-rank5.fti");

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

// L4 differential files take the names FTI gives its dCP files: POSIX dCP's
// under ckpt_io = 1, FTI-FF dCP's under every other (the file is FTI-FF).
// Those an earlier version named dcp/dCP-Rank<R>.fti are found by the name
// their metadata records, and so are those of a run of another ckpt_io.
TEST(Layout, DcpFilesTakeFtisNames) {
    Config cfg = directories("/l", "/g", "/m");
    using Named = std::pair<IoMode, const char*>;
    for (const auto& [io, name] :
         {Named{IoMode::posix, "dcp-id0-rank3.fti"}, Named{IoMode::mpiio, "dCPFile-Rank3.fti"},
          Named{IoMode::ftiff, "dCPFile-Rank3.fti"}, Named{IoMode::container, "dCPFile-Rank3.fti"},
          Named{IoMode::hdf5, "dCPFile-Rank3.fti"}}) {
        cfg.ckpt_io = io;
        const StorageLayout l(cfg, "exec");
        EXPECT_EQ(l.level_dir(kDcpLevel, 0), "/g/exec/dCP");
        EXPECT_EQ(l.data_file({7, kDcpLevel, 2}, 3, 0), fs::path("/g/exec/dCP") / name);
        // The name is the configured ckpt_io's, not that of a checkpoint's own format.
        EXPECT_EQ(l.for_io(IoMode::ftiff).data_file({7, kDcpLevel, 2}, 3, 0), fs::path("/g/exec/dCP") / name);
        const std::vector<fs::path> all = l.dcp_files(3);
        ASSERT_EQ(all.size(), 3u);
        EXPECT_EQ(all[0], fs::path("/g/exec/dCP") / name) << "this run's names first";
        EXPECT_NE(std::find(all.begin(), all.end(), "/g/exec/dcp/dCP-Rank3.fti"), all.end());
        EXPECT_EQ(l.dcp_dirs(), (std::vector<fs::path>{"/g/exec/dCP", "/g/exec/dcp"}));
    }

    cfg.ckpt_io = IoMode::posix;
    const StorageLayout heads(cfg, "exec", {1, 3, 5});
    CheckpointMeta meta;
    meta.level = kDcpLevel;
    meta.io = IoMode::ftiff;
    for (int r = 0; r < 3; ++r) {
        FileRecord f;
        f.rank = f.holder = r;
        f.file = "dCP-Rank" + std::to_string(r) + ".fti";  // an earlier version's, without heads
        meta.files.push_back(f);
    }
    const StorageLayout legacy = heads.for_checkpoint(meta);
    EXPECT_EQ(legacy.dcp_names(), DcpNames::legacy);
    EXPECT_EQ(legacy.ckpt_dir({7, kDcpLevel, 2}, 0), "/g/exec/dcp");
    EXPECT_EQ(legacy.data_file({7, kDcpLevel, 2}, 1, 0), "/g/exec/dcp/dCP-Rank1.fti");
    for (FileRecord& f : meta.files) f.file = "dCPFile-Rank" + std::to_string(f.rank) + ".fti";
    EXPECT_EQ(heads.for_checkpoint(meta).data_file({7, kDcpLevel, 2}, 2, 0), "/g/exec/dCP/dCPFile-Rank2.fti");
    EXPECT_EQ(heads.data_file({7, kDcpLevel, 2}, 2, 0), "/g/exec/dCP/dcp-id0-rank5.fti");

    int rank = -1;
    DcpNames names = DcpNames::legacy;
    EXPECT_TRUE(parse_dcp_file_name("dcp-id0-rank12.fti", rank, names));
    EXPECT_EQ(rank, 12);
    EXPECT_EQ(names, DcpNames::posix);
    EXPECT_TRUE(parse_dcp_file_name("dcp-id3-rank1.fti", rank, names)) << "any of FTI's stack numbers";
    EXPECT_EQ(rank, 1);
    EXPECT_TRUE(parse_dcp_file_name("dCPFile-Rank7.fti", rank, names));
    EXPECT_EQ(rank, 7);
    EXPECT_EQ(names, DcpNames::ftiff);
    EXPECT_TRUE(parse_dcp_file_name("dCP-Rank0.fti", rank, names));
    EXPECT_EQ(rank, 0);
    EXPECT_EQ(names, DcpNames::legacy);
    for (const char* other : {"dCP-Rank0.fti.journal", "dcp-id-rank1.fti", "dcp-id0-rank.fti", "dCPFile-Rank1.h5",
                              "Ckpt1-Rank0.fti", "dCPFile-Rank99999999999.fti", "dcp-id0-Rank1.fti"}) {
        EXPECT_FALSE(parse_dcp_file_name(other, rank, names)) << other;
    }
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
