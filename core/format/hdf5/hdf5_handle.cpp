#include "format/hdf5/hdf5_handle.hpp"
#include "format/hdf5/hdf5_library.hpp"

#include <algorithm>

#include "io/direct_io.hpp"

namespace mlckpt::core::h5 {

namespace {

// HDF5's error stack, innermost call first: "H5Dopen2: unable to open ...".
std::string take_error_stack() {
    std::string text;
    auto collect = [](unsigned, const H5E_error2_t* e, void* out) -> herr_t {
        auto& s = *static_cast<std::string*>(out);
        if (!s.empty()) s += "; ";
        s += std::string(e->func_name ? e->func_name : "?") + ": " + (e->desc ? e->desc : "");
        return 0;
    };
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect, &text);
    H5Eclear2(H5E_DEFAULT);
    return text.empty() ? "no HDF5 message" : text;
}

}  // namespace

Handle& Handle::operator=(Handle&& other) noexcept {
    if (this != &other) {
        reset();
        id_ = other.id_;
        closer_ = other.closer_;
        other.id_ = H5I_INVALID_HID;
    }
    return *this;
}

herr_t Handle::close() noexcept {
    herr_t status = 0;
    if (id_ >= 0 && closer_ != nullptr) status = closer_(id_);
    id_ = H5I_INVALID_HID;
    return status;
}

void Handle::reset() noexcept {
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = H5I_INVALID_HID;
}

Handle Site::own(hid_t id, Handle::Closer closer, const std::string& what) const {
    if (id < 0) raise(what);
    return Handle(id, closer);
}

void Site::check(herr_t status, const std::string& what) const {
    if (status < 0) raise(what);
}

void Site::raise(const std::string& what) const {
    fail(kind, "HDF5 file '" + file.string() + "': " + what + ": " + take_error_stack());
}

void silence_errors() {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

bool library_built() {
    return true;
}

bool hdf5_thread_safe() {
    hbool_t safe = false;
    return H5is_library_threadsafe(&safe) >= 0 && safe;
}

void align_for_direct_io(const Site& site, hid_t access) {
    site.check(H5Pset_alignment(access, kDirectAlign, kDirectAlign), "alignment");
}

Handle placed_dataset_creation(const Site& site) {
    Handle creation = site.own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dataset creation properties");
    site.check(H5Pset_layout(creation.get(), H5D_CONTIGUOUS), "contiguous layout");
    site.check(H5Pset_alloc_time(creation.get(), H5D_ALLOC_TIME_EARLY), "early allocation");
    site.check(H5Pset_fill_time(creation.get(), H5D_FILL_TIME_NEVER), "no fill");
    return creation;
}

Handle compressed_dataset_creation(const Site& site, const std::vector<hsize_t>& chunk) {
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0) {
        site.raise(
            "this HDF5 has no deflate filter, which compressed HDF5 checkpoints use; allowed: [compression] "
            "none for ckpt_io = 5, or an HDF5 built with zlib");
    }
    Handle creation = site.own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dataset creation properties");
    site.check(H5Pset_chunk(creation.get(), static_cast<int>(chunk.size()), chunk.data()), "chunked layout");
    site.check(H5Pset_fill_time(creation.get(), H5D_FILL_TIME_NEVER), "no fill");
    site.check(H5Pset_shuffle(creation.get()), "shuffle filter");
    site.check(H5Pset_deflate(creation.get(), 1), "deflate filter");
    site.check(H5Pset_fletcher32(creation.get()), "Fletcher-32 filter");
    return creation;
}

std::vector<hsize_t> chunk_shape(const std::vector<hsize_t>& dims, std::size_t element, std::size_t target_bytes) {
    if (std::find(dims.begin(), dims.end(), hsize_t{0}) != dims.end()) return {};
    std::vector<hsize_t> chunk(dims.size());
    const hsize_t target = std::max<hsize_t>(1, target_bytes / std::max<std::size_t>(1, element));
    hsize_t inner = 1;  // elements of one chunk in the dimensions after k
    for (std::size_t k = dims.size(); k-- > 0;) {
        chunk[k] = std::min(dims[k], std::max<hsize_t>(1, target / inner));
        inner *= chunk[k];
    }
    return chunk;
}

void write_attribute(const Site& site, hid_t object, const char* name, hid_t type, const std::vector<hsize_t>& dims,
                     const void* value) {
    Handle space = dims.empty() ? site.own(H5Screate(H5S_SCALAR), H5Sclose, "attribute space")
                                : site.own(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                                           H5Sclose, "attribute space");
    Handle attr = site.own(H5Acreate2(object, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                           std::string("attribute '") + name + "'");
    site.check(H5Awrite(attr.get(), type, value), std::string("attribute '") + name + "'");
}

void write_string_attribute(const Site& site, hid_t object, const char* name, std::string_view text) {
    const std::string value(text);  // NUL-terminated
    Handle str = site.own(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
    site.check(H5Tset_size(str.get(), value.size() + 1), "string type");
    write_attribute(site, object, name, str.get(), {}, value.c_str());
}

}  // namespace mlckpt::core::h5
