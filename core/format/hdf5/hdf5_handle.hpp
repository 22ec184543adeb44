// Checked calls into the HDF5 C library: every identifier is owned by a
// Handle that closes it, and every failure becomes an Error naming the file,
// what was being done and HDF5's own message (HDF5's printing of errors is
// turned off, so nothing reaches stderr behind the library's log).
#pragma once

#include <hdf5.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace mlckpt::core::h5 {

class Handle {
  public:
    using Closer = herr_t (*)(hid_t);
    Handle() = default;
    Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
    Handle(Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = H5I_INVALID_HID; }
    Handle& operator=(Handle&& other) noexcept;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { reset(); }

    hid_t get() const { return id_; }
    void reset() noexcept;
    // Closes now and returns the closer's status (negative: it failed).
    herr_t close() noexcept;

  private:
    hid_t id_ = H5I_INVALID_HID;
    Closer closer_ = nullptr;
};

// Where calls report their failures: the file and the kind of Error
// (io while writing, corrupt while reading a checkpoint).
struct Site {
    std::filesystem::path file;
    ErrorKind kind = ErrorKind::io;

    // Throws when `id` is negative; else wraps it.
    Handle own(hid_t id, Handle::Closer closer, const std::string& what) const;
    // Throws when `status` is negative.
    void check(herr_t status, const std::string& what) const;
    [[noreturn]] void raise(const std::string& what) const;
};

// Turns off HDF5's automatic error printing for the calling thread.
void silence_errors();

// For files whose datasets' bytes the library writes itself, at the
// datasets' addresses, around the page cache: every object of 4 KiB or
// more starts at a 4 KiB boundary (set on the file access properties
// `access`), and datasets made with placed_dataset_creation() have
// contiguous storage, allocated when they are created and never filled,
// so that where each lies (H5Dget_offset) is known at once and HDF5
// writes none of their bytes.
void align_for_direct_io(const Site& site, hid_t access);
Handle placed_dataset_creation(const Site& site);

// For datasets that HDF5 compresses ([compression]): chunks of `chunk`
// elements, each shuffled by the element's size, deflated (level 1: the
// fastest, which keeps most of the ratio on shuffled numerical data) and
// closed by a Fletcher-32 checksum of its stored bytes. These filters are
// built into HDF5, so any HDF5 reader (h5py, h5dump) reads the file.
Handle compressed_dataset_creation(const Site& site, const std::vector<hsize_t>& chunk);

// The chunk shape of a dataset of extents `dims` and `element` bytes per
// element that holds about `target_bytes` (at least one element): whole
// rows of the trailing dimensions, as many as fit. Empty when a dimension
// is 0 (such a dataset cannot be chunked; it has no bytes).
std::vector<hsize_t> chunk_shape(const std::vector<hsize_t>& dims, std::size_t element, std::size_t target_bytes);

// Writes attribute `name` of `object`, of `type`: a scalar when `dims` is
// empty, else an array of `dims`; `value` holds it in `type`.
void write_attribute(const Site& site, hid_t object, const char* name, hid_t type, const std::vector<hsize_t>& dims,
                     const void* value);
// Writes attribute `name` of `object`: a string of `text`'s length and its
// terminating NUL.
void write_string_attribute(const Site& site, hid_t object, const char* name, std::string_view text);

}  // namespace mlckpt::core::h5
