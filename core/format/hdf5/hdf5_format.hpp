// ckpt_io = 5: a rank's checkpoint is one HDF5 file, written with the
// serial HDF5 API, of the structure FTI gives it. Each protected variable
// is a dataset (docs/hdf5.md): its name, group and shape from h5::Schema,
// its element type from FTI's types (committed as FTI commits them); the
// bytes are the application's, unconverted. The metadata's VAR record
// holds the dataset's path, its offset in the file (0 for a compressed,
// chunked dataset) and the CRC-32 of its bytes; the FILE record holds the size and CRC-32 of the whole file, so partner
// copies, parity and the L4 flush handle it as bytes, like a POSIX file. A restart checks the bytes outside the
// datasets before HDF5 opens the file, and each dataset when it is read.
#pragma once

#include <memory>
#include <optional>

#include "format/checkpoint_reader.hpp"
#include "format/file_writer.hpp"
#include "format/hdf5/hdf5_handle.hpp"
#include "format/hdf5/hdf5_named_types.hpp"
#include "format/hdf5/hdf5_schema.hpp"
#include "format/posix/posix_format.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

class Hdf5Writer final : public FileWriter {
  public:
    // `schema` may be null: every variable is then a one-dimensional
    // dataset of bytes named after its id.
    // Creates `name` in `dir` exclusively (a leftover at the name is
    // removed first, never followed). HDF5 writes its own records only: it
    // allocates each dataset when it creates it (aligned to 4 KiB when it
    // has 4 KiB or more, unfilled), and the library writes the bytes at the
    // dataset's offset as it writes a POSIX file's (`path_kind`), with
    // their CRC-32 on the way.
    // With a `packing` codec, every dataset of kMinPackedBytes or more is
    // chunked and compressed by HDF5's own filters instead (chunks of about
    // packing.block_bytes; see h5::compressed_dataset_creation), and HDF5
    // writes its bytes; error bounds do not apply (stored losslessly).
    Hdf5Writer(const Directory& dir, const std::string& name, std::shared_ptr<const h5::Schema> schema,
               WritePath path_kind = WritePath::page_cache, Packing packing = {});

    void add(int id, std::span<const std::byte> data, const std::string& name) override;
    bool has(int id) const override { return record_.find_var(id) != nullptr; }
    FileRecord finish() override;

  private:
    // Writes `data` into the new dataset `ds` where its bytes lie (the
    // library's writes), returns that offset; `crc` gets the bytes.
    std::uint64_t write_placed(hid_t ds, const std::string& path, std::span<const std::byte> data, Crc32& crc);

    h5::Site site_;
    std::shared_ptr<const h5::Schema> schema_;
    WritePath path_kind_;
    Packing packing_;
    h5::Handle file_;
    h5::Handle creation_;  // the datasets' creation properties
    std::optional<h5::NamedTypes> named_types_;
    std::optional<File> data_;  // a second descriptor: the datasets' bytes
    FileRecord record_;
};

}  // namespace mlckpt::core
