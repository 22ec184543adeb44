#include <algorithm>
#include <memory>

#include "format/hdf5/hdf5_global_file.hpp"
#include "format/hdf5/hdf5_global_layout.hpp"
#include "format/hdf5/hdf5_types.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core::h5 {

// The open file, and where its errors point.
struct GlobalFileReader::Open {
    Site site;
    Handle file;
};

GlobalFileReader::~GlobalFileReader() = default;

GlobalFileReader::GlobalFileReader(const fs::path& file) : open_(std::make_unique<Open>()) {
    silence_errors();
    open_->site = Site{file, ErrorKind::corrupt};
    open_->file = open_->site.own(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open");
}

GlobalIndex GlobalFileReader::index() const {
    GlobalIndex index;
    index.ckpt_id = read_int_attribute(open_->site, open_->file.get(), kCkptAttribute, "the file");
    index.writers = read_int_attribute(open_->site, open_->file.get(), kRanksAttribute, "the file");
    struct Visit {
        const Site* site;
        GlobalIndex* index;
    } visit{&open_->site, &index};
    auto collect = [](hid_t root, const char* name, const H5O_info_t* info, void* data) -> herr_t {
        auto* v = static_cast<Visit*>(data);
        if (info->type != H5O_TYPE_DATASET || std::string(name) == kSubsetTable) return 0;
        if (H5Aexists_by_name(root, name, kIdAttribute, H5P_DEFAULT) <= 0) return 0;
        hid_t ds = H5Dopen2(root, name, H5P_DEFAULT);
        if (ds < 0) return -1;
        Handle owned(ds, H5Dclose);
        StoredDataset d;
        d.path = std::string("/") + name;
        d.id = read_int_attribute(*v->site, ds, kIdAttribute, "'" + d.path + "'");
        Handle space(H5Dget_space(ds), H5Sclose);
        const int rank = H5Sget_simple_extent_ndims(space.get());
        if (rank < 0 || rank > 32) return -1;
        std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
        if (H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0) return -1;
        d.dims.assign(dims.begin(), dims.end());
        v->index->datasets.push_back(std::move(d));
        return 0;
    };
    open_->site.check(H5Ovisit(open_->file.get(), H5_INDEX_NAME, H5_ITER_INC, collect, &visit),
                      "list the global datasets");

    const std::string what = std::string("the subset table '") + kSubsetTable + "'";
    Handle table = open_->site.own(H5Dopen2(open_->file.get(), kSubsetTable, H5P_DEFAULT), H5Dclose, what);
    Handle space = open_->site.own(H5Dget_space(table.get()), H5Sclose, "space of " + what);
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_ndims(space.get()) != 2 || H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0 ||
        dims[1] < kFixedColumns + 2 || (dims[1] - kFixedColumns) % 2 != 0) {
        open_->site.raise(what + " is not a table of " + std::to_string(kFixedColumns) + " + 2 x rank columns");
    }
    const std::size_t width = dims[1];
    const std::size_t max_rank = (width - kFixedColumns) / 2;
    std::vector<std::uint64_t> rows(dims[0] * width);
    if (!rows.empty()) {
        open_->site.check(H5Dread(table.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()),
                          "read " + what);
    }
    for (std::size_t i = 0; i < dims[0]; ++i) {
        const std::uint64_t* row = rows.data() + i * width;
        SubsetRecord s;
        s.dataset_id = static_cast<int>(static_cast<std::int64_t>(row[0]));
        s.writer = static_cast<int>(row[1]);
        s.var = static_cast<int>(static_cast<std::int64_t>(row[2]));
        s.crc32 = static_cast<std::uint32_t>(row[kCrcColumn]);
        const std::uint64_t rank = row[4];
        const StoredDataset* d = index.find(s.dataset_id);
        if (d == nullptr || rank != d->dims.size() || rank > max_rank || row[kCrcColumn] > 0xffffffffu) {
            open_->site.raise(what + ": row " + std::to_string(i) + " does not describe a subset of a global dataset");
        }
        s.offset.assign(row + kFixedColumns, row + kFixedColumns + rank);
        s.count.assign(row + kFixedColumns + max_rank, row + kFixedColumns + max_rank + rank);
        for (std::size_t k = 0; k < rank; ++k) {
            if (s.offset[k] > d->dims[k] || s.count[k] > d->dims[k] - s.offset[k]) {
                open_->site.raise(what + ": row " + std::to_string(i) + " lies outside '" + d->path + "'");
            }
        }
        index.subsets.push_back(std::move(s));
    }
    return index;
}

