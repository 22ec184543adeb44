// The mlckpt command-line tool (see cli.hpp and `mlckpt --help`).
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
    return mlckpt::tools::run_command_line({argv + 1, argv + argc}, std::cout, std::cerr);
}
