#include "verify.hpp"

#include "cli.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "common/error.hpp"
#include "common/file_name.hpp"
#include "config/config.hpp"
#include "json.hpp"
#include "storage/layout.hpp"
#include "verifier.hpp"

namespace mlckpt::tools {

namespace {

using namespace mlckpt::core;
using namespace verifying;

constexpr const char* kUsage = "usage: mlckpt verify [--json] [--exec-id ID] [--] CONFIG\n";

struct Arguments {
    bool json = false;
    std::string config;
    std::optional<std::string> exec_id;
};

std::optional<Arguments> parse_arguments(const std::vector<std::string>& args, std::ostream& err) {
    Arguments a;
    bool options_done = false;  // after "--", CONFIG may start with '-'
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (!options_done && arg == "--") {
            options_done = true;
        } else if (!options_done && arg == "--json" && !a.json) {
            a.json = true;
        } else if (!options_done && arg == "--exec-id" && i + 1 < args.size() && !a.exec_id) {
            a.exec_id = args[++i];
        } else if (a.config.empty() && !arg.empty() && (options_done || arg[0] != '-')) {
            a.config = arg;
        } else {
            err << "mlckpt verify: unexpected argument '" << shown(arg) << "'\n";
            return std::nullopt;
        }
    }
    if (a.config.empty()) return std::nullopt;
    return a;
}

// The executions that have a metadata directory under meta_dir.
std::vector<std::string> executions_in(const fs::path& meta_dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(meta_dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code type_ec;
        if (it->is_directory(type_ec)) out.push_back(it->path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool is_directory(const std::string& path) {
    std::error_code ec;
    return !path.empty() && fs::is_directory(path, ec);
}

}  // namespace

int verify(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (asks_for_help(args)) {
        out << kUsage;
        return 0;
    }
    std::optional<Arguments> a = parse_arguments(args, err);
    if (!a) {
        err << kUsage;
        return 2;
    }
    Config config;
    try {
        config = load_config(a->config);
    } catch (const Error& e) {
        err << "mlckpt verify: " << shown(e.what()) << "\n";
        return 2;
    }
    // Shared directories must be there; node-local ones may live on other
    // nodes, unless the nodes are simulated on this machine (local_test).
    // Not meta_dir: a restart that finds it lost restores it from the copies
    // of the metadata beside the data, which are read below.
    const std::pair<std::string, std::string> dirs[] = {{"glbl_dir", config.glbl_dir}, {"ckpt_dir", config.ckpt_dir}};
    for (const auto& [key, dir] : dirs) {
        if (key == "ckpt_dir" && !config.local_test) continue;
        if (!is_directory(dir)) {
            err << "mlckpt verify: " << shown(a->config) << ": [basic] " << key << " = '" << shown(dir)
                << "' is not a directory here" << (key == "ckpt_dir" ? " (local_test = 1)" : "")
                << "; nothing can be verified without it\n";
            return 2;
        }
    }
    const std::string exec_id = a->exec_id.value_or(config.exec_id);
    if (exec_id.empty()) {
        // A relaunch with this configuration starts a new execution (an
        // empty exec_id allows only failure = 0): that is the restart line.
        // What meta_dir holds (a checkpoint whose restart state a crash kept
        // from the configuration, another run's) is verified by name.
        std::vector<std::string> found = executions_in(config.meta_dir);
        std::string note =
            found.empty() ? "no execution is recorded" : "'" + config.meta_dir + "' holds the metadata of ";
        for (std::size_t i = 0; i < found.size(); ++i) note += (i ? ", '" : "'") + found[i] + "'";
        if (!found.empty()) note += ": verify one with --exec-id";
        if (a->json) {
            out << "{\"config\": " << json_string(a->config)
                << ", \"exec_id\": null, \"checkpoints\": [], \"summary\": {\"checkpoints\": 0, \"files\": 0, "
                   "\"ok\": 0, \"damaged\": 0, \"not_visible\": 0}, \"restart\": {\"checkpoint\": null, "
                   "\"if_visible\": []}, \"note\": "
                << json_string(note) << "}\n";
        } else {
            out << shown(a->config) << " names no execution ([restart] exec_id is empty): a relaunch starts a new "
                << "execution\n"
                << (found.empty() ? "'" + shown(config.meta_dir) + "' holds none: nothing to verify" : shown(note))
                << "\nrestart: no checkpoint\n";
        }
        return 0;
    }
    if (!is_file_name(exec_id)) {
        err << "mlckpt verify: the execution id '" << shown(exec_id) << "' is not a name (no '/', not '.' or '..')\n";
        return 2;
    }
    const int failure = config.failure;
    const fs::path meta_exec_dir = StorageLayout(config, exec_id).meta_exec_dir();
    const std::vector<CheckpointReport> reports = verify_execution(std::move(config), exec_id);
    const Totals totals = count(reports);
    std::string note;
    if (reports.empty()) {
        note = "no checkpoint of execution '" + exec_id + "' is recorded in '" + meta_exec_dir.string() + "'" +
               (failure > 0
                    ? ", but the configuration asks for a restart ([restart] failure = " + std::to_string(failure) + ")"
                    : "");
    } else if (failure == 0) {
        note = a->config + " says [restart] failure = 0: a relaunch starts a new execution instead of restarting";
    }
    if (a->json) {
        print_json(out, a->config, exec_id, reports, totals, note);
    } else {
        print_text(out, a->config, exec_id, reports, totals, note);
    }
    return totals.damaged > 0 || (reports.empty() && failure > 0) ? 1 : 0;
}

}  // namespace mlckpt::tools