std::uint64_t GlobalFileReader::byte_offset(const std::string& path, const std::vector<std::uint64_t>& coords) const {
    Handle ds = open_->site.own(H5Dopen2(open_->file.get(), path.c_str(), H5P_DEFAULT), H5Dclose, "'" + path + "'");
    Handle type = open_->site.own(H5Dget_type(ds.get()), H5Tclose, "type of '" + path + "'");
    Handle space = open_->site.own(H5Dget_space(ds.get()), H5Sclose, "space of '" + path + "'");
    std::vector<hsize_t> dims(coords.size());
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    const haddr_t start = H5Dget_offset(ds.get());
    if (start == HADDR_UNDEF) open_->site.raise("'" + path + "' has no contiguous storage");
    return element_address(start, {dims.begin(), dims.end()}, coords, H5Tget_size(type.get()));
}

void GlobalFileReader::verify(const std::string& path, const SubsetRecord& s) const {
    Handle ds = open_->site.own(H5Dopen2(open_->file.get(), path.c_str(), H5P_DEFAULT), H5Dclose, "'" + path + "'");
    Handle type = open_->site.own(H5Dget_type(ds.get()), H5Tclose, "type of '" + path + "'");
    Handle space = open_->site.own(H5Dget_space(ds.get()), H5Sclose, "space of '" + path + "'");
    const std::uint64_t element = H5Tget_size(type.get());
    std::uint64_t bytes = element;
    for (std::uint64_t c : s.count) bytes *= c;
    // In pieces, into one buffer: the memory a subset takes does not grow
    // with it. Read in the file's own type: the bytes as written.
    std::vector<std::byte> buffer(std::min(bytes, std::max(kVerifyPiece, element)));
    Crc32 crc;
    const std::string what = "the subset of variable " + std::to_string(s.var) + " of rank " +
                             std::to_string(s.writer) + " in '" + path + "'";
    for_each_row_major_piece(s.offset, s.count, element, kVerifyPiece,
                             [&](const std::vector<std::uint64_t>& at, const std::vector<std::uint64_t>& n) {
                                 BlockSelection piece = select_block(open_->site, space.get(), at, n, what);
                                 std::uint64_t length = element;
                                 for (std::uint64_t c : n) length *= c;
                                 open_->site.check(H5Dread(ds.get(), type.get(), piece.memory.get(), piece.file.get(),
                                                           H5P_DEFAULT, buffer.data()),
                                                   "read " + what);
                                 crc.update(std::span<const std::byte>(buffer.data(), length));
                             });
    if (crc.value() != s.crc32) {
        fail(Damage::checksum, "HDF5 file '" + open_->site.file.string() + "': the subset of '" + path +
                                   "' that rank " + std::to_string(s.writer) + " wrote from variable " +
                                   std::to_string(s.var) + " fails its checksum (recorded " + crc32_hex(s.crc32) +
                                   ", computed " + crc32_hex(crc.value()) + ")");
    }
}

void GlobalFileReader::read(const std::string& path, const std::vector<std::uint64_t>& offset,
                            const std::vector<std::uint64_t>& count, const Type& memory_type,
                            std::span<std::byte> out) const {
    if (out.empty()) return;
    Handle ds = open_->site.own(H5Dopen2(open_->file.get(), path.c_str(), H5P_DEFAULT), H5Dclose, "'" + path + "'");
    Handle type = make_datatype(memory_type, open_->site);
    Handle space = open_->site.own(H5Dget_space(ds.get()), H5Sclose, "space of '" + path + "'");
    BlockSelection block = select_block(open_->site, space.get(), offset, count, "a subset of '" + path + "'");
    open_->site.check(H5Dread(ds.get(), type.get(), block.memory.get(), block.file.get(), H5P_DEFAULT, out.data()),
                      "read a subset of '" + path + "'");
}

}  // namespace mlckpt::core::h5
