#include "scr/scr_parameters.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/error.hpp"

namespace mlckpt::core {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string_view s) {
    auto first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    auto last = s.find_last_not_of(" \t\r");
    return std::string(s.substr(first, last - first + 1));
}

bool is_key(std::string_view key) {
    return !key.empty() && std::all_of(key.begin(), key.end(),
                                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Parameters SCR knows that change nothing here: accepted with a note.
const std::set<std::string>& without_effect() {
    static const std::set<std::string> keys = {"SCR_CNTL_BASE",
                                               "SCR_FLUSH_ASYNC",
                                               "SCR_FLUSH_TYPE",
                                               "SCR_FLUSH_WIDTH",
                                               "SCR_FETCH",
                                               "SCR_FETCH_WIDTH",
                                               "SCR_FETCH_BYPASS",
                                               "SCR_DISTRIBUTE",
                                               "SCR_GROUP",
                                               "SCR_MPI_BUF_SIZE",
                                               "SCR_FILE_BUF_SIZE",
                                               "SCR_LOG_ENABLE",
                                               "SCR_LOG_TXT_ENABLE",
                                               "SCR_LOG_SYSLOG_ENABLE",
                                               "SCR_LOG_DB_ENABLE",
                                               "SCR_HALT_EXIT",
                                               "SCR_CACHE_PURGE",
                                               "SCR_PREFIX_PURGE",
                                               "SCR_RUNS",
                                               "SCR_MIN_NODES",
                                               "SCR_EXCLUDE_NODES",
                                               "SCR_CHECKPOINT_OVERHEAD",
                                               "SCR_CRC_ON_COPY",
                                               "SCR_CRC_ON_DELETE",
                                               "SCR_GLOBAL_RESTART",
                                               "SCR_FLUSH_ON_RESTART",
                                               "SCR_FLUSH_POSTSTAGE",
                                               "SCR_WATCHDOG_TIMEOUT",
                                               "SCR_WATCHDOG_TIMEOUT_PFS",
                                               "SCR_USER_NAME",
                                               "SCR_JOB_ID",
                                               "SCR_JOB_NAME",
                                               "SCR_HOP_DISTANCE"};
    return keys;
}

// The first keys of SCR's store and checkpoint descriptors.
const std::set<std::string>& descriptor_keys() {
    static const std::set<std::string> keys = {"STORE", "CKPT", "CACHE", "CACHEDIR", "CNTLDIR"};
    return keys;
}

const std::set<std::string>& with_effect() {
    static const std::set<std::string> keys = {"SCR_PREFIX",
                                               "SCR_CACHE_BASE",
                                               "SCR_COPY_TYPE",
                                               "SCR_SET_SIZE",
                                               "SCR_CACHE_SIZE",
                                               "SCR_CACHE_BYPASS",
                                               "SCR_FLUSH",
                                               "SCR_PREFIX_SIZE",
                                               "SCR_CHECKPOINT_INTERVAL",
                                               "SCR_CHECKPOINT_SECONDS",
                                               "SCR_HALT_SECONDS",
                                               "SCR_END_TIME",
                                               "SCR_CURRENT",
                                               "SCR_ENABLE",
                                               "SCR_DEBUG",
                                               "SCR_CRC_ON_FLUSH",
                                               "SCR_CONF_FILE",
                                               "MLCKPT_NODE_SIZE",
                                               "MLCKPT_WAIT_TIMEOUT"};
    return keys;
}

// $NAME and ${NAME} replaced by the environment's value (empty if unset),
// as SCR does for values in its configuration files.
std::string interpolate(const std::string& value, const EnvLookup& env) {
    std::string out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (value[i] != '$' || i + 1 == value.size()) {
            out += value[i];
            continue;
        }
        std::size_t start = i + 1;
        bool braced = value[start] == '{';
        if (braced) ++start;
        std::size_t end = start;
        while (end < value.size() && (std::isalnum(static_cast<unsigned char>(value[end])) || value[end] == '_')) ++end;
        if (end == start || (braced && (end == value.size() || value[end] != '}'))) {
            out += value[i];
            continue;
        }
        out += env(value.substr(start, end - start)).value_or("");
        i = braced ? end : end - 1;
    }
    return out;
}

struct Sourced {
    std::string value;
    std::string source;  // for messages: "the environment", "<file> line <n>", "SCR_Config"
};

// The user configuration file: KEY=VALUE lines, '#' starts a comment.
// Lines of several KEY=VALUE items (SCR's store and checkpoint
// descriptors) are noted, not applied.
std::map<std::string, Sourced> read_user_file(const fs::path& path, const EnvLookup& env,
                                              std::vector<std::string>& warnings) {
    std::map<std::string, Sourced> out;
    std::ifstream in(path);
    if (!in) fail(ErrorKind::config, "cannot read the SCR configuration file '" + path.string() + "'");
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        const std::string where = path.string() + " line " + std::to_string(number);
        std::string text = trim(std::string_view(line).substr(0, line.find('#')));
        if (text.empty()) continue;
        auto eq = text.find('=');
        std::string key = trim(std::string_view(text).substr(0, eq));
        if (eq == std::string::npos || !is_key(key)) {
            fail(ErrorKind::config, where + ": '" + text + "' is not a KEY=VALUE setting");
        }
        std::string value = trim(std::string_view(text).substr(eq + 1));
        if (value.find('=') != std::string::npos && value.find_first_of(" \t") != std::string::npos) {
            warnings.push_back(where + ": the descriptor '" + text +
                               "' is not supported and is ignored (set SCR_COPY_TYPE, SCR_SET_SIZE and "
                               "SCR_CACHE_BASE instead)");
            continue;
        }
        out[key] = {interpolate(value, env), where};
    }
    return out;
}

