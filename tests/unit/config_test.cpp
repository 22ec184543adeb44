#include "config/config.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "common/error.hpp"
#include "config/levels.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

using test::TempDir;

const char* kMinimal =
    "[basic]\n"
    "node_size = 2\n"
    "ckpt_dir = /tmp/l\n"
    "glbl_dir = /tmp/g\n"
    "meta_dir = /tmp/m\n";

// Loads `text` and returns the error message ("" when it loads).
std::string error_of(const std::string& text) {
    TempDir dir;
    std::string path = dir.write("c.fti", text);
    try {
        load_config(path);
        return "";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::config);
        std::string msg = e.what();
        // Every message names the file.
        EXPECT_NE(msg.find(path), std::string::npos) << msg;
        return msg;
    }
}

// kMinimal with `line` added, replacing the line of the same key.
std::string minimal_with(const std::string& line) {
    const std::string key = line.substr(0, line.find(' '));
    std::istringstream in(kMinimal);
    std::string out;
    for (std::string l; std::getline(in, l);) {
        if (l.rfind(key + " ", 0) != 0) out += l + "\n";
    }
    return out + line + "\n";
}

TEST(Config, MinimalFileGetsDefaults) {
    TempDir dir;
    Config c = load_config(dir.write("c.fti", kMinimal));
    EXPECT_EQ(c.node_size, 2);
    EXPECT_EQ(c.ckpt_dir, "/tmp/l");
    EXPECT_EQ(c.glbl_dir, "/tmp/g");
    EXPECT_EQ(c.meta_dir, "/tmp/m");
    EXPECT_FALSE(c.head);
    EXPECT_EQ(c.group_size, 4);
    EXPECT_EQ(c.verbosity, 2);
    EXPECT_EQ(c.ckpt_io, IoMode::posix);
    EXPECT_EQ(c.failure, 0);
    EXPECT_EQ(c.block_size_kb, 1024);
    EXPECT_EQ(c.transfer_size_mb, 16);
    EXPECT_FALSE(c.local_test);
    EXPECT_FALSE(c.enable_staging);
    EXPECT_FALSE(c.async_snapshot);
    EXPECT_EQ(c.async_snapshot_mb, 4096);
    EXPECT_FALSE(Levels(c)[4].promoted_after_commit);
    EXPECT_EQ(Levels(c)[4].committed_at, 4) << "an inline L4 checkpoint is committed at L4";
    for (int level : kBaseLevels) EXPECT_EQ(Levels(c)[level].interval_minutes, 0.0);
    EXPECT_TRUE(Levels(c)[2].inline_work);
}

