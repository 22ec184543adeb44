// SCR's configuration parameters (scr.h): KEY=VALUE settings looked up where
// SCR looks for them, the first found winning: the environment, the user
// configuration file (SCR_CONF_FILE, else <prefix>/.scrconf), the values the
// application set with SCR_Config, then the defaults.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "config/levels.hpp"

namespace mlckpt::core {

// The values an application set with SCR_Config before SCR_Init. As in
// SCR, a parameter holds one or more values, each with its own KEY=VALUE
// pairs: a descriptor line ("STORE=/dev/shm GROUP=NODE COUNT=1",
// "CKPT=0 TYPE=XOR SET_SIZE=16") adds a value to its first key with the
// pairs that follow; "KEY=VALUE" replaces every value of KEY.
class ScrParameterTable {
  public:
    using Pairs = std::map<std::string, std::string>;
    using Values = std::map<std::string, Pairs>;  // value -> its pairs

    // "KEY=VALUE" sets, "KEY=" unsets, a descriptor line adds: these return
    // nothing. "KEY" returns the value set here, if any; "KEY=VALUE SUBKEY"
    // the pair SUBKEY of that value. Throws a usage Error for text that is
    // none of these.
    std::optional<std::string> apply(std::string_view config);
    // KEY's value when it has exactly one; nothing when unset. Throws a
    // usage Error when KEY has several values (several descriptors): which
    // one to return is not defined.
    std::optional<std::string> get(const std::string& key) const;
    std::optional<std::string> get_pair(const std::string& key, const std::string& value,
                                        const std::string& subkey) const;
    const std::map<std::string, Values>& values() const { return values_; }
    // Whether `key` was given as a descriptor (a value with pairs).
    bool is_descriptor(const std::string& key) const;

  private:
    std::map<std::string, Values> values_;
};

// SCR_Config's text, parsed as SCR parses it: "KEY", "KEY=", "KEY=VALUE",
// "KEY=VALUE SUBKEY" or "KEY=VALUE K1=V1 K2=V2 ...", spaces allowed around
// each '='; a value runs to the next space.
struct ScrConfigText {
    std::string key;
    std::optional<std::string> value;  // after the first '=' (empty: "KEY=")
    bool has_equals = false;
    std::string subkey;                                      // "KEY=VALUE SUBKEY": a query of one pair
    std::vector<std::pair<std::string, std::string>> pairs;  // a descriptor's pairs
    bool is_query() const { return !has_equals || !subkey.empty(); }
};
ScrConfigText parse_scr_config_text(std::string_view text);

// Where a parameter's value is looked up; injected so that tests need not
// touch the process environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup process_environment();

struct ScrSettings {
    std::string prefix;                           // SCR_PREFIX (default: the working directory)
    std::string cache_base = "/dev/shm";          // SCR_CACHE_BASE
    std::string copy_type = "XOR";                // SCR_COPY_TYPE: SINGLE, PARTNER, XOR or RS
    int copy_level = kL3;                         // SINGLE L1, PARTNER L2, XOR and RS L3 (Reed-Solomon)
    int set_size = 8;                             // SCR_SET_SIZE: nodes per redundancy set
    int set_failures = 2;                         // SCR_SET_FAILURES: lost nodes an RS set survives
    int cache_size = 1;                           // SCR_CACHE_SIZE: checkpoints kept in cache
    bool cache_bypass = true;                     // SCR_CACHE_BYPASS: files written straight to the prefix (SCR 3)
    int flush = 10;                               // SCR_FLUSH: every n-th checkpoint goes to the prefix; 0: never
    int prefix_size = 0;                          // SCR_PREFIX_SIZE: checkpoints kept in the prefix; 0: all
    int checkpoint_interval = 0;                  // SCR_CHECKPOINT_INTERVAL: calls of SCR_Need_checkpoint
    double checkpoint_seconds = 0;                // SCR_CHECKPOINT_SECONDS
    int halt_seconds = 0;                         // SCR_HALT_SECONDS, against SCR_END_TIME
    long end_time = 0;                            // SCR_END_TIME: the allocation's end (seconds since the epoch)
    std::string current;                          // SCR_CURRENT: the checkpoint to restart from
    bool enable = true;                           // SCR_ENABLE
    int debug = 0;                                // SCR_DEBUG
    bool crc_on_flush = true;                     // SCR_CRC_ON_FLUSH
    int node_size = 0;                            // MLCKPT_NODE_SIZE: simulated nodes of that many ranks; 0: real nodes
    int wait_timeout = kDefaultWaitBoundSeconds;  // MLCKPT_WAIT_TIMEOUT
    std::string user_file;                        // the user configuration file read, if any
    std::vector<std::string> warnings;            // parameters accepted without effect
};

// Resolves every parameter for a run whose working directory is `cwd`.
// Throws a config Error naming the parameter, its value, where it came from
// and what is allowed.
ScrSettings resolve_scr_settings(const ScrParameterTable& app, const EnvLookup& env, const std::string& cwd);

// SCR_Config("KEY") after SCR_Init: the value in effect, from whichever
// source gave it; nothing when unset everywhere.
std::optional<std::string> lookup_scr_parameter(const std::string& key, const ScrParameterTable& app,
                                                const EnvLookup& env, const std::string& cwd);

}  // namespace mlckpt::core
