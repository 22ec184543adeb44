// Packed (compressed) variables (compress/packed_frame.hpp): the input is a
// checkpoint file holding one variable's frame, read as a restart reads it
// (read_packed_var: trailer, table, every block's CRC, c-blosc's
// decompression, the variable's CRC), with the raw size the trailer claims
// as the metadata's, up to 16 MiB.
#include <cstdint>
#include <vector>

#include "common/byte_order.hpp"
#include "common/error.hpp"
#include "compress/packed_frame.hpp"
#include "format/packed_var.hpp"
#include "input_file.hpp"

using namespace mlckpt::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < kPackedTrailerBytes) return 0;
    const auto raw_size = load_le<std::uint64_t>(reinterpret_cast<const std::byte*>(data) + size - kPackedTrailerBytes);
    if (raw_size > (std::uint64_t{16} << 20)) return 0;  // the metadata would say so: a wrong size is refused first
    const fs::path path = mlckpt::fuzz::write_input("packed.fti", data, size);
    VarRecord var;
    var.id = 1;
    var.stored = size;
    var.size = raw_size;
    std::vector<std::byte> out(static_cast<std::size_t>(raw_size));
    try {
        read_packed_var(File::open_read(path), {{0, size}}, var, out);
    } catch (const Error&) {
        // The expected outcome for a damaged frame (the CRC of the variable
        // is never the one the input holds, but the blocks are reached).
    }
    return 0;
}
