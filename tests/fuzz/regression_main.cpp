// The regression runner of a fuzz target, built with any compiler: runs the
// target once on each input, so that the seed corpus and the inputs of past
// findings are ordinary tests of every build.
//   fuzz_<target>_regression PATH...   (a file, or every file of a directory)
// It fails when the paths hold no input at all (an empty or misnamed corpus
// would otherwise pass without running the target); one of them may be
// empty, as a regressions directory with only .gitkeep is.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i) {
        const fs::path arg = argv[i];
        if (fs::is_directory(arg)) {
            // Hidden files (.gitkeep in an empty regression directory) are not inputs.
            for (const fs::directory_entry& e : fs::directory_iterator(arg)) {
                if (e.is_regular_file() && e.path().filename().string()[0] != '.') inputs.push_back(e.path());
            }
        } else if (fs::is_regular_file(arg)) {
            inputs.push_back(arg);
        } else {
            std::fprintf(stderr, "%s: not a file or directory\n", arg.c_str());
            return 2;
        }
    }
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s PATH... (files, or directories of files)\n", argv[0]);
        return 2;
    }
    if (inputs.empty()) {
        std::fprintf(stderr, "no input ran:");
        for (int i = 1; i < argc; ++i) std::fprintf(stderr, " '%s'", argv[i]);
        std::fprintf(stderr, " hold no file (hidden files are not inputs); the corpus is missing\n");
        return 1;
    }
    std::sort(inputs.begin(), inputs.end());
    for (const fs::path& input : inputs) {
        // Named before it runs: a crash then names its input.
        std::printf("%s\n", input.c_str());
        std::fflush(stdout);
        std::ifstream in(input, std::ios::binary);
        std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    }
    std::printf("%zu inputs ran\n", inputs.size());
    return 0;
}
