#include "format/hdf5/hdf5_global_layout.hpp"

namespace mlckpt::core::h5 {

std::vector<hsize_t> to_hsize(const std::vector<std::uint64_t>& v) {
    return {v.begin(), v.end()};
}

Handle simple_space(const Site& site, const std::vector<std::uint64_t>& dims, const std::string& what) {
    const std::vector<hsize_t> d = to_hsize(dims);
    return site.own(H5Screate_simple(static_cast<int>(d.size()), d.data(), nullptr), H5Sclose, "space of " + what);
}

BlockSelection select_block(const Site& site, hid_t space, const std::vector<std::uint64_t>& offset,
                            const std::vector<std::uint64_t>& count, const std::string& what) {
    BlockSelection s;
    s.file = site.own(H5Scopy(space), H5Sclose, "space of " + what);
    const std::vector<hsize_t> start = to_hsize(offset);
    const std::vector<hsize_t> n = to_hsize(count);
    site.check(H5Sselect_hyperslab(s.file.get(), H5S_SELECT_SET, start.data(), nullptr, n.data(), nullptr),
               "select " + what);
    s.memory = simple_space(site, count, what);
    return s;
}

int read_int_attribute(const Site& site, hid_t object, const char* name, const std::string& where) {
    int value = 0;
    Handle attr =
        site.own(H5Aopen(object, name, H5P_DEFAULT), H5Aclose, "attribute '" + std::string(name) + "' of " + where);
    site.check(H5Aread(attr.get(), H5T_NATIVE_INT, &value), "read attribute '" + std::string(name) + "' of " + where);
    return value;
}

std::uint64_t element_address(std::uint64_t start, const std::vector<std::uint64_t>& dims,
                              const std::vector<std::uint64_t>& offset, std::uint64_t element) {
    std::uint64_t linear = 0;
    for (std::size_t k = 0; k < dims.size(); ++k) linear = linear * dims[k] + offset[k];
    return start + linear * element;
}

}  // namespace mlckpt::core::h5
