#include "staging/staging.hpp"

#include <system_error>

#include "common/error.hpp"
#include "io/file.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core {

Staging::Staging(const Context& ctx, MPI_Comm world, MPI_Comm statuses)
    : ctx_(ctx),
      dir_(ctx.layout.stage_dir(ctx.topo.node_id)),
      transport_(ctx.config.head ? head_transport(ctx, world, statuses) : thread_transport(ctx)) {}

int Staging::send_file(const std::string& from, const std::string& to) {
    if (from.empty() || to.empty()) fail(ErrorKind::usage, "an empty path cannot be staged");
    // The mover (a thread, or the head with its own working directory)
    // takes the paths as this rank meant them.
    const fs::path source = fs::absolute(from).lexically_normal();
    const fs::path destination = fs::absolute(to).lexically_normal();
    if (destination.filename().empty()) {
        fail(ErrorKind::usage, "the destination '" + to + "' names no file (it ends in a directory)");
    }
    std::error_code ec;
    if (source == destination || fs::equivalent(source, destination, ec)) {
        fail(ErrorKind::usage, "'" + from + "' and '" + to + "' are the same file");
    }
    transport_->poll(requests_);
    const int id = requests_.open();
    if (id < 0) {
        fail(ErrorKind::usage, "too many staging requests: all " + std::to_string(StageRequests::kMaxRequests) +
                                   " ids are in use (FTI_GetStageStatus frees the id of a finished request)");
    }
    StageJob job{ctx_.topo.world_rank,
                 ctx_.rank(),
                 id,
                 {source, destination, stage_tag(ctx_.rank(), id), stage_buffer_bytes(ctx_.config)}};
    transport_->submit(std::move(job));
    return id;
}

StageStatus Staging::status(int id) {
    transport_->poll(requests_);
    return requests_.collect(id);
}

void Staging::finish() {
    transport_->finish(requests_);
    barrier(ctx_.app, "every rank's staged files moved");
    if (ctx_.topo.node_index == 0) remove_tree(dir_);
}

}  // namespace mlckpt::core
