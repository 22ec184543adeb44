// Running one of the mlckpt commands in the test's process, its output and
// exit code captured.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace mlckpt::test {

struct ToolOutput {
    int code = -1;
    std::string out;
    std::string err;
};

// `command` is one of the tool's subcommands (int(args, out, err)).
template <typename Command>
ToolOutput run_captured(Command command, const std::vector<std::string>& args) {
    std::ostringstream out, err;
    ToolOutput r;
    r.code = command(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace mlckpt::test
