// FTI-style log lines: "[ FTI  Information ] : ...". Information is printed
// by rank 0 only; debug, warnings and errors by the rank they concern.
#pragma once

#include <string>

namespace mlckpt::core {

// dcp: FTI's statistics of differential checkpoints, printed by rank 0 at
// every verbosity, as FTI does.
enum class LogLevel { debug = 1, info = 2, warning = 3, error = 4, dcp = 5 };

class Logger {
  public:
    Logger() = default;
    // `rank` labels debug, warning and error lines; information lines are
    // printed only by the logger created with prints_info.
    // Debug lines carry `world_rank` (the rank in the communicator given to
    // FTI_Init), as FTI's do.
    Logger(int verbosity, int rank, bool prints_info, int world_rank)
        : verbosity_(verbosity), rank_(rank), world_rank_(world_rank), prints_info_(prints_info) {}
    // Lines name the API the application called: "FTI" (FTI-style lines,
    // as FTI prints them), "SCR" for scr.h sessions.
    void set_tag(const char* tag) { tag_ = tag; }

    void debug(const std::string& message) const { print(LogLevel::debug, message); }
    void info(const std::string& message) const { print(LogLevel::info, message); }
    void warning(const std::string& message) const { print(LogLevel::warning, message); }
    void error(const std::string& message) const { print(LogLevel::error, message); }
    void dcp(const std::string& message) const { print(LogLevel::dcp, message); }

    // Whether a line of this level would be printed on this rank.
    bool enabled(LogLevel level) const;

  private:
    void print(LogLevel level, const std::string& message) const;

    int verbosity_ = 2;  // 1 debug, 2 information, 3 warnings and errors only
    int rank_ = 0;
    int world_rank_ = 0;
    bool prints_info_ = true;
    const char* tag_ = "FTI";
};

}  // namespace mlckpt::core
