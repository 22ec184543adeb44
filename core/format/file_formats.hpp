// The registration of the checkpoint file formats: one entry per IoMode,
// giving what the engine needs of a format (its name, how its files are
// written, read and verified). Adding a format is its writer (FileWriter)
// and reader (CheckpointReader) classes plus one entry in file_formats.cpp.
#pragma once

#include <memory>

#include "format/checkpoint_reader.hpp"
#include "format/file_writer.hpp"
#include "format/ftiff/ftiff_layout.hpp"
#include "format/ftiff/ftiff_writer.hpp"
#include "format/hdf5/hdf5_schema.hpp"
#include "format/posix/posix_format.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

// What a per-rank writer is created with.
struct WriterSetup {
    Directory dir;     // the checkpoint's directory
    std::string name;  // a temporary name in it; the engine renames it when committed
    WritePath write_path = WritePath::page_cache;
    // Formats whose files continue the previous checkpoint's layout (FTI-FF).
    const ftiff::Layout* layout = nullptr;
    FtiffWriter::Sizes sizes;
    // HDF5 files: the datasets' names, groups, shapes and types.
    std::shared_ptr<const h5::Schema> hdf5_schema;
    // POSIX and HDF5 files: how the variables are stored (compressed or not).
    Packing packing;
};

struct FileFormat {
    IoMode io;
    const char* name;  // for messages: "POSIX", "FTI-FF", ...
    // Whether the file continues the previous checkpoint's layout, which
    // the engine then prepares (WriterSetup::layout and sizes).
    bool continues_layout;
    // At L4, one file (or a few) for every rank, written together through
    // format/shared/shared_file; at L1-L3 such a format writes POSIX files.
    bool shared;
    // Per-rank files; nullptr for shared formats.
    std::unique_ptr<FileWriter> (*create_writer)(const WriterSetup&);
    // Opens a rank's data and checks its structure (see open_checkpoint_reader).
    std::unique_ptr<CheckpointReader> (*open_reader)(const fs::path&, const FileRecord&, DataWhere);
    // Verifies a rank's data whole (see verify_checkpoint_file).
    void (*verify)(const fs::path&, const FileRecord&, std::size_t buffer_bytes);
};

// The registered format of `io`; throws a corrupt Error for a value no
// format has (read from a damaged file).
const FileFormat& file_format_of(IoMode io);
// Whether `value` (ckpt_io, or a metadata file's IO) names a format.
bool is_registered_format(long value);

}  // namespace mlckpt::core
