#include "io/placed_output.hpp"

#include <algorithm>
#include <vector>

namespace mlckpt::core {

void FileOutput::write_at(std::span<const std::byte> bytes, std::uint64_t offset) {
    file_.write_all_at(bytes, offset);
}

void FileOutput::zeros_at(std::uint64_t offset, std::uint64_t length) {
    static const std::vector<std::byte> zeros(1 << 16);
    for (std::uint64_t done = 0; done < length;) {
        auto n = static_cast<std::size_t>(std::min<std::uint64_t>(zeros.size(), length - done));
        file_.write_all_at(std::span(zeros.data(), n), offset + done);
        done += n;
    }
}

}  // namespace mlckpt::core
