// What the rest of core calls of the formats written with the HDF5 library
// (ckpt_io = 5 and FTI_L4_H5_SINGLE), free of HDF5's own headers. A build
// without HDF5 (MLCKPT_HDF5=OFF) links format/hdf5/hdf5_unavailable.cpp in place
// of the HDF5 translation units: there every entry refuses, and the
// configuration refuses both formats before anything reaches them.
#pragma once

#include <memory>

#include "format/checkpoint_reader.hpp"
#include "format/file_formats.hpp"
#include "format/file_writer.hpp"

namespace mlckpt::core {

// A rank's HDF5 checkpoint file (Hdf5Writer, format/hdf5/hdf5_format.hpp).
std::unique_ptr<FileWriter> create_hdf5_writer(const WriterSetup& setup);
std::unique_ptr<CheckpointReader> open_hdf5_reader(const fs::path& path, const FileRecord& record, DataWhere where);

namespace h5 {

// Whether this build has HDF5 (MLCKPT_HDF5).
bool library_built();
// Whether this HDF5 may be called from two threads at once (built with
// --enable-threadsafe; parallel builds usually are not).
bool hdf5_thread_safe();

}  // namespace h5
}  // namespace mlckpt::core