class Sources {
  public:
    Sources(const ScrParameterTable& app, const EnvLookup& env, const std::string& cwd) : app_(app), env_(env) {
        // SCR_CONF_FILE itself comes from the environment or SCR_Config.
        std::optional<std::string> conf = find_early("SCR_CONF_FILE");
        fs::path prefix = cwd;
        if (auto p = find_early("SCR_PREFIX")) prefix = fs::path(cwd) / *p;
        fs::path file = conf ? fs::path(cwd) / *conf : prefix / ".scrconf";
        std::error_code ec;
        if (conf || fs::exists(file, ec)) {
            file_ = read_user_file(file, env, warnings_);
            user_file_ = file.string();
        }
    }

    std::optional<Sourced> find(const std::string& key) const {
        if (auto v = env_(key)) return Sourced{*v, "the environment"};
        if (auto it = file_.find(key); it != file_.end()) return it->second;
        if (auto v = app_.get(key)) return Sourced{*v, "SCR_Config"};
        return std::nullopt;
    }

    // Keys given in the file or with SCR_Config that nothing reads.
    void note_unknown_keys() {
        auto check = [&](const std::string& key, const std::string& source) {
            if (app_.is_descriptor(key) || descriptor_keys().count(key) != 0) {
                warnings_.push_back("the descriptor " + key + " (" + source +
                                    ") is not supported and is ignored (set SCR_COPY_TYPE, SCR_SET_SIZE and "
                                    "SCR_CACHE_BASE instead)");
                return;
            }
            if (with_effect().count(key) != 0) return;
            if (without_effect().count(key) != 0) {
                warnings_.push_back(key + " (" + source + ") is accepted and has no effect in mlckpt");
            } else {
                warnings_.push_back(key + " (" + source + ") is not an SCR parameter; ignored");
            }
        };
        for (const auto& [key, v] : file_) check(key, v.source);
        for (const auto& [key, v] : app_.values()) check(key, "SCR_Config");
    }

    std::vector<std::string> warnings_;
    std::string user_file_;

  private:
    std::optional<std::string> find_early(const std::string& key) const {
        if (auto v = env_(key)) return v;
        return app_.get(key);
    }

    const ScrParameterTable& app_;
    const EnvLookup& env_;
    std::map<std::string, Sourced> file_;
};

[[noreturn]] void bad_value(const std::string& key, const Sourced& v, const std::string& allowed) {
    fail(ErrorKind::config,
         "SCR parameter " + key + " = '" + v.value + "' (from " + v.source + "): allowed: " + allowed);
}

