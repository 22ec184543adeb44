#include "log/log.hpp"

#include <cstdio>

namespace mlckpt::core {

bool Logger::enabled(LogLevel level) const {
    if (level == LogLevel::error) return true;
    if (static_cast<int>(level) < verbosity_) return false;
    return (level != LogLevel::info && level != LogLevel::dcp) || prints_info_;
}

void Logger::print(LogLevel level, const std::string& message) const {
    if (!enabled(level)) return;
    switch (level) {
        case LogLevel::info:
            std::fprintf(stdout, "[ %s  Information ] : %s\n", tag_, message.c_str());
            std::fflush(stdout);
            break;
        case LogLevel::dcp:
            std::fprintf(stdout, "[ %s  dCP Message ] : %s\n", tag_, message.c_str());
            std::fflush(stdout);
            break;
        case LogLevel::debug:
            // FTI's own format, which FTI's programs parse (sscanf).
            std::fprintf(stdout, "[%s Debug - %06d] : %s\n", tag_, world_rank_, message.c_str());
            std::fflush(stdout);
            break;
        case LogLevel::warning:
            std::fprintf(stderr, "[ %s  Warning - %06d ] : %s\n", tag_, rank_, message.c_str());
            break;
        case LogLevel::error:
            std::fprintf(stderr, "[ %s  Error - %06d ] : %s\n", tag_, rank_, message.c_str());
            break;
    }
}

}  // namespace mlckpt::core
