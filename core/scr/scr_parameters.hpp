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

namespace mlckpt::core {

// The values an application set with SCR_Config before SCR_Init.
class ScrParameterTable {
  public:
    // "KEY=VALUE" sets, "KEY=" unsets; returns nothing. "KEY" returns the
    // value set here, if any. Throws a usage Error for text that is neither.
    std::optional<std::string> apply(std::string_view config);
    std::optional<std::string> get(const std::string& key) const;
    const std::map<std::string, std::string>& values() const { return values_; }

  private:
    std::map<std::string, std::string> values_;
};

// Where a parameter's value is looked up; injected so that tests need not
// touch the process environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup process_environment();

struct ScrSettings {
    std::string prefix;                           // SCR_PREFIX (default: the working directory)
    std::string cache_base = "/dev/shm";          // SCR_CACHE_BASE
    std::string copy_type = "XOR";                // SCR_COPY_TYPE: SINGLE, PARTNER, XOR or RS
    int copy_level = 3;                           // SINGLE 1, PARTNER 2, XOR and RS 3 (Reed-Solomon)
    int set_size = 8;                             // SCR_SET_SIZE: nodes per redundancy set
    int cache_size = 1;                           // SCR_CACHE_SIZE: checkpoints kept in cache
    bool cache_bypass = false;                    // SCR_CACHE_BYPASS: files written straight to the prefix
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
