// What the mlckpt commands read files with.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mlckpt::tools {

// The pieces files are read and written in.
inline constexpr std::size_t kBufferBytes = 1 << 20;
// Far more than the metadata of any run (a few hundred bytes per rank and
// variable, or per file of a dataset); a larger file is not read whole.
inline constexpr std::uint64_t kMaxMetadataBytes = std::uint64_t{1} << 30;

}  // namespace mlckpt::tools
