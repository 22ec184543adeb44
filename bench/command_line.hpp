// The benchmark programs' command lines: switches ("--cold") and options
// with a value ("--level 2"), from argv[first] on.
#pragma once

#include <map>
#include <set>
#include <string>

namespace mlckpt::bench {

struct CommandLine {
    std::set<std::string> switches;             // the switches given, without "--"
    std::map<std::string, std::string> values;  // option -> value, without "--"
};

// False on an argument that is neither a switch of `known_switches` nor
// an option followed by its value.
inline bool parse_command_line(int argc, char** argv, int first, const std::set<std::string>& known_switches,
                               CommandLine& out) {
    for (int i = first; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--", 0) != 0) return false;
        const std::string name = a.substr(2);
        if (known_switches.count(name)) {
            out.switches.insert(name);
        } else if (i + 1 < argc) {
            out.values[name] = argv[++i];
        } else {
            return false;
        }
    }
    return true;
}

}  // namespace mlckpt::bench
