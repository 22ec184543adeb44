#include "scr_index.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "common/error.hpp"
#include "json.hpp"
#include "scr/scr_session.hpp"
#include "scr_datasets.hpp"

namespace mlckpt::tools {

namespace {

using namespace mlckpt::core;
using State = CopyCheck::State;

constexpr const char* kUsage =
    "usage: mlckpt index --prefix DIR [--cache DIR] [--json]\n"
    "         list the datasets written through scr.h into the prefix DIR; '*' marks\n"
    "         the one a restart would use\n"
    "       mlckpt index --prefix DIR [--cache DIR] [--json] --verify NAME|ID\n"
    "         check every file of every copy of a dataset, and its partner copies or parity\n"
    "       mlckpt index --prefix DIR [--cache DIR] [--json] --rebuild NAME|ID\n"
    "         rebuild the lost or damaged files of its L2/L3 cached copies\n"
    "  --cache DIR  SCR_CACHE_BASE of the run (default: $SCR_CACHE_BASE, else /dev/shm)\n"
    "  exit codes: 0 listed, every file verifies, or everything was rebuilt;\n"
    "              1 (--verify) damaged, and --rebuild can rebuild every damaged file;\n"
    "              2 wrong usage, no such prefix or dataset;\n"
    "              3 damaged beyond repair (or no copy visible here), or the rebuild failed\n";

constexpr int kCheckpointFlag = kScrCheckpoint;
constexpr int kOutputFlag = kScrOutput;

struct Arguments {
    std::string prefix;
    std::string cache;
    bool json = false;
    std::optional<std::string> verify;
    std::optional<std::string> rebuild;
    bool help = false;
};

std::optional<Arguments> parse_arguments(const std::vector<std::string>& args, std::ostream& err) {
    Arguments a;
    bool have_cache = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool value = i + 1 < args.size();
        if (arg == "--help" || arg == "-h") {
            a.help = true;
        } else if (arg == "--json" && !a.json) {
            a.json = true;
        } else if (arg == "--prefix" && value && a.prefix.empty()) {
            a.prefix = args[++i];
        } else if (arg == "--cache" && value && !have_cache) {
            a.cache = args[++i];
            have_cache = true;
        } else if (arg == "--verify" && value && !a.verify && !a.rebuild) {
            a.verify = args[++i];
        } else if (arg == "--rebuild" && value && !a.verify && !a.rebuild) {
            a.rebuild = args[++i];
        } else {
            err << "mlckpt index: unexpected argument '" << shown(arg) << "'"
                << (arg == "--verify" || arg == "--rebuild" ? " (one of --verify and --rebuild, once)" : "") << "\n";
            return std::nullopt;
        }
    }
    if (a.help) return a;
    if (a.prefix.empty()) {
        err << "mlckpt index: --prefix DIR is required\n";
        return std::nullopt;
    }
    if (!have_cache) {
        const char* env = std::getenv("SCR_CACHE_BASE");
        a.cache = env != nullptr && *env != '\0' ? env : "/dev/shm";
    }
    return a;
}

std::string flags_text(int flags) {
    std::string out;
    if ((flags & kCheckpointFlag) != 0) out = "CHECKPOINT";
    if ((flags & kOutputFlag) != 0) out += out.empty() ? "OUTPUT" : ",OUTPUT";
    return out.empty() ? std::to_string(flags) : out;
}

std::string copy_name(const DatasetCopy& c) {
    return level_name(c.ref.level) + (is_global(c.ref.level) ? " (prefix)" : " (cache)");
}

std::string dataset_name(const DatasetEntry& d) {
    return "dataset '" + shown(d.meta().name) + "' (id " + std::to_string(d.seq) + ")";
}

std::uint64_t total_size(const CheckpointMeta& m) {
    std::uint64_t size = 0;
    for (const FileRecord& f : m.files) size += f.size;
    return size;
}

std::string redundancy_text(int level) {
    return redundancy_kind(level) == GroupRedundancy::partner_copy ? "partner copies" : "Reed-Solomon parity";
}

// The dataset a restart would use (ScrSession::have_restart's order:
// newest first, cache copy before prefix copy, a copy whose files fail
// skipped), and the copies it skips on the way.
struct Choice {
    const DatasetEntry* dataset = nullptr;
    const DatasetCopy* copy = nullptr;
    CopyCheck check;
    std::vector<std::pair<const DatasetCopy*, CopyCheck>> skipped;
    std::vector<const DatasetEntry*> skipped_datasets;
};

Choice restart_choice(const ScrPrefix& prefix, const std::vector<DatasetEntry>& datasets) {
    Choice c;
    for (const DatasetEntry& d : datasets) {
        for (const DatasetCopy& copy : d.copies) {
            if (!copy.meta.valid || (copy.meta.flags & kCheckpointFlag) == 0) continue;
            CopyCheck check = prefix.check(copy);
            if (check.state == State::intact || check.state == State::rebuildable) {
                c.dataset = &d;
                c.copy = &copy;
                c.check = std::move(check);
                return c;
            }
            c.skipped.emplace_back(&copy, std::move(check));
            c.skipped_datasets.push_back(&d);
        }
    }
    return c;
}

std::string restart_text(const Choice& c) {
    const bool unseen = std::any_of(c.skipped.begin(), c.skipped.end(),
                                    [](const auto& s) { return s.second.state == State::not_visible; });
    if (c.dataset == nullptr) {
        return unseen ? "no dataset whose copy is visible here is usable; the cached copies are not visible (--cache)"
                      : "no valid checkpoint dataset has a usable copy";
    }
    std::string out = dataset_name(*c.dataset) + " from its " + copy_name(*c.copy) + " copy";
    if (c.check.state == State::rebuildable) {
        out += ", once its damaged files are rebuilt from its " + redundancy_text(c.copy->ref.level) +
               " (the restart does it, or mlckpt index --rebuild " + std::to_string(c.dataset->seq) + ")";
    }
    if (unseen) out += "; a newer cached copy not visible here may come first (--cache)";
    return out;
}

void print_list_text(std::ostream& out, const Arguments& a, const std::vector<DatasetEntry>& datasets,
                     const std::vector<UnreadableMeta>& unreadable, const Choice& choice) {
    out << "datasets of prefix '" << shown(a.prefix) << "' (cache '" << shown(a.cache) << "')\n";
    std::vector<std::vector<std::string>> rows = {{"", "ID", "NAME", "FLAGS", "VALID", "COPIES", "RANKS", "SIZE"}};
    for (const DatasetEntry& d : datasets) {
        std::string copies;
        for (const DatasetCopy& c : d.copies) copies += (copies.empty() ? "L" : ",L") + std::to_string(c.ref.level);
        rows.push_back({choice.dataset == &d ? "*" : "", std::to_string(d.seq), shown(d.meta().name),
                        flags_text(d.meta().flags), d.meta().valid ? "yes" : "no", copies,
                        std::to_string(d.meta().ranks), std::to_string(total_size(d.meta()))});
    }
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (const auto& row : rows) {
        for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    if (datasets.empty()) {
        out << "no dataset\n";
    } else {
        for (const auto& row : rows) {
            std::string line;
            for (std::size_t i = 0; i < row.size(); ++i) {
                std::string cell = row[i];
                const bool right = i == 1 || i == 6 || i == 7;  // numbers
                if (right) cell.insert(0, width[i] - cell.size(), ' ');
                if (!right && i + 1 < row.size()) cell.resize(width[i], ' ');
                line += (i ? "  " : "") + cell;
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out << line << "\n";
        }
    }
    for (std::size_t i = 0; i < choice.skipped.size(); ++i) {
        const auto& [copy, check] = choice.skipped[i];
        out << "skipped: " << dataset_name(*choice.skipped_datasets[i]) << ", its " << copy_name(*copy)
            << " copy: " << state_name(check.state) << ": " << shown(check.reason) << "\n";
    }
    for (const UnreadableMeta& u : unreadable) out << "unreadable metadata: " << shown(u.problem) << "\n";
    out << "restart: " << restart_text(choice) << "\n";
}

void print_list_json(std::ostream& out, const Arguments& a, const std::vector<DatasetEntry>& datasets,
                     const std::vector<UnreadableMeta>& unreadable, const Choice& choice) {
    out << "{\"prefix\": " << json_string(a.prefix) << ", \"cache\": " << json_string(a.cache) << ", \"datasets\": [";
    for (std::size_t i = 0; i < datasets.size(); ++i) {
        const DatasetEntry& d = datasets[i];
        const CheckpointMeta& m = d.meta();
        out << (i ? ", " : "") << "{\"id\": " << d.seq << ", \"name\": " << json_string(m.name) << ", \"flags\": [";
        if ((m.flags & kCheckpointFlag) != 0) out << "\"CHECKPOINT\"";
        if ((m.flags & kOutputFlag) != 0) out << ((m.flags & kCheckpointFlag) != 0 ? ", " : "") << "\"OUTPUT\"";
        out << "], \"valid\": " << (m.valid ? "true" : "false") << ", \"copies\": [";
        for (std::size_t j = 0; j < d.copies.size(); ++j) {
            const int level = d.copies[j].ref.level;
            out << (j ? ", " : "") << "{\"level\": " << level << ", \"in\": \""
                << (is_global(level) ? "prefix" : "cache") << "\"}";
        }
        out << "], \"ranks\": " << m.ranks << ", \"size\": " << total_size(m)
            << ", \"restart\": " << (choice.dataset == &d ? "true" : "false") << "}";
    }
    out << "], \"restart\": ";
    if (choice.dataset == nullptr) {
        out << "null";
    } else {
        out << "{\"id\": " << choice.dataset->seq << ", \"name\": " << json_string(choice.dataset->meta().name)
            << ", \"level\": " << choice.copy->ref.level
            << ", \"state\": " << json_string(state_name(choice.check.state)) << "}";
    }
    out << ", \"skipped\": [";
    for (std::size_t i = 0; i < choice.skipped.size(); ++i) {
        const auto& [copy, check] = choice.skipped[i];
        out << (i ? ", " : "") << "{\"id\": " << copy->ref.seq << ", \"level\": " << copy->ref.level
            << ", \"state\": " << json_string(state_name(check.state)) << ", \"reason\": " << json_string(check.reason)
            << "}";
    }
    out << "], \"unreadable\": [";
    for (std::size_t i = 0; i < unreadable.size(); ++i) {
        out << (i ? ", " : "") << "{\"path\": " << json_string(unreadable[i].path.string())
            << ", \"problem\": " << json_string(unreadable[i].problem) << "}";
    }
    out << "]}\n";
}

const DatasetEntry* find_dataset(const std::vector<DatasetEntry>& datasets, const std::string& wanted) {
    const bool number =
        !wanted.empty() && std::all_of(wanted.begin(), wanted.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (number) {
        for (const DatasetEntry& d : datasets) {
            if (std::to_string(d.seq) == wanted) return &d;
        }
    }
    for (const DatasetEntry& d : datasets) {
        if (d.meta().name == wanted) return &d;
    }
    return nullptr;
}

// What --verify and --rebuild found of one copy.
struct CopyOutcome {
    const DatasetCopy* copy = nullptr;
    CopyCheck before;
    CopyCheck after;  // --rebuild: once rebuilt
    std::vector<fs::path> rebuilt;
    std::string failure;  // --rebuild: why the rebuild failed
    bool rebuild_tried = false;
};

int exit_code(const std::vector<CopyOutcome>& outcomes, bool rebuild) {
    bool any_visible = false;
    bool rebuildable = false;
    bool beyond = false;
    for (const CopyOutcome& o : outcomes) {
        const CopyCheck& c = rebuild ? o.after : o.before;
        if (c.state == State::not_visible) continue;
        any_visible = true;
        beyond = beyond || c.state == State::beyond_repair || !o.failure.empty();
        rebuildable = rebuildable || c.state == State::rebuildable;
    }
    if (!any_visible || beyond) return kIndexBeyondRepair;
    if (rebuildable) return rebuild ? kIndexBeyondRepair : kIndexRebuildable;
    return kIndexOk;
}

void print_outcomes_text(std::ostream& out, const DatasetEntry& d, const std::vector<CopyOutcome>& outcomes,
                         bool rebuild, int code) {
    out << dataset_name(d) << ": " << flags_text(d.meta().flags) << ", " << (d.meta().valid ? "valid" : "not valid")
        << ", " << d.meta().ranks << " ranks\n";
    for (const CopyOutcome& o : outcomes) {
        out << "  " << copy_name(*o.copy) << " copy: " << state_name(o.before.state);
        if (!o.before.reason.empty()) out << ": " << shown(o.before.reason);
        out << "\n";
        for (const std::string& p : o.before.problems) out << "    damaged: " << shown(p) << "\n";
        if (!rebuild) continue;
        for (const fs::path& p : o.rebuilt) out << "    rebuilt: '" << shown(p.string()) << "'\n";
        if (!o.failure.empty()) out << "    rebuild failed: " << shown(o.failure) << "\n";
        if (o.rebuild_tried) {
            out << "  " << copy_name(*o.copy) << " copy after the rebuild: " << state_name(o.after.state) << "\n";
            for (const std::string& p : o.after.problems) out << "    damaged: " << shown(p) << "\n";
        }
    }
    const char* verdict = code == kIndexOk            ? "every file verifies"
                          : code == kIndexRebuildable ? "damaged; --rebuild rebuilds every damaged file"
                          : rebuild                   ? "not every copy could be rebuilt"
                                                      : "damaged beyond repair, or no copy is visible here";
    out << "verdict: " << verdict << "\n";
}

void print_check_json(std::ostream& out, const CopyCheck& c) {
    out << "{\"state\": " << json_string(state_name(c.state)) << ", \"reason\": " << json_string(c.reason)
        << ", \"problems\": [";
    for (std::size_t i = 0; i < c.problems.size(); ++i) out << (i ? ", " : "") << json_string(c.problems[i]);
    out << "]}";
}

void print_outcomes_json(std::ostream& out, const DatasetEntry& d, const std::vector<CopyOutcome>& outcomes,
                         bool rebuild, int code) {
    out << "{\"id\": " << d.seq << ", \"name\": " << json_string(d.meta().name) << ", \"copies\": [";
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        const CopyOutcome& o = outcomes[i];
        out << (i ? ", " : "") << "{\"level\": " << o.copy->ref.level << ", \"check\": ";
        print_check_json(out, o.before);
        if (rebuild) {
            out << ", \"rebuilt\": [";
            for (std::size_t j = 0; j < o.rebuilt.size(); ++j) out << (j ? ", " : "") << json_string(o.rebuilt[j]);
            out << "], \"failure\": " << (o.failure.empty() ? "null" : json_string(o.failure)) << ", \"after\": ";
            print_check_json(out, o.after);
        }
        out << "}";
    }
    out << "], \"exit\": " << code << "}\n";
}

int check_dataset(const ScrPrefix& prefix, const DatasetEntry& d, bool rebuild, bool json, std::ostream& out) {
    std::vector<CopyOutcome> outcomes;
    for (const DatasetCopy& copy : d.copies) {
        CopyOutcome o;
        o.copy = &copy;
        o.before = prefix.check(copy);
        o.after = o.before;
        if (rebuild && o.before.state == State::rebuildable) {
            o.rebuild_tried = true;
            try {
                prefix.rebuild(copy, o.before, o.rebuilt);
            } catch (const Error& e) {
                o.failure = e.what();
            }
            o.after = prefix.check(copy);
        }
        outcomes.push_back(std::move(o));
    }
    const int code = exit_code(outcomes, rebuild);
    if (json) {
        print_outcomes_json(out, d, outcomes, rebuild, code);
    } else {
        print_outcomes_text(out, d, outcomes, rebuild, code);
    }
    return code;
}

bool is_directory(const std::string& path) {
    std::error_code ec;
    return fs::is_directory(path, ec);
}

}  // namespace

int scr_index(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    std::optional<Arguments> a = parse_arguments(args, err);
    if (!a) {
        err << kUsage;
        return kIndexUsage;
    }
    if (a->help) {
        out << kUsage;
        return kIndexOk;
    }
    if (!is_directory(a->prefix)) {
        err << "mlckpt index: the prefix '" << shown(a->prefix) << "' is not a directory\n";
        return kIndexUsage;
    }
    const ScrPrefix prefix(fs::absolute(a->prefix), fs::absolute(a->cache));
    std::vector<UnreadableMeta> unreadable;
    const std::vector<DatasetEntry> datasets = prefix.datasets(unreadable);
    const std::optional<std::string> wanted = a->verify ? a->verify : a->rebuild;
    if (!wanted) {
        const Choice choice = restart_choice(prefix, datasets);
        if (a->json) {
            print_list_json(out, *a, datasets, unreadable, choice);
        } else {
            print_list_text(out, *a, datasets, unreadable, choice);
        }
        return kIndexOk;
    }
    const DatasetEntry* d = find_dataset(datasets, *wanted);
    if (d == nullptr) {
        err << "mlckpt index: no dataset with id or name '" << shown(*wanted) << "' in '"
            << shown(prefix.metadata_dir().string()) << "'";
        for (const UnreadableMeta& u : unreadable) err << "; unreadable: " << shown(u.problem);
        err << "\n";
        return kIndexUsage;
    }
    return check_dataset(prefix, *d, a->rebuild.has_value(), a->json, out);
}

}  // namespace mlckpt::tools
