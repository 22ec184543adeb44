#include "config/restart_state.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "io/file.hpp"

namespace mlckpt::core {

namespace {

std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return {};
    auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// "[name]" -> "name" (lower case); "" when the line is not a section header.
std::string section_of(const std::string& line) {
    std::string t = trim(line);
    if (t.size() < 2 || t.front() != '[') return {};
    auto close = t.find(']');
    if (close == std::string::npos) return {};
    return lower(trim(t.substr(1, close - 1)));
}

// The key of "key = value" (lower case); "" for comments and other lines.
std::string key_of(const std::string& line) {
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') return {};
    auto eq = t.find('=');
    if (eq == std::string::npos) return {};
    return lower(trim(t.substr(0, eq)));
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        auto nl = text.find('\n', start);
        if (nl == std::string::npos) nl = text.size();
        lines.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    return lines;
}

}  // namespace

std::string with_restart_state(const std::string& text, int failure, const std::string& exec_id) {
    const std::string failure_line = "failure = " + std::to_string(failure);
    const std::string exec_line = "exec_id = " + exec_id;

    std::vector<std::string> lines = split_lines(text);
    std::string current;
    long restart_header = -1;
    bool failure_done = false;
    bool exec_done = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        std::string sec = section_of(lines[i]);
        if (!sec.empty()) {
            current = sec;
            if (sec == "restart" && restart_header < 0) restart_header = static_cast<long>(i);
            continue;
        }
        if (current != "restart") continue;
        std::string key = key_of(lines[i]);
        std::string indent = lines[i].substr(0, lines[i].find_first_not_of(" \t"));
        if (key == "failure") {
            lines[i] = indent + failure_line;
            failure_done = true;
        } else if (key == "exec_id") {
            lines[i] = indent + exec_line;
            exec_done = true;
        }
    }
    if (restart_header < 0) {
        if (!lines.empty() && !trim(lines.back()).empty()) lines.emplace_back();
        lines.emplace_back("[restart]");
        restart_header = static_cast<long>(lines.size() - 1);
    }
    auto insert_at = lines.begin() + restart_header + 1;
    if (!exec_done) insert_at = lines.insert(insert_at, exec_line);
    if (!failure_done) lines.insert(insert_at, failure_line);

    std::string out;
    for (const std::string& line : lines) out += line + "\n";
    return out;
}

void write_restart_state(const std::string& config_path, int failure, const std::string& exec_id) {
    // Rewrite the file a symbolic link points to, not the link.
    std::error_code ec;
    fs::path target = fs::canonical(config_path, ec);
    if (ec) target = config_path;
    std::string text = read_text_file(target);
    std::string updated = with_restart_state(text, failure, exec_id);
    if (updated == text) return;
    // The new file keeps the configuration's mode and owner, set on its
    // descriptor: nothing is changed by name.
    atomic_write_file(target, updated, true, target);
}

}  // namespace mlckpt::core
