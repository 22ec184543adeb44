// FTI-FF files (ckpt_io = 3): the structure, every chunk's hash and every
// variable, read as a restart without metadata reads them.
#include <cstdint>
#include <set>
#include <vector>

#include "common/error.hpp"
#include "format/ftiff/ftiff_file.hpp"
#include "input_file.hpp"

using namespace mlckpt::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fs::path path = mlckpt::fuzz::write_input("checkpoint.fti", data, size);
    try {
        File file = File::open_read(path);
        const ftiff::FileStructure s = ftiff::read_structure(file);
        ftiff::verify_chunks(file, s.layout, 4096);
        std::set<int> ids;
        for (const ftiff::Block& block : s.layout.blocks()) {
            for (const ftiff::Chunk& chunk : block.chunks) ids.insert(chunk.id);
        }
        for (int id : ids) {
            // The buffer a restart protected for the variable: of the size the
            // file holds, so that the chunks themselves are read and checked.
            std::vector<std::byte> out(static_cast<std::size_t>(ftiff::stored_bytes(s.layout, id)));
            ftiff::read_variable(file, s.layout, id, out);
        }
    } catch (const Error&) {
        // The expected outcome for a damaged file.
    }
    return 0;
}
