#include "cli.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <utility>

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

// Every subcommand answers --help (or -h) with its usage on standard output
// and exit 0, as `mlckpt --help` does; after "--" the name is a file's.
TEST(CommandLine, EverySubcommandAnswersHelp) {
    const std::pair<const char*, const char*> commands[] = {{"inspect", "usage: mlckpt inspect"},
                                                            {"extract", "usage: mlckpt extract"},
                                                            {"verify", "usage: mlckpt verify"},
                                                            {"index", "mlckpt index"}};
    for (const auto& [command, usage] : commands) {
        for (const char* help : {"--help", "-h"}) {
            std::ostringstream out, err;
            EXPECT_EQ(run_command_line({command, help}, out, err), 0) << command << " " << help;
            EXPECT_NE(out.str().find(usage), std::string::npos) << command << " " << help << ": " << out.str();
            EXPECT_EQ(err.str(), "") << command << " " << help;
        }
    }
    std::ostringstream out, err;
    EXPECT_EQ(run_command_line({"inspect", "--", "--help"}, out, err), 1) << "a file named --help";
    EXPECT_NE(err.str().find("cannot open '--help'"), std::string::npos) << err.str();
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
