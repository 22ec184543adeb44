// Checkpoint metadata: the text a restart reads from the metadata directory
// or from the copy beside the data.
#include <cstdint>
#include <string_view>

#include "common/error.hpp"
#include "format/checkpoint_meta.hpp"

using namespace mlckpt::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        parse_meta(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz input");
    } catch (const Error&) {
        // The expected outcome for a damaged file.
    }
    return 0;
}
