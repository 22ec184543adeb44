#include <gtest/gtest.h>

#include "mpi/collective.hpp"

namespace mlckpt::core {
namespace {

TEST(AgreedMessage, TheFirstFailingRankKeepsItsMessage) {
    EXPECT_EQ(agreed_message(0, 0, "disk full", "disk full"), "disk full");
}

TEST(AgreedMessage, OtherRanksGetThePrefixOfTheFirstFailingRank) {
    EXPECT_EQ(agreed_message(3, 1, "disk full", ""), "on rank 1: disk full");
    // A rank that failed the same way itself still learns who reported it.
    EXPECT_EQ(agreed_message(3, 1, "disk full", "disk full"), "on rank 1: disk full");
}

TEST(AgreedMessage, APrefixIsNotAddedTwice) {
    EXPECT_EQ(agreed_message(3, 0, "on rank 2: disk full", "on rank 2: disk full"), "on rank 2: disk full");
}

// Nested steps: rank 2 failed first in an inner agreement, so rank 0 carries
// "on rank 2: ..." into the outer one, where rank 0 is the first failing rank.
TEST(AgreedMessage, ARankGetsItsOwnMessageBackWithoutItsOwnPrefix) {
    EXPECT_EQ(agreed_message(2, 0, "on rank 2: disk full", "disk full"), "disk full");
    EXPECT_EQ(agreed_message(1, 0, "on rank 2: disk full", "on rank 2: disk full"), "on rank 2: disk full");
}

// The prefix names this rank's number, but the message is another rank's
// (ranks numbered in another communicator): it is kept.
TEST(AgreedMessage, APrefixWithThisRanksNumberOnAnotherMessageIsKept) {
    EXPECT_EQ(agreed_message(2, 0, "on rank 2: disk full", "permission denied"), "on rank 2: disk full");
    EXPECT_EQ(agreed_message(2, 0, "on rank 2: disk full", ""), "on rank 2: disk full");
}

}  // namespace
}  // namespace mlckpt::core
