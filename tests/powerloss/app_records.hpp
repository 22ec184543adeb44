// What the power-loss applications (powerloss_app, scr_powerloss_app) share
// with crash_points.py: the records of their state folder, which is not on
// the file system that loses power, and the file system's control file.
// Each aborts the whole job (MPI_Abort) when it cannot do its part: the
// harness would otherwise read a run that lost its records as one that
// committed nothing.
#pragma once

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace powerloss {

[[noreturn]] inline void abort_job(const char* program, int rank, const std::string& what) {
    std::fprintf(stderr, "%s: rank %d: %s\n", program, rank, what.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::_Exit(1);
}

// Appends "number\n" to STATE_DIR/<what>.<rank> and makes it durable.
inline bool record(const std::string& state_dir, const char* what, int rank, int number) {
    const std::string path = state_dir + "/" + what + "." + std::to_string(rank);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const std::string line = std::to_string(number) + "\n";
    const bool ok =
        fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    return ok;
}

// Writes commands to the power-loss file system's control file.
inline bool control(const std::string& path, const std::string& commands) {
    const int fd = ::open(path.c_str(), O_WRONLY);
    const bool ok = fd >= 0 && ::write(fd, commands.data(), commands.size()) == static_cast<ssize_t>(commands.size());
    if (fd >= 0) ::close(fd);
    return ok;
}

// Before the checkpoint the cut is for: the operation counter back to 0
// and, when `arm` > 0, the cut armed after `arm` operations: the whole
// machine room's, or one node's when the harness names it in
// MLCKPT_POWERLOSS_CUT_NODE ("NODE STORAGE", crash_points.py --cut-node).
inline std::string arm_commands(long arm) {
    if (arm <= 0) return "reset\n";
    const char* node = std::getenv("MLCKPT_POWERLOSS_CUT_NODE");
    const std::string count = std::to_string(arm);
    return "reset\n" + (node != nullptr && *node != '\0' ? "arm-node " + count + " " + node : "arm " + count) + "\n";
}

}  // namespace powerloss
