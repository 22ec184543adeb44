#include "verify_files.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "format/checkpoint_reader.hpp"
#include "format/dcp/dcp_layers.hpp"
#include "format/dcp/redo_journal.hpp"
#include "format/posix/posix_format.hpp"
#include "read_limits.hpp"

namespace mlckpt::tools::verifying {

using namespace mlckpt::core;

std::optional<Outcome> not_a_file(const fs::path& path, std::uint64_t& size) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int e = errno;
        if (e == ENOENT || e == ENOTDIR) return damaged(Damage::missing);
        return damaged(Damage::unreadable, "cannot examine '" + path.string() + "': " + std::strerror(e));
    }
    if (!S_ISREG(st.st_mode)) return damaged(Damage::not_a_file);
    size = static_cast<std::uint64_t>(st.st_size);
    return std::nullopt;
}

namespace {

// A layered L4 differential file (ckpt_io = 1): every layer it records.
// Bytes past the last one are an append never committed, which the next
// dCP checkpoint cuts off. When the newest layer is damaged, a restart
// falls back to the newest layer intact on every rank, if there is one.
Outcome check_layers(const fs::path& path, std::uint64_t size, const FileRecord& rec) {
    std::string why;
    const std::optional<std::size_t> newest = newest_intact_dcp_layer(path, rec.layers, kBufferBytes, why);
    if (newest && *newest + 1 == rec.layers.size()) {
        Outcome o;
        const DcpLayer& first = rec.layers.front();
        const DcpLayer& last = rec.layers.back();
        o.note = std::to_string(rec.layers.size()) + (rec.layers.size() == 1 ? " layer" : " layers") +
                 " (checkpoints " + std::to_string(first.ckpt_id) + " to " + std::to_string(last.ckpt_id) +
                 "), each intact";
        if (size > last.offset + last.size) {
            o.note += "; past them, " + std::to_string(size - last.offset - last.size) +
                      " bytes of an append never committed, which the next dCP checkpoint cuts off";
        }
        return o;
    }
    Outcome o = damaged(size < rec.size ? Damage::size : Damage::checksum, why);
    if (newest) {
        const DcpLayer& back = rec.layers[*newest];
        o.detail += "; its layer of checkpoint " + std::to_string(back.ckpt_id) + " (seq " + std::to_string(back.seq) +
                    ") and those before are intact: a restart falls back to the "
                    "newest layer intact on every rank";
    }
    return o;
}

}  // namespace

Outcome check_part(const fs::path& path, std::uint64_t size, const FileRecord& rec, IoMode io) {
    if (!rec.complete) return damaged(Damage::incomplete, "its record in the metadata is not complete");
    if (!rec.layers.empty()) return check_layers(path, size, rec);
    const IoMode format = rec.type == "PARITY" ? IoMode::posix : io;  // parity is raw bytes
    // The sizes the metadata gives are checked against the file's before
    // anything is read.
    if (format == IoMode::mpiio) {
        if (rec.offset > size || rec.size > size - rec.offset) {
            return damaged(Damage::size, "checkpoint file '" + path.string() + "' has " + std::to_string(size) +
                                             " bytes; the slice of rank " + std::to_string(rec.rank) + " (" +
                                             std::to_string(rec.size) + " bytes at offset " +
                                             std::to_string(rec.offset) + ") goes past its end (truncated)");
        }
    } else if (format != IoMode::container) {
        try {
            check_recorded_size(path, size, rec);
        } catch (const Error& e) {
            return damaged(Damage::size, e.what());
        }
    }
    // What a restart checks before it reads (a container's metadata
    // blocks, an FTI-FF file's block records, an HDF5 file's every
    // byte), then every byte.
    try {
        open_checkpoint_reader(path, format, rec);
    } catch (const Error& e) {
        return from_error(Damage::structure, e);
    }
    try {
        verify_checkpoint_file(path, rec, io, kBufferBytes);
    } catch (const Error& e) {
        // Its structure held: what fails now is its content.
        return damaged(e.kind() == ErrorKind::io ? Damage::unreadable : Damage::checksum, e.what());
    }
    return {};
}

std::optional<Outcome> pending_update(const fs::path& path, std::uint64_t size, std::uint64_t seq, std::string& note) {
    const fs::path journal = fs::path(path) += ".journal";
    std::uint64_t journal_size = 0;
    if (not_a_file(journal, journal_size)) return std::nullopt;
    std::optional<std::uint64_t> journal_seq;
    try {
        journal_seq = redo_journal_seq(journal);
    } catch (const Error&) {
    }
    if (journal_seq != seq) {
        note = "beside it, the journal of an update never committed, which a restart removes";
        return std::nullopt;
    }
    try {
        check_redo_journal(journal, size);
    } catch (const Error& e) {
        return from_error(Damage::journal, e);
    }
    Outcome pending;
    pending.note =
        "its committed update waits in its journal '" + journal.string() + "', which verifies; a restart applies it";
    return pending;
}

}  // namespace mlckpt::tools::verifying