long integer_of(const std::string& key, const Sourced& v, long lo, long hi, const std::string& allowed) {
    long out = 0;
    const std::string s = trim(v.value);
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || out < lo || out > hi) {
        bad_value(key, v, allowed);
    }
    return out;
}

}  // namespace

ScrConfigText parse_scr_config_text(std::string_view text) {
    auto bad = [&](const std::string& why) {
        fail(ErrorKind::usage, "SCR_Config: '" + std::string(text) + "': " + why +
                                   "; allowed: KEY=VALUE, KEY= (unset), KEY, KEY=VALUE SUBKEY, or a descriptor "
                                   "KEY=VALUE K1=V1 K2=V2 ...");
    };
    struct Item {
        std::string key;
        bool equals = false;
        std::optional<std::string> value;
    };
    std::vector<Item> items;
    auto space = [](char c) { return c == ' ' || c == '\t'; };
    std::size_t i = 0;
    const std::size_t n = text.size();
    for (;;) {
        while (i < n && space(text[i])) ++i;
        if (i == n) break;
        Item item;
        std::size_t start = i;
        while (i < n && !space(text[i]) && text[i] != '=') ++i;
        item.key = std::string(text.substr(start, i - start));
        while (i < n && space(text[i])) ++i;
        if (i < n && text[i] == '=') {
            item.equals = true;
            ++i;
            while (i < n && space(text[i])) ++i;
            start = i;
            while (i < n && !space(text[i])) ++i;
            if (i > start) item.value = std::string(text.substr(start, i - start));
        } else if (i < n) {
            bad("'" + item.key + "' is followed by a word without '='");
        }
        if (!is_key(item.key)) bad("'" + item.key + "' is not a parameter name");
        items.push_back(std::move(item));
    }
    ScrConfigText out;
    if (items.empty()) return out;
    out.key = items[0].key;
    out.has_equals = items[0].equals;
    out.value = items[0].value;
    if (items.size() == 1) return out;
    if (!out.value) bad("a descriptor needs a value for its first key");
    if (!items.back().equals) {
        if (items.size() != 2) bad("a query cannot set values at the same time");
        out.subkey = items[1].key;
        return out;
    }
    for (std::size_t k = 1; k < items.size(); ++k) {
        if (!items[k].value) bad("'" + items[k].key + "=' has no value");
        out.pairs.emplace_back(items[k].key, *items[k].value);
    }
    return out;
}

std::optional<std::string> ScrParameterTable::apply(std::string_view config) {
    const ScrConfigText t = parse_scr_config_text(config);
    if (t.key.empty()) return std::nullopt;  // nothing asked, as SCR answers an empty text
    if (t.is_query()) return t.subkey.empty() ? get(t.key) : get_pair(t.key, *t.value, t.subkey);
    if (!t.value) {
        values_.erase(t.key);
    } else if (t.pairs.empty()) {
        values_[t.key] = {{*t.value, {}}};  // a simple setting replaces every value of its key
    } else {
        Pairs& pairs = values_[t.key][*t.value];  // a descriptor adds to what its key has
        for (const auto& [k, v] : t.pairs) pairs[k] = v;
    }
    return std::nullopt;
}

std::optional<std::string> ScrParameterTable::get(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end() || it->second.empty()) return std::nullopt;
    if (it->second.size() > 1) {
        fail(ErrorKind::usage, "several values are set for '" + key + "' (" + std::to_string(it->second.size()) +
                                   " descriptors), so the query has no single answer; ask for one "
                                   "descriptor's setting with '" +
                                   key + "=<value> <KEY>'");
    }
    return it->second.begin()->first;
}

std::optional<std::string> ScrParameterTable::get_pair(const std::string& key, const std::string& value,
                                                       const std::string& subkey) const {
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    auto v = it->second.find(value);
    if (v == it->second.end()) return std::nullopt;
    auto p = v->second.find(subkey);
    if (p == v->second.end()) return std::nullopt;
    return p->second;
}

bool ScrParameterTable::is_descriptor(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) return false;
    return it->second.size() > 1 || (it->second.size() == 1 && !it->second.begin()->second.empty());
}

