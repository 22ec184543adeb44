#include "staging/stage_worker.hpp"

#include <sstream>
#include <utility>

#include "common/error.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

std::string stage_tag(int app_rank, int id) {
    return std::to_string(app_rank) + "-" + std::to_string(id);
}

std::size_t stage_buffer_bytes(const Config& config) {
    return static_cast<std::size_t>(config.transfer_size_mb) << 20;
}

std::string stage_request_text(const StageJob& job) {
    const std::string from = job.transfer.from.string();
    return "STAGE " + std::to_string(job.app_rank) + ' ' + std::to_string(job.id) + ' ' + std::to_string(from.size()) +
           '\n' + from + job.transfer.to.string();
}

bool parse_stage_request(const std::string& text, int owner, StageJob& job) {
    const auto nl = text.find('\n');
    if (text.rfind("STAGE ", 0) != 0 || nl == std::string::npos) return false;
    std::istringstream head(text.substr(0, nl));
    std::string word;
    std::size_t from_length = 0;
    if (!(head >> word >> job.app_rank >> job.id >> from_length)) return false;
    const std::string paths = text.substr(nl + 1);
    if (from_length > paths.size()) return false;
    job.owner = owner;
    job.transfer.from = paths.substr(0, from_length);
    job.transfer.to = paths.substr(from_length);
    job.transfer.tag = stage_tag(job.app_rank, job.id);
    return true;
}

void StageWorker::submit(StageJob job) {
    work_.run([this, job = std::move(job)] { move(job); });
}

std::vector<StageEvent> StageWorker::take_events() {
    std::lock_guard lock(mutex_);
    return std::exchange(events_, {});
}

void StageWorker::report(const StageJob& job, StageStatus status) {
    std::lock_guard lock(mutex_);
    events_.push_back({job.owner, job.id, status});
}

void StageWorker::move(const StageJob& job) {
    report(job, StageStatus::active);
    const FileTransfer& t = job.transfer;
    const std::string what = "staging request " + std::to_string(job.id) + " of rank " + std::to_string(job.app_rank) +
                             " ('" + t.from.string() + "' to '" + t.to.string() + "')";
    try {
        copy_durably(t);
    } catch (const std::exception& e) {
        log_.warning(what + " failed: " + e.what());
        report(job, StageStatus::failed);
        return;
    }
    if (!remove_file(t.from)) {
        log_.warning(what + ": the file arrived, but its source could not be removed");
    }
    log_.debug(what + " done");
    report(job, StageStatus::succeeded);
}

}  // namespace mlckpt::core
