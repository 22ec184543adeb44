// `mlckpt verify`'s findings: what each file and checkpoint came to, and
// their report as text or JSON.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/levels.hpp"
#include "format/checkpoint_meta.hpp"

namespace mlckpt::tools::verifying {

namespace fs = std::filesystem;
using core::CheckpointMeta;
using core::Damage;
using core::Error;
using core::ErrorKind;

// "rank 3", "ranks 0-7", "ranks 1, 4, 6".
std::string ranks_text(const std::vector<int>& ranks);

enum class State { ok, damaged, not_visible };

struct Outcome {
    State state = State::ok;
    Damage damage = Damage::unspecified;  // what is wrong (common/error.hpp)
    std::string detail;                   // the check's own message
    std::string note;                     // about a file that verifies, or one not visible
};

inline Outcome damaged(Damage what, std::string detail = {}) {
    return {State::damaged, what, std::move(detail), {}};
}

// A check's Error: the damage it names; else `otherwise`, unless the file
// could not be read at all.
inline Outcome from_error(Damage otherwise, const Error& e) {
    if (e.kind() == ErrorKind::io) return damaged(Damage::unreadable, e.what());
    return damaged(e.damage() != Damage::unspecified ? e.damage() : otherwise, e.what());
}

inline std::string level_name(int level, bool archived) {
    return core::level_name(level) + (archived ? ", archived" : "");
}

struct FileReport {
    std::string role;        // metadata, metadata copy, data, partner copy, parity
    std::vector<int> ranks;  // data: whose (several in a shared file); partner copy: whose data; parity: holder
    int holder = -1;         // partner copy: the rank that keeps it
    int node = -1;           // node-local files: the node
    fs::path path;           // empty when the metadata names no usable file
    Outcome outcome;

    std::string what() const {
        if (role == "data") return "data of " + ranks_text(ranks);
        if (role == "partner copy") {
            return "partner copy of " + ranks_text(ranks) + "'s data, kept by rank " + std::to_string(holder);
        }
        if (role == "parity") return "parity kept by " + ranks_text(ranks);
        return role;
    }
};

enum class Use { yes, no, unknown, not_applicable };

struct CheckpointReport {
    std::uint64_t seq = 0;
    int level = 1;
    bool archived = false;
    int ckpt_id = 0;       // 0 when no metadata says
    bool own_dir = false;  // its files are in l<L>/ckpt<seq>/, from the metadata
    std::string format;    // of its data files, from the metadata
    int ranks = 0;
    std::optional<std::uint64_t> superseded_by;  // L4 differential: a newer one updated its files
    std::vector<FileReport> files;
    Use use = Use::not_applicable;  // whether a restart can use it
    std::string verdict;

    std::string name() const {
        return "checkpoint " + (ckpt_id > 0 ? std::to_string(ckpt_id) : std::string("?")) + " (" +
               level_name(level, archived) + ", seq " + std::to_string(seq) + ")";
    }
    bool any(State s) const {
        return std::any_of(files.begin(), files.end(), [&](const FileReport& f) { return f.outcome.state == s; });
    }
};

struct MetaRead {
    Outcome outcome;
    std::optional<CheckpointMeta> meta;
    std::string text;
};

struct Totals {
    std::size_t checkpoints = 0, files = 0, ok = 0, damaged = 0, not_visible = 0;
};
Totals count(const std::vector<CheckpointReport>& reports);

// `note`: said after the checkpoints (an execution id chosen by the tool ...).
void print_text(std::ostream& out, const std::string& config, const std::string& exec_id,
                const std::vector<CheckpointReport>& reports, const Totals& t, const std::string& note);
void print_json(std::ostream& out, const std::string& config, const std::string& exec_id,
                const std::vector<CheckpointReport>& reports, const Totals& t, const std::string& note);

}  // namespace mlckpt::tools::verifying