EnvLookup process_environment() {
    return [](const std::string& key) -> std::optional<std::string> {
        const char* v = std::getenv(key.c_str());
        if (v == nullptr) return std::nullopt;
        return std::string(v);
    };
}

std::optional<std::string> lookup_scr_parameter(const std::string& key, const ScrParameterTable& app,
                                                const EnvLookup& env, const std::string& cwd) {
    Sources sources(app, env, cwd);
    if (auto v = sources.find(key)) return v->value;
    return std::nullopt;
}

ScrSettings resolve_scr_settings(const ScrParameterTable& app, const EnvLookup& env, const std::string& cwd) {
    Sources sources(app, env, cwd);
    sources.note_unknown_keys();
    ScrSettings s;
    s.prefix = cwd;
    s.user_file = sources.user_file_;
    auto get = [&](const char* key) { return sources.find(key); };
    auto flag = [&](const char* key, bool& out) {
        if (auto v = get(key)) out = integer_of(key, *v, 0, 1, "0 or 1") == 1;
    };
    auto number = [&](const char* key, int& out, long lo, const std::string& allowed) {
        if (auto v = get(key)) out = static_cast<int>(integer_of(key, *v, lo, 1L << 30, allowed));
    };
    auto path = [&](const char* key, std::string& out) {
        if (auto v = get(key)) {
            if (trim(v->value).empty()) bad_value(key, *v, "a directory");
            out = (fs::path(cwd) / trim(v->value)).lexically_normal().string();
            if (out.size() > 1 && out.back() == '/') out.pop_back();
        }
    };
    path("SCR_PREFIX", s.prefix);
    path("SCR_CACHE_BASE", s.cache_base);
    if (auto v = get("SCR_COPY_TYPE")) {
        std::string t = trim(v->value);
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::toupper(c); });
        static const std::map<std::string, int> levels = {{"SINGLE", kL1}, {"PARTNER", kL2}, {"XOR", kL3}, {"RS", kL3}};
        auto it = levels.find(t);
        if (it == levels.end()) bad_value("SCR_COPY_TYPE", *v, "SINGLE, PARTNER, XOR or RS");
        s.copy_type = t;
        s.copy_level = it->second;
    }
    number("SCR_SET_SIZE", s.set_size, 1, "an integer >= 1");
    number("SCR_SET_FAILURES", s.set_failures, 1, "an integer >= 1");
    number("SCR_CACHE_SIZE", s.cache_size, 1, "an integer >= 1");
    flag("SCR_CACHE_BYPASS", s.cache_bypass);
    number("SCR_FLUSH", s.flush, 0, "an integer >= 0 (0: no periodic flush)");
    number("SCR_PREFIX_SIZE", s.prefix_size, 0, "an integer >= 0 (0: keep every checkpoint)");
    number("SCR_CHECKPOINT_INTERVAL", s.checkpoint_interval, 0, "an integer >= 0");
    if (auto v = get("SCR_CHECKPOINT_SECONDS")) {
        char* end = nullptr;
        const std::string t = trim(v->value);
        s.checkpoint_seconds = std::strtod(t.c_str(), &end);
        if (t.empty() || *end != '\0' || !(s.checkpoint_seconds >= 0))
            bad_value("SCR_CHECKPOINT_SECONDS", *v, "a number >= 0");
    }
    number("SCR_HALT_SECONDS", s.halt_seconds, 0, "an integer >= 0");
    if (auto v = get("SCR_END_TIME"))
        s.end_time = integer_of("SCR_END_TIME", *v, 0, 1L << 40, "seconds since the epoch");
    if (auto v = get("SCR_CURRENT")) s.current = trim(v->value);
    flag("SCR_ENABLE", s.enable);
    number("SCR_DEBUG", s.debug, 0, "an integer >= 0");
    flag("SCR_CRC_ON_FLUSH", s.crc_on_flush);
    number("MLCKPT_NODE_SIZE", s.node_size, 1, "an integer >= 1 (ranks per simulated node)");
    number("MLCKPT_WAIT_TIMEOUT", s.wait_timeout, 1, "an integer >= 1 (seconds)");
    s.warnings = std::move(sources.warnings_);
    return s;
}

}  // namespace mlckpt::core
