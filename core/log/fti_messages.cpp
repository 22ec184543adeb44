#include "log/fti_messages.hpp"

#include <cstdarg>
#include <cstdio>

namespace mlckpt::core::fti_messages {

namespace {

std::string format(const char* pattern, ...) {
    char line[512];
    va_list args;
    va_start(args, pattern);
    std::vsnprintf(line, sizeof line, pattern, args);
    va_end(args);
    return line;
}

// FTI's unit for dCP statistics: MB below a GB, then GB, then TB.
std::string scaled(std::uint64_t bytes) {
    const double mb = static_cast<double>(bytes) / (1024.0 * 1024.0);
    if (mb < 1024.0) return format("%.2lf MB", mb);
    if (mb < 1024.0 * 1024.0) return format("%.2lf GB", mb / 1024.0);
    return format("%.2lf TB", mb / (1024.0 * 1024.0));
}

}  // namespace

std::string execution_id(const std::string& exec_id, bool restart) {
    return (restart ? "This is a restart. The execution ID is: " : "The execution ID is: ") + exec_id;
}

std::string recovering_from(int level, int ckpt_id) {
    return format("Recovering successfully from level %d with Ckpt. %d.", level, ckpt_id);
}

std::string protect_first(int id, const std::string& name, double mb_per_rank) {
    if (name.empty()) {
        return format("Variable ID %d to protect (Stored in CPU). Current ckpt. size per rank is %.2fMB.", id,
                      mb_per_rank);
    }
    return format("Variable Named %s with ID %d to protect (Stored in CPU). Current ckpt. size per rank is %.2fMB.",
                  name.c_str(), id, mb_per_rank);
}

std::string protect_again(int id, double mb_per_rank) {
    return format("Variable ID %d reseted. (Stored In CPU).  Current ckpt. size per rank is %.2fMB.", id, mb_per_rank);
}

std::string checkpoint_taken(int ckpt_id, int level, double mb_per_rank, double seconds) {
    return format("Ckpt. ID %d (L%d) (%.2f MB/proc) taken in %.2f sec.", ckpt_id, level, mb_per_rank, seconds);
}

std::string node_flag(int node_id, int level) {
    return format("Has nodeFlag = 1 and nodeID = %d. CkptLvel = %d.", node_id, level);
}

std::string dcp_share(std::uint64_t protected_bytes, std::uint64_t written_bytes) {
    const double share =
        protected_bytes == 0 ? 0.0 : 100.0 * static_cast<double>(written_bytes) / static_cast<double>(protected_bytes);
    return "Total CP data: " + scaled(protected_bytes) + ", Total dCP update: " + scaled(written_bytes) +
           format(", dCP share: %.2lf%%", share);
}

}  // namespace mlckpt::core::fti_messages