TEST(Config, EveryKeyIsRead) {
    TempDir dir;
    Config c = load_config(dir.write("c.fti",
                                     "; a comment\n"
                                     "[Basic]\n"
                                     "head = 1\nnode_size = 4\nckpt_dir = a\nglbl_dir = b\nmeta_dir = c\n"
                                     "ckpt_l1 = 1\nckpt_l2 = 2\nckpt_l3 = 3\nckpt_l4 = 0.5\n"
                                     "inline_l2 = 0\ninline_l3 = 1\ninline_l4 = 0\n"
                                     "keep_last_ckpt = 1\nkeep_l4_ckpt = 1\nkeep_heads_alive = 1\n"
                                     "group_size = 8\nverbosity = 3\nckpt_io = 3\nenable_dcp = 1\ndcp_mode = 2\n"
                                     "dcp_block_size = 4096\nmax_var_id = 99\nenable_staging = 1\n"
                                     "async_snapshot = 1\nasync_snapshot_mb = 512\n"
                                     "[restart]\nfailure = 1\nexec_id = 2026-01-02_03-04-05\n"
                                     "[advanced]\nblock_size = 64\ntransfer_size = 8\nlocal_test = 1\n"
                                     "general_tag = 1\nckpt_tag = 2\nstage_tag = 3\nfinal_tag = 4\n"
                                     "[injection]\nrank = 0\n"));
    EXPECT_TRUE(c.head);
    EXPECT_EQ(c.node_size, 4);
    EXPECT_EQ(Levels(c)[3].interval_minutes, 3.0);
    EXPECT_EQ(Levels(c)[4].interval_minutes, 0.5);
    EXPECT_FALSE(Levels(c)[2].inline_work);
    EXPECT_TRUE(Levels(c)[3].inline_work);
    EXPECT_FALSE(Levels(c)[4].inline_work);
    EXPECT_TRUE(c.keep_last_ckpt);
    EXPECT_TRUE(c.keep_l4_ckpt);
    EXPECT_TRUE(c.keep_heads_alive);
    EXPECT_EQ(c.group_size, 8);
    EXPECT_EQ(c.verbosity, 3);
    EXPECT_EQ(c.ckpt_io, IoMode::ftiff);
    EXPECT_TRUE(c.enable_dcp);
    EXPECT_TRUE(c.enable_staging);
    EXPECT_TRUE(c.async_snapshot);
    EXPECT_EQ(c.async_snapshot_mb, 512);
    EXPECT_TRUE(Levels(c)[3].promoted_after_commit)
        << "a snapshot is promoted after its commit even when inline_l3 = 1";
    EXPECT_FALSE(Levels(c)[1].promoted_after_commit);
    EXPECT_EQ(Levels(c)[4].committed_at, 1) << "an L4 checkpoint completed after its commit is first committed at L1";
    EXPECT_EQ(Levels(c)[3].committed_at, 3) << "L2 and L3 are committed at their level with the file alone";
    EXPECT_EQ(Levels(c)[1].committed_at, 1);
    EXPECT_EQ(c.dcp_mode, DcpMode::crc32);
    EXPECT_EQ(c.dcp_block_size, 4096);
    EXPECT_EQ(c.max_var_id, 99);
    EXPECT_EQ(c.failure, 1);
    EXPECT_EQ(c.exec_id, "2026-01-02_03-04-05");
    EXPECT_EQ(c.block_size_kb, 64);
    EXPECT_EQ(c.transfer_size_mb, 8);
    EXPECT_TRUE(c.local_test);
    EXPECT_EQ(c.final_tag, 4);
}

TEST(Config, CompressionPerLevel) {
    TempDir dir;
    Config c = load_config(dir.write("c.fti", kMinimal));
    EXPECT_FALSE(Levels(c).any_compressed()) << "off by default: an FTI configuration writes FTI's bytes";
    EXPECT_EQ(c.compression_block_kb, 1024);
    c = load_config(
        dir.write("c.fti", std::string(kMinimal) + "[compression]\nl2 = lz4\nl4 = zstd\nblock_size = 64\n"));
    EXPECT_EQ(Levels(c)[1].codec, Codec::none);
    EXPECT_EQ(Levels(c)[2].codec, Codec::lz4);
    EXPECT_EQ(Levels(c)[3].codec, Codec::none);
    EXPECT_EQ(Levels(c)[4].codec, Codec::zstd);
    EXPECT_EQ(Levels(c)[8].codec, Codec::none) << "L4 differential files are FTI-FF";
    EXPECT_EQ(c.compression_block_kb, 64);
    EXPECT_TRUE(Levels(c).any_compressed());

    auto with = [](const std::string& basic, const std::string& compression) {
        return error_of(std::string(kMinimal) + basic + "[compression]\n" + compression);
    };
    std::string msg = with("", "l1 = gzip\n");
    EXPECT_NE(msg.find("[compression] l1 = 'gzip': not a codec; allowed: none, lz4 (fast) or zstd (smaller)"),
              std::string::npos)
        << msg;
    msg = with("", "block_size = 0\n");
    EXPECT_NE(msg.find("allowed: an integer from 1 to 65536"), std::string::npos) << msg;
    msg = with("", "l5 = lz4\n");
    EXPECT_NE(msg.find("unknown key 'l5'; allowed keys: l1, l2, l3, l4, block_size"), std::string::npos) << msg;
    msg = with("ckpt_io = 3\n", "l2 = lz4\n");
    EXPECT_NE(msg.find("[compression] l2 = lz4 with [basic] ckpt_io = 3 (FTI-FF): FTI-FF files keep each variable"),
              std::string::npos)
        << msg;
    for (const char* io : {"2", "4"}) {
        EXPECT_EQ(with(std::string("ckpt_io = ") + io + "\n", "l1 = lz4\nl2 = lz4\nl3 = zstd\n"), "")
            << "L1-L3 write POSIX files";
        msg = with(std::string("ckpt_io = ") + io + "\n", "l4 = lz4\n");
        EXPECT_NE(msg.find("the shared L4 file places every rank's bytes"), std::string::npos) << msg;
    }
    // HDF5 files are compressed by HDF5's filters at any level; promoted
    // files are copied as L1 wrote them, which a warning says when the
    // levels disagree.
    c = load_config(dir.write("c.fti", std::string(kMinimal) + "ckpt_io = 5\n[compression]\nl1 = zstd\nl4 = lz4\n"));
    EXPECT_EQ(Levels(c)[1].codec, Codec::zstd);
    EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
    c = load_config(dir.write("c.fti", std::string(kMinimal) + "ckpt_io = 5\n[compression]\nl4 = lz4\n"));
    ASSERT_EQ(c.warnings.size(), 1u);
    EXPECT_NE(c.warnings[0].find("HDF5 files promoted from L1 to L4 (heads, background promotion, keep_last_ckpt) "
                                 "are copied as L1 wrote them"),
              std::string::npos)
        << c.warnings[0];
    // dCP files stay uncompressed: said, not refused.
    c = load_config(dir.write("c.fti", std::string(kMinimal) + "enable_dcp = 1\n[compression]\nl4 = lz4\n"));
    ASSERT_EQ(c.warnings.size(), 1u);
    EXPECT_NE(c.warnings[0].find("differential checkpoints (FTI_L4_DCP) are written uncompressed"), std::string::npos)
        << c.warnings[0];
}

