// The mlckpt command-line tool. Subcommands:
//   mlckpt inspect [--json] [--] FILE   dump and verify an FTI-FF checkpoint file
#include <iostream>
#include <string>
#include <vector>

#include "inspect.hpp"

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "inspect") {
        return mlckpt::tools::inspect({args.begin() + 1, args.end()}, std::cout, std::cerr);
    }
    std::cerr << "usage: mlckpt inspect [--json] [--] FILE\n";
    return 2;
}
