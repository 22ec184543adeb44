#include "recovery/restart_redundancy.hpp"

#include <string>
#include <utility>

#include "format/checkpoint_reader.hpp"
#include "levels/redundancy.hpp"
#include "mpi/collective.hpp"
#include "store/rank_meta.hpp"

namespace mlckpt::core {

struct RestartRedundancyCheck::Check {
    CheckpointRef ref;
    IoMode io = IoMode::posix;
    fs::path path;
    FileRecord record;
    std::string problem;  // written by the background thread; read after it is waited for
};

void RestartRedundancyCheck::start(const std::optional<RecoverySource>& source) {
    check_.reset();
    if (!source || !source->redundancy || !has_group_redundancy(source->ref.level)) return;
    auto check = std::make_shared<Check>();
    check->ref = source->ref;
    check->io = source->io;
    check->record = *source->redundancy;
    check->path = ctx_.layout.ckpt_dir(source->ref, ctx_.topo.node_id) / check->record.file;
    const std::size_t buffer = ctx_.io_buffer_bytes();
    ctx_.background->run([check, buffer] {
        try {
            verify_checkpoint_file(check->path, check->record, check->io, buffer);
        } catch (const std::exception& e) {
            check->problem = e.what();
        }
    });
    check_ = std::move(check);
}

void RestartRedundancyCheck::settle() {
    // Every rank recovered from the same checkpoint, so every rank has a check or none.
    std::shared_ptr<Check> check = std::exchange(check_, nullptr);
    if (!check) return;
    ctx_.background->wait();
    int damaged = check->problem.empty() ? 0 : 1;
    int any = 0;
    allreduce(&damaged, &any, 1, MPI_INT, MPI_MAX, ctx_.app, "whether the restart's redundancy is damaged");
    if (any == 0 || !ctx_.catalog.contains(check->ref.seq, check->ref.level)) return;
    if (damaged) {
        ctx_.log.warning(std::string("the ") + redundancy_name(redundancy_kind(check->ref.level)) +
                         " kept here for checkpoint " + std::to_string(check->ref.ckpt_id) + " is damaged (" +
                         check->problem + "); rebuilding it");
    }
    try {
        const CheckpointMeta meta = distribute_meta(ctx_, check->ref, MetaScope::group).meta;
        const Redundancy& redundancy = *redundancy_of(meta);
        const StorageLayout layout = ctx_.layout.for_checkpoint(meta);  // the checkpoint's file names
        RedundancyIo io = ctx_.redundancy_io();
        io.layout = &layout;
        run_collectively(ctx_.app, [&] {
            redundancy.repair(io, own_member(ctx_.topo, ctx_.group), meta, check->ref, Holdings{true, damaged == 0});
        });
    } catch (const Error& e) {
        if (!e.remote()) {
            ctx_.log.warning("could not rebuild the redundancy of checkpoint " + std::to_string(check->ref.ckpt_id) +
                             ": " + e.what());
        }
    }
}

}  // namespace mlckpt::core
