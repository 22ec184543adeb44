#include "recovery/ftiff_scan.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "format/ftiff_file.hpp"
#include "format/posix_format.hpp"
#include "mpi/collective.hpp"
#include "store/checkpoint_store.hpp"

namespace mlckpt::core {

namespace {

// Every rank's directories, newest first (lower level first for a tie).
std::vector<std::pair<std::uint64_t, int>> all_directories(const Context& ctx) {
    std::ostringstream mine;
    for (const auto& [seq, level] : visible_checkpoint_directories(ctx, {1, 4})) mine << seq << ' ' << level << '\n';
    std::vector<std::string> gathered = gather_strings(ctx.app, mine.str(), 0);
    std::set<std::pair<std::uint64_t, int>> all;
    for (const std::string& text : gathered) {
        std::istringstream in(text);
        std::pair<std::uint64_t, int> d;
        while (in >> d.first >> d.second) all.insert(d);
    }
    std::ostringstream merged;
    for (const auto& [seq, level] : all) merged << seq << ' ' << level << '\n';
    std::istringstream in(bcast_string(ctx.app, merged.str(), 0));
    std::vector<std::pair<std::uint64_t, int>> out;
    std::pair<std::uint64_t, int> d;
    while (in >> d.first >> d.second) out.push_back(d);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    return out;
}

// This rank's file in `dir` ("Ckpt<id>-Rank<r>.fti"); its id through `ckpt_id`.
fs::path own_file(const fs::path& dir, int rank, int& ckpt_id) {
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
            if (used == digits.size()) return entry.path();
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
    for (const ftiff::Block& b : layout.blocks()) {
        for (const ftiff::Chunk& c : b.chunks) {
            if (r.find_var(c.id) != nullptr) continue;
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
    for (const auto& directory : all_directories(ctx)) {
        // Named copies: C++20 lambdas may not capture structured bindings in every compiler.
        const auto seq = directory.first;
        const auto level = directory.second;
        RecoverySource source;
        source.io = IoMode::ftiff;
        try {
            run_collectively(ctx.app, [&] {
                fs::path dir = ctx.layout.ckpt_dir(level, seq, ctx.topo.node_id);
                int id = 0;
                source.path = own_file(dir, ctx.rank(), id);
                source.ref = {seq, level, id};
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
            std::string reason = "ckpt" + std::to_string(seq) + " at L" + std::to_string(level) + ": " + e.what();
            if (!e.remote()) ctx.log.warning("cannot recover from " + reason);
            report += (report.empty() ? "" : "; ") + reason;
        }
    }
    return std::nullopt;
}

}  // namespace mlckpt::core
