#include "verify_report.hpp"

#include "cli.hpp"
#include "json.hpp"

namespace mlckpt::tools::verifying {

std::string ranks_text(const std::vector<int>& ranks) {
    if (ranks.size() == 1) return "rank " + std::to_string(ranks[0]);
    bool contiguous = true;
    for (std::size_t i = 1; i < ranks.size(); ++i) contiguous = contiguous && ranks[i] == ranks[i - 1] + 1;
    if (contiguous && !ranks.empty()) {
        return "ranks " + std::to_string(ranks.front()) + "-" + std::to_string(ranks.back());
    }
    std::string out = "ranks ";
    for (std::size_t i = 0; i < ranks.size(); ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
    return out;
}

namespace {

const char* state_name(State s) {
    return s == State::ok ? "ok" : s == State::damaged ? "damaged" : "not visible";
}

}  // namespace

Totals count(const std::vector<CheckpointReport>& reports) {
    Totals t;
    for (const CheckpointReport& c : reports) {
        ++t.checkpoints;
        for (const FileReport& f : c.files) {
            ++t.files;
            ++(f.outcome.state == State::ok ? t.ok : f.outcome.state == State::damaged ? t.damaged : t.not_visible);
        }
    }
    return t;
}

// The checkpoint a restart would take, in its order, and the newer ones it
// would take if the files not visible here verify.
const CheckpointReport* restart_choice(const std::vector<CheckpointReport>& reports,
                                       std::vector<const CheckpointReport*>& if_visible) {
    for (const CheckpointReport& c : reports) {
        if (c.use == Use::yes) return &c;
        if (c.use == Use::unknown) if_visible.push_back(&c);
    }
    return nullptr;
}

void print_text(std::ostream& out, const std::string& config, const std::string& exec_id,
                const std::vector<CheckpointReport>& reports, const Totals& t, const std::string& note) {
    out << "execution '" << shown(exec_id) << "' of " << shown(config) << "\n";
    for (const CheckpointReport& c : reports) {
        std::string name = c.name();
        if (!c.format.empty()) {
            name.insert(name.size() - 1,
                        ", " + c.format + ", " + std::to_string(c.ranks) + (c.ranks == 1 ? " rank" : " ranks"));
        }
        out << shown(name) << ": " << shown(c.verdict) << "\n";
        for (const FileReport& f : c.files) {
            std::string status = f.outcome.state == State::damaged
                                     ? "damaged (" + std::string(damage_name(f.outcome.damage)) + ")"
                                 : f.outcome.state == State::not_visible ? "not visible here"
                                                                         : "ok";
            status.resize(std::max<std::size_t>(status.size() + 1, 20), ' ');
            out << "  " << status << f.what();
            if (!f.path.empty()) out << ": " << shown(f.path.string());
            if (!f.outcome.detail.empty()) out << ": " << shown(f.outcome.detail);
            if (!f.outcome.note.empty()) out << " (" << shown(f.outcome.note) << ")";
            out << "\n";
        }
    }
    out << "summary: " << t.checkpoints << (t.checkpoints == 1 ? " checkpoint, " : " checkpoints, ") << t.files
        << (t.files == 1 ? " file: " : " files: ") << t.ok << " ok, " << t.damaged << " damaged, " << t.not_visible
        << " not visible here\n";
    std::vector<const CheckpointReport*> if_visible;
    const CheckpointReport* choice = restart_choice(reports, if_visible);
    out << "restart: ";
    for (const CheckpointReport* c : if_visible) out << c->name() << " if its files not visible here verify, else ";
    out << (choice ? choice->name() : "no checkpoint") << "\n";
    if (!note.empty()) out << "note: " << shown(note) << "\n";
}

void print_json_ref(std::ostream& out, const CheckpointReport& c) {
    out << "{\"id\": " << c.ckpt_id << ", \"level\": " << c.level << ", \"seq\": " << c.seq << "}";
}

void print_json(std::ostream& out, const std::string& config, const std::string& exec_id,
                const std::vector<CheckpointReport>& reports, const Totals& t, const std::string& note) {
    out << "{\"config\": " << json_string(config) << ", \"exec_id\": " << json_string(exec_id)
        << ", \"checkpoints\": [";
    for (std::size_t i = 0; i < reports.size(); ++i) {
        const CheckpointReport& c = reports[i];
        const char* use = c.use == Use::yes       ? "true"
                          : c.use == Use::no      ? "false"
                          : c.use == Use::unknown ? "null"
                                                  : "false";
        out << (i ? ", " : "") << "{\"id\": " << c.ckpt_id << ", \"level\": " << c.level << ", \"seq\": " << c.seq
            << ", \"archived\": " << (c.archived ? "true" : "false") << ", \"format\": " << json_string(c.format)
            << ", \"ranks\": " << c.ranks << ", \"superseded\": " << (c.superseded_by ? "true" : "false")
            << ", \"usable\": " << use << ", \"verdict\": " << json_string(c.verdict) << ", \"files\": [";
        for (std::size_t j = 0; j < c.files.size(); ++j) {
            const FileReport& f = c.files[j];
            out << (j ? ", " : "") << "{\"role\": " << json_string(f.role) << ", \"ranks\": [";
            for (std::size_t k = 0; k < f.ranks.size(); ++k) out << (k ? ", " : "") << f.ranks[k];
            out << "]";
            if (f.holder >= 0) out << ", \"holder\": " << f.holder;
            if (f.node >= 0) out << ", \"node\": " << f.node;
            out << ", \"path\": " << json_string(f.path.string())
                << ", \"state\": " << json_string(state_name(f.outcome.state));
            if (f.outcome.state == State::damaged)
                out << ", \"damage\": " << json_string(damage_name(f.outcome.damage));
            if (!f.outcome.detail.empty()) out << ", \"detail\": " << json_string(f.outcome.detail);
            if (!f.outcome.note.empty()) out << ", \"note\": " << json_string(f.outcome.note);
            out << "}";
        }
        out << "]}";
    }
    out << "], \"summary\": {\"checkpoints\": " << t.checkpoints << ", \"files\": " << t.files << ", \"ok\": " << t.ok
        << ", \"damaged\": " << t.damaged << ", \"not_visible\": " << t.not_visible << "}, \"restart\": ";
    std::vector<const CheckpointReport*> if_visible;
    const CheckpointReport* choice = restart_choice(reports, if_visible);
    out << "{\"checkpoint\": ";
    if (choice) {
        print_json_ref(out, *choice);
    } else {
        out << "null";
    }
    out << ", \"if_visible\": [";
    for (std::size_t i = 0; i < if_visible.size(); ++i) {
        out << (i ? ", " : "");
        print_json_ref(out, *if_visible[i]);
    }
    out << "]}, \"note\": " << (note.empty() ? "null" : json_string(note)) << "}\n";
}

}  // namespace mlckpt::tools::verifying
