// Strings read from checkpoint files, made safe to print: JSON string
// literals for --json (ASCII only, so valid UTF-8 whatever the file holds)
// and escaped text for the terminal (no control byte reaches it).
#pragma once

#include <cstdio>
#include <string>

namespace mlckpt::tools {

inline std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20 || byte >= 0x7f) {
            // A byte that is not printable ASCII stands for the code point of its value.
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(byte));
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// Printable ASCII as it is, every other byte as \xHH (and a backslash as \\).
inline std::string shown(const std::string& s) {
    std::string out;
    for (char c : s) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\\') {
            out += "\\\\";
        } else if (byte < 0x20 || byte >= 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(byte));
            out += buf;
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace mlckpt::tools
