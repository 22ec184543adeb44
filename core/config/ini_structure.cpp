#include "config/ini_structure.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <string_view>

#include "common/error.hpp"

namespace mlckpt::core {

namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

// Whether a value that opens a quote closes it (iniparser's quoted values).
bool quote_closed(std::string_view value) {
    if (value.empty() || (value.front() != '"' && value.front() != '\'')) return true;
    return value.find(value.front(), 1) != std::string_view::npos;
}

}  // namespace

void check_ini_structure(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        fail(ErrorKind::config, "configuration file '" + path + "' is a directory; allowed: an INI file");
    }
    std::ifstream in(path);
    if (!in) return;  // the caller reports what cannot be read
    auto refuse = [&](int line, const std::string& what, const std::string& allowed) {
        fail(ErrorKind::config, path + ":" + std::to_string(line) + ": " + what + "; allowed: " + allowed);
    };
    std::map<std::string, int> sections;                      // name -> line
    std::map<std::pair<std::string, std::string>, int> keys;  // (section, key) -> line
    std::string section;
    bool continued = false;  // the previous line ended with '\': this one is part of its value
    std::string text;
    for (int number = 1; std::getline(in, text); ++number) {
        std::string_view line = trimmed(text);
        const bool was_continued = continued;
        continued = !line.empty() && line.back() == '\\';
        if (was_continued || line.empty() || line.front() == ';' || line.front() == '#') continue;
        if (line.front() == '[') {
            std::size_t end = line.find(']');
            if (end == std::string_view::npos) return;  // iniparser reports the syntax error
            section = lower(trimmed(line.substr(1, end - 1)));
            auto [at, fresh] = sections.emplace(section, number);
            if (!fresh) {
                refuse(number,
                       "section [" + section + "] appears again (first at line " + std::to_string(at->second) + ")",
                       "each section once");
            }
            continue;
        }
        std::size_t eq = line.find('=');
        if (eq == std::string_view::npos) return;  // iniparser reports the syntax error
        const std::string key = lower(trimmed(line.substr(0, eq)));
        if (section.empty()) refuse(number, "key '" + key + "' before any section", "keys inside a [section]");
        auto [at, fresh] = keys.emplace(std::make_pair(section, key), number);
        if (!fresh) {
            refuse(number,
                   "[" + section + "] " + key + " is set again (first at line " + std::to_string(at->second) + ")",
                   "each key once per section");
        }
        if (!quote_closed(trimmed(line.substr(eq + 1)))) {
            refuse(number, "[" + section + "] " + key + ": the quote is not closed", "a value in matching quotes");
        }
    }
}

}  // namespace mlckpt::core
