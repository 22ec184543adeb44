#include "heads/head_staging.hpp"

#include "mpi/collective.hpp"

namespace mlckpt::core {

bool HeadStaging::accept(int source, const std::string& text) {
    StageJob job;
    if (!parse_stage_request(text, source, job)) return false;
    job.transfer.buffer_bytes = stage_buffer_bytes(ctx_.config);
    worker_.submit(std::move(job));
    return true;
}

void HeadStaging::forward() {
    for (const StageEvent& e : worker_.take_events()) {
        if (ended_.count(e.owner) != 0) continue;
        int report[2] = {e.id, static_cast<int>(e.status)};
        send(report, 2, MPI_INT, e.owner, ctx_.config.stage_tag, statuses_, "a report on a staged file");
    }
}

void HeadStaging::finish() {
    worker_.wait();
    forward();
}

}  // namespace mlckpt::core
