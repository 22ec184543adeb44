// The level descriptors: what each level number means, what a
// configuration makes of each level, and FTI's API levels.
#include "config/levels.hpp"

#include <gtest/gtest.h>

#include "config/api_level.hpp"
#include "expect_error.hpp"

namespace mlckpt::core {
namespace {

using test::error_message;

TEST(LevelTraits, SayWhereEachLevelLivesAndWhatProtectsIt) {
    EXPECT_TRUE(is_node_local(kL1) && is_node_local(kL2) && is_node_local(kL3));
    EXPECT_TRUE(is_global(kL4) && is_global(kDcpLevel));
    EXPECT_EQ(redundancy_kind(kL1), GroupRedundancy::none);
    EXPECT_EQ(redundancy_kind(kL2), GroupRedundancy::partner_copy);
    EXPECT_EQ(redundancy_kind(kL3), GroupRedundancy::reed_solomon);
    EXPECT_EQ(redundancy_kind(kL4), GroupRedundancy::none);
    EXPECT_TRUE(is_differential(kDcpLevel));
    EXPECT_FALSE(is_differential(kL4));
    EXPECT_TRUE(is_full_l4(kL4));
    EXPECT_FALSE(is_full_l4(kDcpLevel));
    EXPECT_EQ(level_name(kL3), "L3");
    EXPECT_EQ(level_name(kDcpLevel), "L4 differential");
}

TEST(LevelTraits, AnUnknownNumberIsNoLevel) {
    for (int n : {0, -1, 5, 7, 9, 100}) {
        EXPECT_EQ(find_level(n), nullptr) << n;
        EXPECT_FALSE(is_node_local(n) || is_global(n) || has_group_redundancy(n)) << n;
    }
    EXPECT_EQ(level_name(5), "level 5");
    const std::string message = error_message(ErrorKind::corrupt, [] { level_traits(6); });
    EXPECT_NE(message.find("checkpoint level 6"), std::string::npos) << message;
    EXPECT_NE(message.find("allowed: 1 to 4, 8"), std::string::npos) << message;
}

TEST(LevelTraits, RankDifferentialCheckpointsAsL4) {
    EXPECT_EQ(reported_level(kDcpLevel), kL4);
    EXPECT_TRUE(supersedes(kL4, kDcpLevel));
    EXPECT_TRUE(supersedes(kDcpLevel, kL4));
    EXPECT_TRUE(supersedes(kL3, kL1));
    EXPECT_FALSE(supersedes(kL1, kL3)) << "an L1 checkpoint keeps the older L3 one";
    EXPECT_TRUE(read_first(kL1, kL4)) << "an L4 checkpoint's L1 copy is read first";
    EXPECT_FALSE(read_first(kL4, kL1));
}

TEST(LevelTraits, FormatFollowsTheLevel) {
    EXPECT_EQ(format_at(IoMode::mpiio, kL1), IoMode::posix) << "the shared modes write per-rank files below L4";
    EXPECT_EQ(format_at(IoMode::mpiio, kL4), IoMode::mpiio);
    EXPECT_EQ(format_at(IoMode::container, kL3), IoMode::posix);
    EXPECT_EQ(format_at(IoMode::posix, kDcpLevel), IoMode::ftiff) << "L4 differential files are FTI-FF";
    EXPECT_EQ(format_at(IoMode::hdf5, kL2), IoMode::hdf5);
}

TEST(LevelTraits, ReedSolomonGroupsHaveALimit) {
    const RedundancyScheme fti_l3{GroupRedundancy::reed_solomon, 0};
    EXPECT_FALSE(group_size_problem(fti_l3, kMaxParityGroup));
    ASSERT_TRUE(group_size_problem(fti_l3, kMaxParityGroup + 1));
    EXPECT_NE(group_size_problem(fti_l3, 33)->find("at most 32 nodes"), std::string::npos);
    EXPECT_FALSE(group_size_problem({GroupRedundancy::partner_copy, 0}, 100)) << "partner copies have no limit";
}

TEST(LevelTraits, ReedSolomonSetsNeedMoreNodesThanTheySurviveLosing) {
    const RedundancyScheme two{GroupRedundancy::reed_solomon, 2};
    EXPECT_FALSE(group_size_problem(two, 3));
    ASSERT_TRUE(group_size_problem(two, 2));
    EXPECT_NE(group_size_problem(two, 2)->find("more than 2 nodes"), std::string::npos);
}

TEST(LevelDescriptors, L3FailuresMakeReedSolomonSets) {
    Config config;
    config.l3_failures = 2;
    const Levels levels(config);
    EXPECT_EQ(levels[kL3].redundancy.kind, GroupRedundancy::reed_solomon);
    EXPECT_EQ(levels[kL3].redundancy.set_failures, 2);
    EXPECT_EQ(levels[kL2].redundancy.kind, GroupRedundancy::partner_copy);
    EXPECT_EQ(levels[kL2].redundancy.set_failures, 0) << "only Reed-Solomon has sets";
    EXPECT_EQ(levels[kL4].redundancy.kind, GroupRedundancy::none);
    EXPECT_EQ(Levels(Config{})[kL3].redundancy.set_failures, 0) << "FTI's L3 by default";
}

Config configured(bool head, bool async_snapshot) {
    Config c;
    c.head = head;
    c.async_snapshot = async_snapshot;
    c.l2.inline_work = false;
    c.l4.inline_work = false;
    c.l4.codec = Codec::zstd;
    c.l3.interval_minutes = 2.5;
    return c;
}

TEST(Levels, DescribeEachLevelOfTheConfiguration) {
    const Levels levels(configured(false, false));
    EXPECT_TRUE(levels[kL1].inline_work);
    EXPECT_FALSE(levels[kL1].promoted_after_commit) << "L1 has no work after its file";
    EXPECT_TRUE(levels[kL2].promoted_after_commit);
    EXPECT_EQ(levels[kL2].committed_at, kL2) << "L2 is committed with the file alone";
    EXPECT_FALSE(levels[kL3].promoted_after_commit);
    EXPECT_EQ(levels[kL3].interval_minutes, 2.5);
    EXPECT_TRUE(levels[kL4].promoted_after_commit);
    EXPECT_EQ(levels[kL4].committed_at, kL1) << "an L4 checkpoint completed later is first committed at L1";
    EXPECT_FALSE(levels[kL4].handed_to_head) << "head = 0: a thread of the rank promotes it";
    EXPECT_EQ(levels[kL4].codec, Codec::zstd);
    EXPECT_EQ(levels[kDcpLevel].codec, Codec::none) << "L4 differential files are written uncompressed";
    EXPECT_EQ(levels[kDcpLevel].format, IoMode::ftiff);
    EXPECT_FALSE(levels[kDcpLevel].promoted_after_commit);
    EXPECT_TRUE(levels.any_promoted_after_commit());
    EXPECT_TRUE(levels.any_compressed());
    EXPECT_EQ(levels.intervals(), (std::array<double, 4>{0, 0, 2.5, 0}));
}

TEST(Levels, HeadsAndSnapshotsPromoteAfterTheCommit) {
    const Levels heads(configured(true, false));
    EXPECT_TRUE(heads[kL4].handed_to_head);
    EXPECT_FALSE(heads[kL3].handed_to_head) << "inline_l3 = 1: the ranks make the parity";
    const Levels snapshots(configured(false, true));
    EXPECT_TRUE(snapshots[kL3].promoted_after_commit) << "a snapshot is promoted after its commit, inline or not";
    EXPECT_FALSE(snapshots[kL1].promoted_after_commit);
}

TEST(Levels, RefuseANumberThatIsNoLevel) {
    const Levels levels(Config{});
    const std::string message = error_message(ErrorKind::usage, [&] { (void)levels[9]; });
    EXPECT_NE(message.find("checkpoint level 9 is invalid"), std::string::npos) << message;
}

TEST(ApiLevel, TakesFtisLevelsAsFtiDoes) {
    EXPECT_EQ(parse_api_level(kL2, false, "f").level, kL2);
    EXPECT_TRUE(parse_api_level(kL2, false, "f").warning.empty());
    const ApiLevel six = parse_api_level(6, false, "f");
    EXPECT_EQ(six.level, kL2) << "FTI takes level 6 as an L2 checkpoint";
    EXPECT_NE(six.warning.find("differential checkpoints exist at L4 only"), std::string::npos);
    EXPECT_EQ(parse_api_level(kDcpLevel, true, "f").level, kDcpLevel);
    const ApiLevel dcp_off = parse_api_level(kDcpLevel, false, "app.cfg");
    EXPECT_EQ(dcp_off.level, kL4);
    EXPECT_NE(dcp_off.warning.find("enable_dcp = 1 in app.cfg"), std::string::npos) << dcp_off.warning;
    EXPECT_TRUE(is_single_file_level(parse_api_level(kSingleFileLevel, false, "f").level));
    for (int bad : {0, -3, 10, 1000}) {
        const std::string message = error_message(ErrorKind::usage, [&] { parse_api_level(bad, true, "f"); });
        EXPECT_NE(message.find("FTI_L4_H5_SINGLE (9)"), std::string::npos) << bad << ": " << message;
    }
}

}  // namespace
}  // namespace mlckpt::core
