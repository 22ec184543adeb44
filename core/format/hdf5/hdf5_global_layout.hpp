// The parts of the global HDF5 file (format/hdf5/hdf5_global_file.hpp) that
// its writer and its reader share: the names of its attributes, the columns
// of its subset table, and how a block of a dataset is selected, cut into
// pieces and located in the file.
#pragma once

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "format/hdf5/hdf5_handle.hpp"

namespace mlckpt::core::h5 {

inline constexpr const char* kIdAttribute = "mlckpt_id";
inline constexpr const char* kCkptAttribute = "mlckpt_ckpt_id";
inline constexpr const char* kRanksAttribute = "mlckpt_ranks";
inline constexpr const char* kColumnsAttribute = "columns";
// The most bytes of a subset that verify() reads at once.
inline constexpr std::uint64_t kVerifyPiece = std::uint64_t{8} << 20;
// The subset table's fixed columns; offset[rank] and count[rank] follow.
inline constexpr int kFixedColumns = 5;  // dataset id, writer, variable, CRC-32, rank
inline constexpr int kCrcColumn = 3;
inline constexpr const char* kColumnsText =
    "dataset_id, writer_rank, variable_id, crc32, rank, offset[0..rank-1] then count[0..rank-1] "
    "at columns 5.. and 5+max_rank..";

std::vector<hsize_t> to_hsize(const std::vector<std::uint64_t>& v);
Handle simple_space(const Site& site, const std::vector<std::uint64_t>& dims, const std::string& what);

// What one H5Dread or H5Dwrite of a block moves: the hyperslab (offset,
// count) selected in a copy of the dataset's space `space`, and a memory
// space of `count`. `what` names the block in messages.
struct BlockSelection {
    Handle file;
    Handle memory;
};
BlockSelection select_block(const Site& site, hid_t space, const std::vector<std::uint64_t>& offset,
                            const std::vector<std::uint64_t>& count, const std::string& what);

// Cuts the block (offset, count) of elements of `element` bytes into
// row-major pieces of at most `limit` bytes (one element at least) and hands
// each to use(offset, count), in order: the pieces' bytes, one after the
// other, are the block's as one read would lay them out.
template <typename Use>
void for_each_row_major_piece(const std::vector<std::uint64_t>& offset, const std::vector<std::uint64_t>& count,
                              std::uint64_t element, std::uint64_t limit, Use&& use) {
    const std::size_t rank = count.size();
    if (std::any_of(count.begin(), count.end(), [](std::uint64_t c) { return c == 0; })) return;
    if (rank == 0) {
        use(offset, count);
        return;
    }
    // The first dimension whose one step (the elements of the dimensions
    // after it) fits the limit is cut in steps; those before it go one by one.
    std::vector<std::uint64_t> step_bytes(rank);
    step_bytes[rank - 1] = element;
    for (std::size_t k = rank - 1; k > 0; --k) step_bytes[k - 1] = step_bytes[k] * count[k];
    std::size_t cut = 0;
    while (cut + 1 < rank && step_bytes[cut] > limit) ++cut;
    const std::uint64_t step = std::max<std::uint64_t>(1, limit / step_bytes[cut]);

    std::vector<std::uint64_t> at(offset);
    std::vector<std::uint64_t> n(count);
    for (std::size_t k = 0; k < cut; ++k) n[k] = 1;
    for (;;) {
        for (std::uint64_t j = 0; j < count[cut]; j += step) {
            at[cut] = offset[cut] + j;
            n[cut] = std::min(step, count[cut] - j);
            use(at, n);
        }
        // The next index of the dimensions before `cut`, last fastest.
        std::size_t k = cut;
        while (k > 0) {
            --k;
            if (++at[k] < offset[k] + count[k]) break;
            at[k] = offset[k];
            if (k == 0) return;
        }
        if (cut == 0) return;
    }
}

int read_int_attribute(const Site& site, hid_t object, const char* name, const std::string& where);

// Where the element at `offset` of a dataset of `dims` lies in its
// contiguous storage, which starts at `start`.
std::uint64_t element_address(std::uint64_t start, const std::vector<std::uint64_t>& dims,
                              const std::vector<std::uint64_t>& offset, std::uint64_t element);

}  // namespace mlckpt::core::h5
