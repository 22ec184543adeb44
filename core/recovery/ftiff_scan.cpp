#include "recovery/ftiff_scan.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "format/ftiff/ftiff_file.hpp"
#include "format/posix/posix_format.hpp"
#include "mpi/collective.hpp"
#include "store/checkpoint_store.hpp"

namespace mlckpt::core {

namespace {

// The checkpoints any rank sees, newest first: in FTI's layout by id (the
// application's order), then those in directories of their own by commit
// order; the lower level first for a tie.
std::vector<VisibleCheckpoint> all_candidates(const Context& ctx) {
    std::ostringstream merged;
    for (const auto& [v, count] : gather_visible_checkpoints(ctx, visible_checkpoints(ctx, {1, 4}))) {
        merged << v.level << ' ' << v.own_dir << ' ' << v.seq << ' ' << v.ckpt_id << '\n';
    }
    std::istringstream in(bcast_string(ctx.app, merged.str(), 0));
    std::vector<VisibleCheckpoint> out;
    for (VisibleCheckpoint v; in >> v.level >> v.own_dir >> v.seq >> v.ckpt_id;) out.push_back(v);
    std::sort(out.begin(), out.end(), [](const VisibleCheckpoint& a, const VisibleCheckpoint& b) {
        if (a.own_dir != b.own_dir) return !a.own_dir;
        const auto newer_a = a.own_dir ? a.seq : static_cast<std::uint64_t>(a.ckpt_id);
        const auto newer_b = b.own_dir ? b.seq : static_cast<std::uint64_t>(b.ckpt_id);
        return newer_a != newer_b ? newer_a > newer_b : read_first(a.level, b.level);
    });
    return out;
}

// This rank's file in `dir` ("Ckpt<id>-Rank<r>.fti", r its file_rank(), of id `wanted` unless
// it is -1); its id through `ckpt_id`.
fs::path own_file(const fs::path& dir, int rank, int wanted, int& ckpt_id) {
    std::error_code ec;
    const std::string suffix = "-Rank" + std::to_string(rank) + ".fti";
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        std::string name = entry.path().filename().string();
        if (name.size() <= suffix.size() + 4 || name.compare(0, 4, "Ckpt") != 0 ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
            continue;
        }
        try {
            std::size_t used = 0;
            std::string digits = name.substr(4, name.size() - 4 - suffix.size());
            ckpt_id = std::stoi(digits, &used);
            if (used == digits.size() && (wanted < 0 || ckpt_id == wanted)) return entry.path();
        } catch (const std::exception&) {
        }
    }
    fail(ErrorKind::not_recoverable, "no file of rank " + std::to_string(rank) + " in '" + dir.string() + "'");
}

// Verifies this rank's FTI-FF file and describes it as the metadata would.
FileRecord describe_file(const Context& ctx, const fs::path& path) {
    File file = File::open_read(path);
    ftiff::Layout layout = ftiff::read_structure(file).layout;
    ftiff::verify_chunks(file, layout, ctx.io_buffer_bytes());
    FileRecord r;
    r.rank = r.holder = ctx.rank();
    r.node = ctx.topo.node_id;
    r.file = path.filename().string();
    r.complete = true;
    r.size = file.size();
    r.crc32 = crc32_of_file(path, ctx.io_buffer_bytes());
    std::set<int> listed;
    for (const ftiff::Block& b : layout.blocks()) {
        for (const ftiff::Chunk& c : b.chunks) {
            if (!listed.insert(c.id).second) continue;
            VarRecord v;
            v.id = c.id;
            v.size = static_cast<std::uint64_t>(ftiff::stored_bytes(layout, c.id));
            r.vars.push_back(v);
        }
    }
    return r;
}

}  // namespace

std::optional<RecoverySource> scan_self_describing_checkpoints(Context& ctx, std::string& report) {
    for (const VisibleCheckpoint& found : all_candidates(ctx)) {
        const int level = found.level;
        // Files in FTI's layout take the next sequence number.
        const std::uint64_t seq = found.own_dir ? found.seq : ctx.catalog.next_seq();
        RecoverySource source;
        source.io = IoMode::ftiff;
        try {
            run_collectively(ctx.app, [&] {
                const CheckpointRef where{seq, level, found.ckpt_id, found.own_dir};
                int id = 0;
                source.path = own_file(ctx.layout.ckpt_dir(where, ctx.topo.node_id), ctx.layout.file_rank(ctx.rank()),
                                       found.ckpt_id, id);
                source.ref = {seq, level, id, found.own_dir};
                source.record = describe_file(ctx, source.path);
            });
            // Every rank's file must belong to the same checkpoint.
            int ids[2] = {-source.ref.ckpt_id, source.ref.ckpt_id};
            allreduce(MPI_IN_PLACE, ids, 2, MPI_INT, MPI_MAX, ctx.app, "the checkpoint ids of the FTI-FF files");
            if (-ids[0] != ids[1]) {
                fail(ErrorKind::not_recoverable, "its files carry different checkpoint ids");
            }
            commit_metadata(ctx, ctx.app, source.ref, {source.record}, IoMode::ftiff);
            ctx.catalog.add(source.ref);
            ctx.log.info("No checkpoint metadata: restarting from the self-describing FTI-FF files of checkpoint " +
                         std::to_string(source.ref.ckpt_id) + " (L" + std::to_string(level) + ", seq " +
                         std::to_string(seq) + ").");
            return source;
        } catch (const Error& e) {
            std::string reason =
                (found.own_dir ? "ckpt" + std::to_string(seq) : "checkpoint " + std::to_string(found.ckpt_id)) +
                " at L" + std::to_string(level) + ": " + e.what();
            if (!e.remote()) ctx.log.warning("cannot recover from " + reason);
            report += (report.empty() ? "" : "; ") + reason;
        }
    }
    return std::nullopt;
}

}  // namespace mlckpt::core
