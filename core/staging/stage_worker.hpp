// The thread that moves staged files (FTI_SendFile), one at a time in the
// order they were asked for: on each application rank without heads, on
// the node's head with heads. It has a thread of its own, so that a long
// transfer never holds up the removal of retired checkpoints or a head's
// post-processing. It calls no MPI: whoever owns it collects the statuses
// (take_events) and delivers them.
//
// A file is moved completely or not at all (copy_durably), then its source
// is removed (FTI "moves" the file). A failure is logged once, here, with
// the system's reason, and reported as failed.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "io/background_work.hpp"
#include "io/file_transfer.hpp"
#include "log/log.hpp"
#include "staging/stage_requests.hpp"

namespace mlckpt::core {

struct StageJob {
    int owner = 0;     // world rank of the requesting application rank
    int app_rank = 0;  // its rank in FTI_COMM_WORLD, for messages
    int id = 0;        // its request id
    FileTransfer transfer;
};

struct StageEvent {
    int owner = 0;
    int id = 0;
    StageStatus status = StageStatus::none;
};

// What names a request's temporary file: "<app rank>-<id>".
std::string stage_tag(int app_rank, int id);
// The bytes moved per read and write: [advanced] transfer_size, as in FTI.
std::size_t stage_buffer_bytes(const Config& config);

// The request as a head receives it (general_tag, world communicator):
// "STAGE <app rank> <id> <length of from>\n<from><to>" (paths may hold any
// byte but NUL).
std::string stage_request_text(const StageJob& job);
// Parses a request from world rank `owner` (the buffer size is left to the
// receiver); false for any other text.
bool parse_stage_request(const std::string& text, int owner, StageJob& job);

class StageWorker {
  public:
    explicit StageWorker(Logger log) : log_(log) {}
    StageWorker(const StageWorker&) = delete;
    StageWorker& operator=(const StageWorker&) = delete;
    ~StageWorker() = default;  // finishes what was submitted

    void submit(StageJob job);
    // The statuses reported since the last call, in order.
    std::vector<StageEvent> take_events();
    // Returns once every job submitted so far is done.
    void wait() { work_.wait(); }

  private:
    void move(const StageJob& job);
    void report(const StageJob& job, StageStatus status);

    Logger log_;
    std::mutex mutex_;
    std::vector<StageEvent> events_;
    BackgroundWork work_;  // last: its thread ends before what it reports to goes
};

}  // namespace mlckpt::core
