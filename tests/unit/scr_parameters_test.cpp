// SCR's parameters: where each value comes from (the environment before the
// user configuration file before SCR_Config), and one clear message for a
// bad value naming the parameter, the value, its source and what is allowed.
#include "scr/scr_parameters.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "expect_error.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

EnvLookup env_of(std::map<std::string, std::string> values) {
    return [values](const std::string& key) -> std::optional<std::string> {
        auto it = values.find(key);
        if (it == values.end()) return std::nullopt;
        return it->second;
    };
}

TEST(ScrParameters, DefaultsFollowScr) {
    test::TempDir dir;
    ScrSettings s = resolve_scr_settings({}, env_of({}), dir.path().string());
    EXPECT_EQ(s.prefix, dir.path().string());
    EXPECT_EQ(s.cache_base, "/dev/shm");
    EXPECT_EQ(s.copy_type, "XOR");
    EXPECT_EQ(s.copy_level, 3);
    EXPECT_EQ(s.set_size, 8);
    EXPECT_EQ(s.cache_size, 1);
    EXPECT_TRUE(s.cache_bypass);  // SCR 3 writes datasets straight to the prefix unless SCR_CACHE_BYPASS=0
    EXPECT_EQ(s.flush, 10);
    EXPECT_EQ(s.checkpoint_interval, 0);
    EXPECT_TRUE(s.warnings.empty());
}

TEST(ScrParameters, EnvironmentBeforeUserFileBeforeScrConfig) {
    test::TempDir dir;
    {
        std::ofstream conf(dir.path() / ".scrconf");
        conf << "# a comment\n\nSCR_CACHE_SIZE = 3   # trailing comment\nSCR_FLUSH=4\n"
             << "SCR_CACHE_BASE=$MY_BASE/cache\nCKPT=0 TYPE=XOR SET_SIZE=16\n";
    }
    ScrParameterTable app;
    app.apply("SCR_CACHE_SIZE=7");
    app.apply("SCR_COPY_TYPE=partner");
    app.apply("SCR_SET_SIZE=5");
    app.apply("SCR_SET_SIZE=");  // unset again
    ScrSettings s =
        resolve_scr_settings(app, env_of({{"SCR_FLUSH", "2"}, {"MY_BASE", "/scratch"}}), dir.path().string());
    EXPECT_EQ(s.flush, 2);         // environment
    EXPECT_EQ(s.cache_size, 3);    // the user file over SCR_Config
    EXPECT_EQ(s.copy_level, 2);    // SCR_Config, any case
    EXPECT_EQ(s.set_size, 8);      // unset: the default
    EXPECT_EQ(s.set_failures, 2);  // SCR's default
    EXPECT_EQ(s.cache_base, "/scratch/cache");
    ASSERT_EQ(s.warnings.size(), 1u);  // the descriptor line
    EXPECT_NE(s.warnings[0].find(".scrconf line 6"), std::string::npos) << s.warnings[0];
    EXPECT_EQ(lookup_scr_parameter("SCR_CACHE_SIZE", app, env_of({}), dir.path().string()), "3");
    EXPECT_EQ(lookup_scr_parameter("SCR_NOPE", app, env_of({}), dir.path().string()), std::nullopt);
}

TEST(ScrParameters, BadValuesAreNamed) {
    test::TempDir dir;
    for (auto [key, value, allowed] :
         {std::tuple{"SCR_COPY_TYPE", "FILE", "SINGLE, PARTNER, XOR or RS"},
          std::tuple{"SCR_CACHE_SIZE", "0", "an integer >= 1"}, std::tuple{"SCR_FLUSH", "ten", "an integer >= 0"},
          std::tuple{"SCR_CACHE_BYPASS", "2", "0 or 1"}, std::tuple{"SCR_CHECKPOINT_SECONDS", "-1", "a number >= 0"},
          std::tuple{"SCR_SET_FAILURES", "0", "an integer >= 1"}}) {
        const std::string message = test::error_message(ErrorKind::config, [&] {
            resolve_scr_settings({}, env_of({{key, value}}), dir.path().string());
        });
        EXPECT_NE(message.find(std::string(key) + " = '" + value + "' (from the environment)"), std::string::npos)
            << message;
        EXPECT_NE(message.find(allowed), std::string::npos) << message;
    }
}

