// The configuration file, as FTI_Init loads it.
#include <cstdint>

#include "common/error.hpp"
#include "config/config.hpp"
#include "input_file.hpp"

using namespace mlckpt::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::filesystem::path path = mlckpt::fuzz::write_input("config.fti", data, size);
    try {
        load_config(path.string());
    } catch (const Error&) {
        // The expected outcome for a file that is not a valid configuration.
    }
    return 0;
}
