// Shared L4 containers (ckpt_io = 4): the metadata blocks and the mapping,
// then every task's chunks, found and read as a restart verifies them; and
// the restart's read of one task's own entries (read_task_extents), for
// ranks 0 to 3 at the chunk offsets a valid file would record.
#include <cstdint>

#include "common/error.hpp"
#include "format/data_extents.hpp"
#include "format/shared/container_layout.hpp"
#include "input_file.hpp"

using namespace mlckpt::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fs::path path = mlckpt::fuzz::write_input("container.sion", data, size);
    try {
        File file = File::open_read(path);
        const container::ContainerFile c = container::read_container(file);
        for (std::size_t task = 0; task < c.header.ntasks(); ++task) {
            const int found = c.task_of(c.header.global_ranks[task]);
            crc32_of_extents(file, c.extents_of(static_cast<std::size_t>(found)), 4096);
        }
    } catch (const Error&) {
        // The expected outcome for a damaged file.
    }
    for (std::int64_t rank = 0; rank < 4; ++rank) {
        try {
            File file = File::open_read(path);
            const std::uint64_t offset = 4096 * static_cast<std::uint64_t>(rank + 1);
            if (auto extents =
                    container::read_task_extents(file, rank, offset, 100 * static_cast<std::uint64_t>(rank))) {
                crc32_of_extents(file, *extents, 4096);
            }
        } catch (const Error&) {
        }
    }
    return 0;
}
