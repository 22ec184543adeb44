// Restart detection as in FTI: after the first successful checkpoint the
// configuration file records `[restart] failure` and `exec_id`, so that
// relaunching the same command restarts. Only those two lines are rewritten;
// comments and every other line are kept byte for byte.
#pragma once

#include <string>

namespace mlckpt::core {

// Returns `text` with [restart] failure and exec_id set (section and keys are
// added when missing).
std::string with_restart_state(const std::string& text, int failure, const std::string& exec_id);

// Rewrites the file atomically (temporary file, fsync, rename), keeping its mode.
void write_restart_state(const std::string& config_path, int failure, const std::string& exec_id);

}  // namespace mlckpt::core
