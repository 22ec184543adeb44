#include "common/fault_injection.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mlckpt::core {

bool fault_requested(const char* point, int app_rank, std::uint64_t seq) {
    const char* spec = std::getenv("MLCKPT_FAULT_INJECT");
    if (spec == nullptr) return false;
    const std::string list = std::string(",") + spec + ",";
    return list.find("," + std::string(point) + ":" + std::to_string(app_rank) + ":" + std::to_string(seq) + ",") !=
           std::string::npos;
}

void fault_point(const char* point, int app_rank, std::uint64_t seq) {
    if (!fault_requested(point, app_rank, seq)) return;
    std::fprintf(stderr, "[ FTI  Warning - %06d ] : fault injection: killed at %s of checkpoint %llu\n", app_rank,
                 point, static_cast<unsigned long long>(seq));
    std::fflush(stderr);
    std::raise(SIGKILL);
}

}  // namespace mlckpt::core
