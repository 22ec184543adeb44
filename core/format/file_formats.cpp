#include "format/file_formats.hpp"

#include <iterator>

#include "common/error.hpp"
#include "format/ftiff/ftiff_reader.hpp"
#include "format/hdf5/hdf5_library.hpp"
#include "format/posix/posix_format.hpp"
#include "format/stream_reader.hpp"

namespace mlckpt::core {

namespace {

std::unique_ptr<FileWriter> create_posix_writer(const WriterSetup& s) {
    return std::make_unique<PosixWriter>(File::create(s.dir, s.name), s.write_path, s.packing);
}

std::unique_ptr<FileWriter> create_ftiff_writer(const WriterSetup& s) {
    return std::make_unique<FtiffWriter>(File::create(s.dir, s.name), *s.layout, s.sizes);
}

// clang-format off
const FileFormat kFormats[] = {
    // io                name                continues  shared  writer               reader                 verifier
    {IoMode::posix,     "POSIX",            false,     false,  create_posix_writer, open_posix_reader,     verify_posix_file},
    {IoMode::mpiio,     "MPI-IO",           false,     true,   nullptr,             open_mpiio_reader,     verify_mpiio_data},
    {IoMode::ftiff,     "FTI-FF",           true,      false,  create_ftiff_writer, open_ftiff_reader,     verify_ftiff_data},
    {IoMode::container, "shared container", false,     true,   nullptr,             open_container_reader, verify_container_data},
    // HDF5 files: opening one checks the bytes outside its datasets
    // (HDF5's records), reading a dataset its CRC-32; whole, they are
    // checked like POSIX files (size and CRC-32 of every byte), with no
    // HDF5 call: verifiers also run on the background thread, and Debian's
    // HDF5 is not built thread-safe.
    {IoMode::hdf5,      "HDF5",             false,     false,  create_hdf5_writer,  open_hdf5_reader,      verify_posix_file},
};
// clang-format on

const FileFormat* find(long value) {
    for (const FileFormat& f : kFormats) {
        if (static_cast<long>(f.io) == value) return &f;
    }
    return nullptr;
}

}  // namespace

const FileFormat& file_format_of(IoMode io) {
    const FileFormat* f = find(static_cast<long>(io));
    if (f == nullptr) fail(ErrorKind::corrupt, "unknown checkpoint I/O mode " + std::to_string(static_cast<int>(io)));
    return *f;
}

bool is_registered_format(long value) {
    return find(value) != nullptr;
}

}  // namespace mlckpt::core
