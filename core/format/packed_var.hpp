// Reading a packed (compressed) variable from a rank's checkpoint data,
// whatever the file around it (compress/packed_frame.hpp has the frame).
#pragma once

#include <functional>
#include <span>

#include "format/checkpoint_meta.hpp"
#include "format/data_extents.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

// Reads packed variable `var` (its frame: var.stored bytes from var.offset
// of the stream `extents` of `file`) into `out` (var.size bytes),
// decompressing its blocks on the codec threads. Every block's CRC-32 is
// checked before it is decompressed, and the variable's CRC-32 after.
// Throws a corrupt Error naming the file, the variable and the block.
void read_packed_var(const File& file, const Extents& extents, const VarRecord& var, std::span<std::byte> out);

// The same, handing the variable's bytes to `use` in order, a batch of at
// most 16 MiB at a time, each once checked; the variable's CRC-32 is checked
// after the last.
void stream_packed_var(const File& file, const Extents& extents, const VarRecord& var,
                       const std::function<void(std::span<const std::byte>)>& use);

}  // namespace mlckpt::core