TEST(Config, MissingFile) {
    std::string path = "/nonexistent/dir/c.fti";
    try {
        load_config(path);
        FAIL();
    } catch (const Error& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find("cannot read configuration file '/nonexistent/dir/c.fti'"), std::string::npos);
        EXPECT_NE(msg.find("No such file"), std::string::npos);
    }
}

TEST(Config, SyntaxError) {
    std::string msg = error_of("[basic\nnode_size = 1\n");
    EXPECT_NE(msg.find("cannot parse configuration file"), std::string::npos) << msg;
}

TEST(Config, MissingRequiredKeys) {
    EXPECT_NE(error_of("[basic]\nckpt_dir = a\nglbl_dir = b\nmeta_dir = c\n")
                  .find("[basic] node_size is required but missing"),
              std::string::npos);
    EXPECT_NE(error_of("[basic]\nnode_size = 1\nglbl_dir = b\nmeta_dir = c\n")
                  .find("[basic] ckpt_dir is required but missing"),
              std::string::npos);
    EXPECT_NE(error_of("[basic]\nnode_size = 1\nckpt_dir = b\nglbl_dir = c\n")
                  .find("[basic] meta_dir is required but missing"),
              std::string::npos);
}

TEST(Config, WrongTypeAndRange) {
    struct Case {
        const char* line;
        const char* expected;
    } cases[] = {
        {"node_size = two", "[basic] node_size = 'two': not an integer; allowed: an integer from 1 to 4096"},
        {"node_size = 0", "[basic] node_size = '0': out of range; allowed: an integer from 1 to 4096"},
        {"node_size = 2x", "[basic] node_size = '2x': not an integer"},
        {"node_size = 99999999999999999999", "out of range"},
        {"head = 2", "[basic] head = '2': not a flag; allowed: 0 or 1"},
        {"ckpt_l1 = soon", "[basic] ckpt_l1 = 'soon': not a number; allowed: a number of minutes (0 or less"},
        {"group_size = 5000", "[basic] group_size = '5000': out of range"},
        {"ckpt_l3 = 1\ngroup_size = 33",
         "[basic] group_size = 33 with ckpt_l3 > 0: Reed-Solomon groups have at most 32 nodes; allowed: 1 to 32"},
        {"verbosity = 4", "[basic] verbosity = '4': out of range; allowed: an integer from 1 to 3"},
        {"ckpt_io = POSIX", "[basic] ckpt_io = 'POSIX': not an integer"},
        {"dcp_block_size = big", "[basic] dcp_block_size = 'big': not an integer"},
        {"inline_l2 = maybe", "[basic] inline_l2 = 'maybe': not a flag"},
        {"[advanced]\nfast_forward = 11",
         "[advanced] fast_forward = '11': out of range; allowed: an integer from 1 to 10"},
        {"[advanced]\nfast_forward = 0", "[advanced] fast_forward = '0': out of range"},
        {"ckpt_dir = \"\"", "[basic] ckpt_dir = '': empty; allowed: a directory path"},
        {"async_snapshot = sometimes", "[basic] async_snapshot = 'sometimes': not a flag; allowed: 0 or 1"},
        {"async_snapshot_mb = 0", "[basic] async_snapshot_mb = '0': out of range; allowed: an integer from 1 to"},
    };
    for (const Case& c : cases) {
        std::string msg = error_of(minimal_with(c.line));
        EXPECT_NE(msg.find(c.expected), std::string::npos) << c.line << " -> " << msg;
    }
}

