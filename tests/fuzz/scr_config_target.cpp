// SCR's parameters as SCR_Init reads them: the user configuration file
// (<prefix>/.scrconf), and the same text given line by line to SCR_Config.
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "input_file.hpp"
#include "scr/scr_parameters.hpp"

using namespace mlckpt::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::filesystem::path path = mlckpt::fuzz::write_input(".scrconf", data, size);
    const EnvLookup no_environment = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
    ScrParameterTable table;
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (std::size_t start = 0; start <= text.size();) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        try {
            table.apply(std::string_view(text).substr(start, end - start));
        } catch (const Error&) {
            // Not a setting: SCR_Config refuses it.
        }
        start = end + 1;
    }
    try {
        resolve_scr_settings(table, no_environment, path.parent_path().string());
    } catch (const Error&) {
        // The expected outcome for a file that is not a valid configuration.
    }
    return 0;
}
