// Running the mlckpt tool as an operator would: its own process, no MPI
// launcher in its environment, its output kept for the test to check.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace mlckpt::test {

struct ToolRun {
    int code = -1;
    std::string out;
    std::string err;
};

inline std::string slurp_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline ToolRun run_tool(const std::vector<std::string>& args) {
    const fs::path out = workdir() / "tool.out";
    const fs::path err = workdir() / "tool.err";
    std::string command = "env -i PATH=/usr/bin:/bin '" MLCKPT_TOOL "'";
    for (const std::string& a : args) command += " '" + a + "'";
    command += " > '" + out.string() + "' 2> '" + err.string() + "'";
    const int status = std::system(command.c_str());
    ToolRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp_text(out);
    r.err = slurp_text(err);
    return r;
}

inline bool parses_as_json(const std::string& text) {
    const fs::path file = workdir() / "tool.json";
    std::ofstream(file) << text;
    return std::system(("python3 -m json.tool '" + file.string() + "' > /dev/null").c_str()) == 0;
}

}  // namespace mlckpt::test