TEST(Config, RestartSectionErrors) {
    std::string msg = error_of(std::string(kMinimal) + "[restart]\nfailure = 4\n");
    EXPECT_NE(msg.find("[restart] failure = '4': out of range; allowed: an integer from 0 to 3"), std::string::npos)
        << msg;
    msg = error_of(std::string(kMinimal) + "[restart]\nfailure = 1\n");
    EXPECT_NE(msg.find("failure = 1 asks for a restart but exec_id is empty"), std::string::npos) << msg;
    msg = error_of(std::string(kMinimal) + "[restart]\nexec_id = a/b\n");
    EXPECT_NE(msg.find("[restart] exec_id = 'a/b': invalid character"), std::string::npos) << msg;
    msg = error_of(std::string(kMinimal) + "[restart]\nexec_id = ..\n");
    EXPECT_NE(msg.find("[restart] exec_id = '..': not a directory name"), std::string::npos) << msg;
}

TEST(Config, UnknownKeyNamesAllowedKeys) {
    std::string msg = error_of(std::string(kMinimal) + "ckpt_l5 = 3\n");
    EXPECT_NE(msg.find("[basic] unknown key 'ckpt_l5'; allowed keys: head, node_size"), std::string::npos) << msg;
    msg = error_of(std::string(kMinimal) + "[advanced]\nblocksize = 3\n");
    EXPECT_NE(msg.find("[advanced] unknown key 'blocksize'; allowed keys: block_size"), std::string::npos) << msg;
}

TEST(Config, UnknownSection) {
    std::string msg = error_of(std::string(kMinimal) + "[extra]\nx = 1\n");
    EXPECT_NE(msg.find("unknown section [extra]; allowed: [basic], [restart], [advanced], [injection], [compression]"),
              std::string::npos)
        << msg;
}

TEST(Config, IgnoredFtiKeysAreAccepted) {
    EXPECT_EQ(error_of(std::string(kMinimal) + "h5_single_file_enable = 0\n[advanced]\nlustre_striping_unit = 1\n"),
              "");
}

// [injection] drives FTI_BitFlip: FTI's defaults, and any integer, as FTI
// reads them (FTI_BitFlip tells which do not fit the variable).
TEST(Config, InjectionKeys) {
    TempDir dir;
    Injection d = load_config(dir.write("c.fti", kMinimal)).injection;
    EXPECT_EQ(d.rank, 0);
    EXPECT_EQ(d.index, 0);
    EXPECT_EQ(d.position, 0);
    EXPECT_EQ(d.number, 0);
    EXPECT_EQ(d.frequency, -1);
    Injection i =
        load_config(dir.write("i.fti", std::string(kMinimal) + "[Injection]\nRank = 3\nindex = 17\nposition = 70\n"
                                                               "number = -2\nfrequency = 0\n"))
            .injection;
    EXPECT_EQ(i.rank, 3);
    EXPECT_EQ(i.index, 17);
    EXPECT_EQ(i.position, 70);
    EXPECT_EQ(i.number, -2);
    EXPECT_EQ(i.frequency, 0);
    std::string msg = error_of(std::string(kMinimal) + "[injection]\nposition = two\n");
    EXPECT_NE(msg.find("[injection] position = 'two': not an integer"), std::string::npos) << msg;
}