TEST(ScrParameters, UnknownAndIneffectiveKeysAreNoted) {
    test::TempDir dir;
    ScrParameterTable app;
    app.apply("SCR_FLUSH_ASYNC=1");
    app.apply("SCR_NO_SUCH_THING=1");
    ScrSettings s = resolve_scr_settings(app, env_of({}), dir.path().string());
    ASSERT_EQ(s.warnings.size(), 2u);
    EXPECT_NE(s.warnings[0].find("SCR_FLUSH_ASYNC (SCR_Config) is accepted and has no effect"), std::string::npos);
    EXPECT_NE(s.warnings[1].find("SCR_NO_SUCH_THING (SCR_Config) is not an SCR parameter"), std::string::npos);
    test::error_message(ErrorKind::usage, [&] { app.apply("not a setting"); });
}

TEST(ScrParameters, MissingUserFileNamedByScrConfFileIsAnError) {
    test::TempDir dir;
    const std::string message = test::error_message(ErrorKind::config, [&] {
        resolve_scr_settings({}, env_of({{"SCR_CONF_FILE", "nowhere.conf"}}), dir.path().string());
    });
    EXPECT_NE(message.find("nowhere.conf"), std::string::npos) << message;
}

// SCR_CONF_FILE given with SCR_Config names the user configuration file, as
// when it comes from the environment; the environment's wins.
TEST(ScrParameters, ConfFileSetThroughScrConfigIsRead) {
    test::TempDir dir;
    std::ofstream(dir.path() / "user1.conf") << "SCR_COPY_TYPE=PARTNER\nSCR_FLUSH=7\n";
    std::ofstream(dir.path() / "user2.conf") << "SCR_COPY_TYPE=SINGLE\n";
    ScrParameterTable app;
    app.apply("SCR_CONF_FILE=user1.conf");
    ScrSettings s = resolve_scr_settings(app, env_of({}), dir.path().string());
    EXPECT_EQ(s.copy_type, "PARTNER");
    EXPECT_EQ(s.flush, 7);
    EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
    EXPECT_EQ(lookup_scr_parameter("SCR_COPY_TYPE", app, env_of({}), dir.path().string()), "PARTNER");
    EXPECT_EQ(
        lookup_scr_parameter("SCR_COPY_TYPE", app, env_of({{"SCR_CONF_FILE", "user2.conf"}}), dir.path().string()),
        "SINGLE");
    app.apply("SCR_CONF_FILE=");
    EXPECT_EQ(lookup_scr_parameter("SCR_COPY_TYPE", app, env_of({}), dir.path().string()), std::nullopt);
}

// Store and checkpoint descriptors given to SCR_Config are kept as SCR keeps
// them: a query of the key answers its value when it has one, nothing (and
// an error) when several descriptors gave it values, never a piece of the
// line; "KEY=VALUE SUBKEY" answers one setting of a descriptor.
TEST(ScrParameters, DescriptorsAnswerQueriesAsScr) {
    ScrParameterTable app;
    EXPECT_EQ(app.apply("DEBUG  = 1"), std::nullopt);
    EXPECT_EQ(app.apply("DEBUG"), "1");
    EXPECT_EQ(app.apply("STORE= /dev/shm/foo GROUP = NODE COUNT  =1"), std::nullopt);
    EXPECT_EQ(app.apply("STORE"), "/dev/shm/foo");
    EXPECT_EQ(app.apply("STORE= /dev/shm/foo COUNT"), "1");
    EXPECT_EQ(app.apply("STORE=/dev/shm/foo GROUP"), "NODE");
    EXPECT_EQ(app.apply("CKPT=0 INTERNAL=1 GROUP=NODE STORE=/dev/shm TYPE=XOR SET_SIZE=16"), std::nullopt);
    EXPECT_EQ(app.apply("CKPT=0 SET_SIZE"), "16");
    EXPECT_EQ(app.apply("CKPT=1 FOOBAR"), std::nullopt);
    EXPECT_EQ(app.apply("STORE=/dev/shm GROUP=NODE COUNT=1"), std::nullopt);
    EXPECT_EQ(app.apply("STORE=/dev/shm COUNT"), "1");
    const std::string message = test::error_message(ErrorKind::usage, [&] { app.apply("STORE"); });
    EXPECT_NE(message.find("several values are set for 'STORE'"), std::string::npos) << message;
    EXPECT_EQ(app.apply("STORE="), std::nullopt);
    EXPECT_EQ(app.apply("STORE"), std::nullopt);
    EXPECT_EQ(app.apply("SCR_CACHE_BASE==/dev/shm/name_contains_preceding_="), std::nullopt);
    EXPECT_EQ(app.apply("SCR_CACHE_BASE"), "=/dev/shm/name_contains_preceding_=");
    EXPECT_EQ(app.apply(""), std::nullopt);
    test::error_message(ErrorKind::usage, [&] { app.apply("KEY VALUE"); });
    test::error_message(ErrorKind::usage, [&] { app.apply("CKPT=0 TYPE=XOR SET_SIZE"); });
}

}  // namespace
}  // namespace mlckpt::core
