#include "recovery/selector.hpp"

#include <algorithm>

#include "format/posix_format.hpp"
#include "io/file.hpp"
#include "mpi/collective.hpp"
#include "runtime/checkpoint_store.hpp"

namespace mlckpt::core {

namespace {

std::string describe(const CheckpointRef& r) {
    return "checkpoint " + std::to_string(r.ckpt_id) + " (L" + std::to_string(r.level) + ", seq " +
           std::to_string(r.seq) + ")";
}

// This rank's part of a candidate: check the metadata fits the run, then
// verify the file. Throws with the reason when it does not.
RecoverySource check_candidate(Context& ctx, const CheckpointRef& ref, const std::string& meta_text) {
    fs::path meta_path = ctx.layout.meta_file(ref.level, ref.seq);
    CheckpointMeta meta = parse_meta(meta_text, meta_path.string());
    if (meta.ranks != ctx.topo.app_size) {
        fail(ErrorKind::not_recoverable,
             "it was written by " + std::to_string(meta.ranks) + " application ranks, this run has " +
                 std::to_string(ctx.topo.app_size) + "; restart with the same number of ranks");
    }
    if (meta.io != IoMode::posix) {
        fail(ErrorKind::not_recoverable, std::string("it was written with ckpt_io = ") +
                                             std::to_string(static_cast<int>(meta.io)) + " (" +
                                             io_mode_name(meta.io) + "), this run uses ckpt_io = 1");
    }
    if (meta.files.size() != static_cast<std::size_t>(meta.ranks)) {
        fail(ErrorKind::corrupt, "metadata '" + meta_path.string() + "' lists " +
                                     std::to_string(meta.files.size()) + " files for " +
                                     std::to_string(meta.ranks) + " ranks");
    }
    const FileRecord& rec = meta.files.at(static_cast<std::size_t>(ctx.rank()));
    if (rec.rank != ctx.rank() || !rec.complete) {
        fail(ErrorKind::corrupt, "metadata '" + meta_path.string() + "' has no complete record for rank " +
                                     std::to_string(ctx.rank()));
    }
    RecoverySource source{ref, rec, ctx.layout.ckpt_dir(ref.level, ref.seq, rec.node) / rec.file};
    verify_posix_file(source.path, rec, ctx.io_buffer_bytes());
    return source;
}

}  // namespace

Selection select_checkpoint(Context& ctx) {
    std::vector<CheckpointRef> candidates = ctx.catalog.refs();
    std::sort(candidates.begin(), candidates.end(), [](const CheckpointRef& a, const CheckpointRef& b) {
        return a.seq != b.seq ? a.seq > b.seq : a.level < b.level;
    });

    Selection result;
    for (const CheckpointRef& ref : candidates) {
        std::string text;
        if (ctx.rank() == 0) {
            try {
                text = read_text_file(ctx.layout.meta_file(ref.level, ref.seq));
            } catch (const Error&) {
                text.clear();  // reported below by every rank's parse
            }
        }
        text = bcast_string(ctx.app, text, 0);
        RecoverySource source;
        try {
            run_collectively(ctx.app, [&] { source = check_candidate(ctx, ref, text); });
            ctx.log.info("Restarting from " + describe(ref) + ".");
            result.source = std::move(source);
            return result;
        } catch (const Error& e) {
            std::string reason = describe(ref) + ": " + e.what();
            if (!e.remote()) ctx.log.warning("cannot recover from " + reason);
            result.report += (result.report.empty() ? "" : "; ") + reason;
        }
    }
    if (candidates.empty()) {
        result.report = "no committed checkpoint of execution '" + ctx.layout.exec_id() + "' in '" +
                        ctx.layout.meta_exec_dir().string() + "'";
    } else {
        result.report = "no recoverable checkpoint of execution '" + ctx.layout.exec_id() +
                        "': " + result.report;
    }
    return result;
}

}  // namespace mlckpt::core
