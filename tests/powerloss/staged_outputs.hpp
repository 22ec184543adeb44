// The outputs that powerloss_app stages with FTI_SendFile (MLCKPT_POWERLOSS_STAGE=1,
// crash_points.py --stage): before each checkpoint, each rank writes an
// output file in its node's stage directory, as an application writes its
// results, sends it to ROOT/output, waits until the move succeeded and
// records its number in STATE_DIR/staged.<rank>. After a power cut a staged
// output must be there whole; one whose move was cut must be whole or not
// there (docs/api.md, Staging: the file is complete and durable, or as it was).
#pragma once

#include <fti.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "app_records.hpp"

namespace powerloss {

inline std::string output_name(int rank, int number) {
    return "rank" + std::to_string(rank) + "." + std::to_string(number);
}

// A size of its own per rank and output, bytes that differ between them.
inline std::string output_bytes(int rank, int number) {
    std::string bytes(20000 + 333 * static_cast<std::size_t>(rank) + 7 * static_cast<std::size_t>(number), '\0');
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<char>(
            (i * 31 + static_cast<std::size_t>(rank) * 101 + static_cast<std::size_t>(number) * 13) & 0xff);
    return bytes;
}

// Writes, sends and waits for output `number`, then records it; false with
// the reason in `why` when a step fails.
inline bool stage_output(const std::string& root, const std::string& state_dir, int rank, int number,
                         std::string& why) {
    char stage_dir[4096];
    if (FTI_GetStageDir(stage_dir, sizeof stage_dir) != FTI_SCES) {
        why = "FTI_GetStageDir failed";
        return false;
    }
    const std::string local = std::string(stage_dir) + "/" + output_name(rank, number);
    {
        std::ofstream out(local, std::ios::binary);  // no fsync: the application's own file
        out << output_bytes(rank, number);
        if (!out.flush()) {
            why = "cannot write " + local;
            return false;
        }
    }
    const std::string remote = root + "/output/" + output_name(rank, number);
    const int id = FTI_SendFile(local.c_str(), remote.c_str());
    if (id < 0) {
        why = "FTI_SendFile(" + local + ", " + remote + ") returned " + std::to_string(id);
        return false;
    }
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    for (;;) {
        const int status = FTI_GetStageStatus(id);
        if (status == FTI_SI_SCES) break;
        if (status != FTI_SI_PEND && status != FTI_SI_ACTV) {
            why = "staging " + local + " ended with status " + std::to_string(status);
            return false;
        }
        if (std::chrono::steady_clock::now() > give_up) {
            why = "staging " + local + " did not end within 2 minutes";
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!record(state_dir, "staged", rank, number)) {
        why = "cannot write to the state folder";
        return false;
    }
    return true;
}

// After the relaunch: every output whose staging succeeded is there whole;
// any other one is whole or not there. Returns the first problem, or "".
inline std::string check_staged_outputs(const std::string& root, const std::string& state_dir, int rank, int outputs) {
    int staged = 0;
    std::ifstream records(state_dir + "/staged." + std::to_string(rank));
    for (int n = 0; records >> n;) staged = std::max(staged, n);
    for (int n = 1; n <= outputs; ++n) {
        const std::string path = root + "/output/" + output_name(rank, n);
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            if (n <= staged) return "output " + path + " was staged (FTI_SI_SCES) and is gone";
            continue;
        }
        const std::string held((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (held != output_bytes(rank, n))
            return "output " + path + " holds " + std::to_string(held.size()) +
                   " bytes that are not what was staged (" + std::to_string(output_bytes(rank, n).size()) + ")";
    }
    return "";
}

}  // namespace powerloss
