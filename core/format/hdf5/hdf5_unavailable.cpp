// The HDF5 entries of a build without HDF5 (MLCKPT_HDF5=OFF), linked in
// place of the HDF5 translation units. The configuration refuses
// ckpt_io = 5 and h5_single_file_enable = 1 first (config/config.cpp);
// what still reaches these (a tool shown an HDF5 checkpoint, a restart
// from one) gets the same refusal.
#include <string>

#include "common/error.hpp"
#include "format/hdf5/hdf5_global_file.hpp"
#include "format/hdf5/hdf5_library.hpp"

namespace mlckpt::core {

namespace {

[[noreturn]] void refuse(const std::string& what) {
    fail(ErrorKind::usage, what +
                               ": this mlckpt was built without HDF5 (MLCKPT_HDF5=OFF); rebuild it with "
                               "MLCKPT_HDF5=ON (Spack: mlckpt+hdf5) for HDF5 checkpoints");
}

}  // namespace

std::unique_ptr<FileWriter> create_hdf5_writer(const WriterSetup& setup) {
    refuse("writing the HDF5 checkpoint file '" + setup.name + "'");
}

std::unique_ptr<CheckpointReader> open_hdf5_reader(const fs::path& path, const FileRecord&, DataWhere) {
    refuse("reading the HDF5 checkpoint file '" + path.string() + "'");
}

namespace h5 {

bool library_built() {
    return false;
}

bool hdf5_thread_safe() {
    return false;
}

void write_global_file(MPI_Comm, const fs::path& file, const GlobalSchema&, std::vector<Piece>, int) {
    refuse("writing the global HDF5 file '" + file.string() + "' (FTI_L4_H5_SINGLE)");
}

struct GlobalFileReader::Open {};

GlobalFileReader::GlobalFileReader(const fs::path& file) {
    refuse("reading the global HDF5 file '" + file.string() + "' (FTI_L4_H5_SINGLE)");
}

GlobalFileReader::~GlobalFileReader() = default;

// A reader is never constructed in this build.
GlobalIndex GlobalFileReader::index() const {
    refuse("a global HDF5 file's index");
}

void GlobalFileReader::verify(const std::string& path, const SubsetRecord&) const {
    refuse("'" + path + "'");
}

std::uint64_t GlobalFileReader::byte_offset(const std::string& path, const std::vector<std::uint64_t>&) const {
    refuse("'" + path + "'");
}

void GlobalFileReader::read(const std::string& path, const std::vector<std::uint64_t>&,
                            const std::vector<std::uint64_t>&, const Type&, std::span<std::byte>) const {
    refuse("'" + path + "'");
}

}  // namespace h5
}  // namespace mlckpt::core