TEST(Config, FlagsAcceptIniparserSpellings) {
    TempDir dir;
    Config c = load_config(
        dir.write("c.fti", std::string(kMinimal) + "keep_last_ckpt = Yes\nkeep_l4_ckpt = TRUE\ninline_l2 = no\n"));
    EXPECT_TRUE(c.keep_last_ckpt);
    EXPECT_TRUE(c.keep_l4_ckpt);
    EXPECT_FALSE(Levels(c)[2].inline_work);
}

TEST(Config, MaxSyncIntervalZeroMeansDefault) {
    TempDir dir;
    EXPECT_EQ(load_config(dir.write("c.fti", std::string(kMinimal) + "max_sync_intv = 0\n")).max_sync_intv, 512);
    EXPECT_EQ(load_config(dir.write("d.fti", std::string(kMinimal) + "max_sync_intv = 64\n")).max_sync_intv, 64);
    EXPECT_EQ(load_config(dir.write("e.fti", std::string(kMinimal) + "max_sync_intv = -1\n")).max_sync_intv, 512);
}

// The values FTI 1.6 accepts and replaces, or settings it turns off: the
// file loads, the replacement is FTI's, and a warning says what was done.
TEST(Config, ValuesFtiReplacesLoadWithAWarning) {
    struct Case {
        const char* lines;
        const char* warning;  // "" when FTI says nothing either
        void (*check)(const Config&);
    } cases[] = {
        {"ckpt_l4 = -1", "", [](const Config& c) { EXPECT_EQ(Levels(c)[4].interval_minutes, 0.0); }},
        {"group_size = 0", "", [](const Config& c) { EXPECT_EQ(c.group_size, 1); }},
        {"group_size = -1", "", [](const Config& c) { EXPECT_EQ(c.group_size, 1); }},
        {"group_size = 64", "", [](const Config& c) { EXPECT_EQ(c.group_size, 64); }},
        {"ckpt_io = 5", "", [](const Config& c) { EXPECT_EQ(c.ckpt_io, IoMode::hdf5); }},
        {"ckpt_io = 6", "[basic] ckpt_io = '6': no checkpoint format has this number; writing POSIX files",
         [](const Config& c) { EXPECT_EQ(c.ckpt_io, IoMode::posix); }},
        {"ckpt_io = 0", "[basic] ckpt_io = '0': no checkpoint format has this number; writing POSIX files",
         [](const Config& c) { EXPECT_EQ(c.ckpt_io, IoMode::posix); }},
        {"dcp_block_size = -1\ndcp_mode = 0", "", [](const Config& c) { EXPECT_FALSE(c.enable_dcp); }},
        {"enable_dcp = 1\ndcp_block_size = -1",
         "[basic] dcp_block_size = -1: not from 512 to 65536 bytes; differential checkpoints are off",
         [](const Config& c) { EXPECT_FALSE(c.enable_dcp); }},
        {"enable_dcp = 1\ndcp_mode = 0",
         "[basic] dcp_mode = 0: not 1 (MD5) or 2 (CRC-32); differential checkpoints are off",
         [](const Config& c) { EXPECT_FALSE(c.enable_dcp); }},
        {"enable_dcp = 1\nckpt_io = 1\ndcp_mode = 2\ndcp_block_size = 4096", "",
         [](const Config& c) {
             EXPECT_TRUE(c.enable_dcp);
             EXPECT_EQ(c.dcp_mode, DcpMode::crc32);
             EXPECT_EQ(c.dcp_block_size, 4096);
         }},
        // FTI takes up to 10 layers (its message says "< 10", its check is > 10).
        {"enable_dcp = 1\ndcp_stack_size = 10", "", [](const Config& c) { EXPECT_EQ(c.dcp_stack_size, 10); }},
        {"enable_dcp = 1\ndcp_stack_size = 11",
         "[basic] dcp_stack_size = 11: not from 1 to 10; the default, 5, is used",
         [](const Config& c) { EXPECT_EQ(c.dcp_stack_size, 5); }},
        {"enable_dcp = 1\ndcp_stack_size = 0", "[basic] dcp_stack_size = 0: not from 1 to 10; the default, 5, is used",
         [](const Config& c) { EXPECT_EQ(c.dcp_stack_size, 5); }},
        {"inline_l3 = 5", "[basic] inline_l3 = '5': not 0 or 1; taken as 1 (inline), as FTI does",
         [](const Config& c) { EXPECT_TRUE(Levels(c)[3].inline_work); }},
        {"[advanced]\ntransfer_size = -1", "[advanced] transfer_size = '-1': outside 1 to 65536 MiB; using 16 MiB",
         [](const Config& c) { EXPECT_EQ(c.transfer_size_mb, 16); }},
        {"[advanced]\nfast_forward = 5", "", [](const Config& c) { EXPECT_EQ(c.fast_forward, 5); }},
        {"h5_single_file_inline = 0",
         "[basic] h5_single_file_inline = '0': the heads do not assemble the global HDF5 file; the application "
         "ranks write it together",
         [](const Config& c) { EXPECT_FALSE(c.variate_restart); }},
    };
    for (const Case& k : cases) {
        TempDir dir;
        const std::string path = dir.write("c.fti", std::string(kMinimal) + k.lines + "\n");
        Config c = load_config(path);
        k.check(c);
        if (*k.warning == '\0') {
            EXPECT_TRUE(c.warnings.empty()) << k.lines << " -> " << c.warnings.front();
        } else {
            ASSERT_EQ(c.warnings.size(), 1U) << k.lines;
            EXPECT_NE(c.warnings[0].find(k.warning), std::string::npos) << k.lines << " -> " << c.warnings[0];
            EXPECT_EQ(c.warnings[0].rfind(path, 0), 0U) << "names the file: " << c.warnings[0];
        }
    }
}

