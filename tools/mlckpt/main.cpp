// The mlckpt command-line tool. Subcommands:
//   mlckpt inspect [--json] [--] FILE   dump and check an FTI-FF file or a container
//   mlckpt extract [--] CONTAINER --rank R [--output FILE]
//                                       write one rank's data out of a container
#include <iostream>
#include <string>
#include <vector>

#include "extract.hpp"
#include "inspect.hpp"

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "inspect") {
        return mlckpt::tools::inspect({args.begin() + 1, args.end()}, std::cout, std::cerr);
    }
    if (!args.empty() && args[0] == "extract") {
        return mlckpt::tools::extract({args.begin() + 1, args.end()}, std::cout, std::cerr);
    }
    std::cerr << "usage: mlckpt inspect [--json] [--] FILE\n"
                 "       mlckpt extract [--] CONTAINER --rank R [--output FILE]\n";
    return 2;
}
