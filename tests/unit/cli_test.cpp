#include "cli.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace mlckpt::tools {
namespace {

TEST(CommandLine, HelpGoesToStandardOutputAndSucceeds) {
    for (const char* help : {"--help", "-h", "help"}) {
        std::ostringstream out, err;
        EXPECT_EQ(run_command_line({help}, out, err), 0) << help;
        EXPECT_NE(out.str().find("usage: mlckpt inspect"), std::string::npos) << help;
        EXPECT_NE(out.str().find("mlckpt extract"), std::string::npos) << help;
        EXPECT_NE(out.str().find("mlckpt verify [--json] [--exec-id ID] [--] CONFIG"), std::string::npos) << help;
        EXPECT_NE(out.str().find("mlckpt index --prefix DIR"), std::string::npos) << help;
        EXPECT_EQ(err.str(), "") << help;
    }
}

TEST(CommandLine, VersionIsTheProjectVersion) {
    std::ostringstream out, err;
    EXPECT_EQ(run_command_line({"--version"}, out, err), 0);
    EXPECT_EQ(out.str(), "mlckpt " MLCKPT_TEST_PROJECT_VERSION "\n");
}

TEST(CommandLine, NoOrAnUnknownCommandIsAUsageError) {
    std::ostringstream out, err;
    EXPECT_EQ(run_command_line({}, out, err), 2);
    EXPECT_NE(err.str().find("usage: mlckpt"), std::string::npos);
    std::ostringstream out2, err2;
    EXPECT_EQ(run_command_line({"list"}, out2, err2), 2);
    EXPECT_NE(err2.str().find("mlckpt: unknown command 'list'"), std::string::npos);
    EXPECT_EQ(out.str() + out2.str(), "");
}

TEST(CommandLine, SubcommandsGetTheirArguments) {
    std::ostringstream out, err;
    EXPECT_EQ(run_command_line({"inspect"}, out, err), 2);
    EXPECT_NE(err.str().find("usage: mlckpt inspect"), std::string::npos);
    std::ostringstream out2, err2;
    EXPECT_EQ(run_command_line({"verify"}, out2, err2), 2);
    EXPECT_NE(err2.str().find("usage: mlckpt verify"), std::string::npos);
    std::ostringstream out3, err3;
    EXPECT_EQ(run_command_line({"index"}, out3, err3), 2);
    EXPECT_NE(err3.str().find("usage: mlckpt index"), std::string::npos);
}

}  // namespace
}  // namespace mlckpt::tools