// The global HDF5 file's keys, and failure = 3: a fresh execution (no
// exec_id needed) that restarts from the newest global file.
TEST(Config, SingleFileKeysAndVariateRestart) {
    TempDir dir;
    Config defaults = load_config(dir.write("d.fti", kMinimal));
    EXPECT_FALSE(defaults.h5_single_file_enable);
    EXPECT_EQ(defaults.single_file_dir(), "/tmp/g");
    EXPECT_EQ(defaults.h5_single_file_prefix, "VPR-h5");
    EXPECT_FALSE(defaults.h5_single_file_keep);
    EXPECT_FALSE(defaults.variate_restart);

    Config c = load_config(dir.write(
        "c.fti", std::string(kMinimal) +
                     "h5_single_file_enable = 1\nh5_single_file_dir = /tmp/vpr\nh5_single_file_prefix = run7\n"
                     "h5_single_file_keep = 1\n[restart]\nfailure = 3\nexec_id =\n"));
    EXPECT_TRUE(c.h5_single_file_enable);
    EXPECT_EQ(c.single_file_dir(), "/tmp/vpr");
    EXPECT_EQ(c.h5_single_file_prefix, "run7");
    EXPECT_TRUE(c.h5_single_file_keep);
    EXPECT_TRUE(c.variate_restart);
    EXPECT_EQ(c.failure, 0);
    EXPECT_TRUE(c.warnings.empty());

    Config empty =
        load_config(dir.write("e.fti", std::string(kMinimal) + "h5_single_file_dir =\nh5_single_file_prefix =\n"));
    EXPECT_EQ(empty.single_file_dir(), "/tmp/g");
    EXPECT_EQ(empty.h5_single_file_prefix, "VPR-h5");

    EXPECT_NE(error_of(minimal_with("h5_single_file_prefix = a/b")).find("without '/'"), std::string::npos);
    EXPECT_NE(error_of(minimal_with("h5_single_file_enable = maybe")).find("h5_single_file_enable"), std::string::npos);
}

// FTI's own configuration template (the keys and values of the one its
// test suites start from) loads as it is.
TEST(Config, FtiTemplateLoads) {
    TempDir dir;
    Config c = load_config(dir.write("c.fti",
                                     "[basic]\n"
                                     "node_size              = 4\n"
                                     "group_size             = 4\n"
                                     "ckpt_dir               = Local\n"
                                     "glbl_dir               = Global\n"
                                     "meta_dir               = Meta\n"
                                     "ckpt_io                = 1\n"
                                     "ckpt_l1                = 0\n"
                                     "ckpt_l2                = 0\n"
                                     "ckpt_l3                = 0\n"
                                     "ckpt_l4                = 0\n"
                                     "head                   = 0\n"
                                     "inline_l2              = 1\n"
                                     "inline_l3              = 1\n"
                                     "inline_l4              = 1\n"
                                     "keep_last_ckpt         = 0\n"
                                     "keep_l4_ckpt           = 0\n"
                                     "verbosity              = 2\n"
                                     "max_sync_intv          = 512\n"
                                     "enable_dcp             = 0\n"
                                     "dcp_mode               = 1\n"
                                     "dcp_block_size         = -1\n"
                                     "dcp_stack_size         = 5\n"
                                     "enable_staging         = 0\n"
                                     "h5_single_file_dir     =\n"
                                     "h5_single_file_prefix  =\n"
                                     "h5_single_file_keep    = 0\n"
                                     "h5_single_file_enable  = 0\n"
                                     "h5_single_file_inline  = 1\n"
                                     "[restart]\n"
                                     "failure                = 0\n"
                                     "exec_id                = NULL\n"
                                     "[injection]\n"
                                     "rank                   = 0\n"
                                     "number                 = 0\n"
                                     "position               = 0\n"
                                     "frequency              = 0\n"
                                     "[advanced]\n"
                                     "block_size             = 1024\n"
                                     "transfer_size          = 16\n"
                                     "mpi_tag                = 2612\n"
                                     "local_test             = 1\n"
                                     "general_tag            = 2612\n"
                                     "ckpt_tag               = 711\n"
                                     "stage_tag              = 406\n"
                                     "final_tag              = 3107\n"
                                     "fast_forward           = 1\n"));
    EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
    EXPECT_FALSE(c.enable_dcp);
    EXPECT_EQ(c.node_size, 4);
    EXPECT_TRUE(c.local_test);
    EXPECT_EQ(c.fast_forward, 1);
}

// What iniparser would take silently (the last of two, a key outside any
// section, a quote left open) is refused with the line that is wrong.
TEST(Config, StructureIsStrict) {
    struct Case {
        std::string text;
        const char* expected;
    } cases[] = {
        {std::string(kMinimal) + "[Basic]\nhead = 0\n",
         ":6: section [basic] appears again (first at line 1); allowed: each section once"},
        {std::string(kMinimal) + "Node_Size = 4\n",
         ":6: [basic] node_size is set again (first at line 2); allowed: each key once per section"},
        {"verbosity = 2\n" + std::string(kMinimal), ":1: key 'verbosity' before any section; allowed: keys inside"},
        {std::string(kMinimal) + "[restart]\nexec_id = \"abc\n",
         ":7: [restart] exec_id: the quote is not closed; allowed: a value in matching quotes"},
    };
    for (const Case& c : cases) {
        std::string msg = error_of(c.text);
        EXPECT_NE(msg.find(c.expected), std::string::npos) << c.text << " -> " << msg;
    }
    TempDir dir;
    std::filesystem::create_directory(dir.path() / "a-directory");
    try {
        load_config((dir.path() / "a-directory").string());
        ADD_FAILURE() << "a directory is not a configuration file";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("is a directory; allowed: an INI file"), std::string::npos) << e.what();
    }
}

TEST(Config, HeadNeedsTwoRanksPerNode) {
    std::string msg = error_of("[basic]\nhead = 1\nnode_size = 1\nckpt_dir = a\nglbl_dir = b\nmeta_dir = c\n");
    EXPECT_NE(msg.find("head = 1 needs node_size >= 2"), std::string::npos) << msg;
}

}  // namespace
}  // namespace mlckpt::core
