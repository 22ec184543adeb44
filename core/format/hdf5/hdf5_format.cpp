#include "format/hdf5/hdf5_format.hpp"
#include "format/hdf5/hdf5_library.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "format/data_extents.hpp"
#include "format/posix/posix_format.hpp"
#include "hash/crc32.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

namespace {

// Files written before the metadata recorded each dataset's path carry
// the variable id as an attribute of its dataset.
constexpr const char* kIdAttribute = "mlckpt_id";
constexpr std::size_t kReadBuffer = std::size_t{1} << 20;

// The dataset of variable `id` holding `bytes` bytes: the schema's, or,
// when the schema does not describe it (a variable protected after the
// checkpoint began) or its shape does not match, "Dataset_<id>" of bytes.
h5::Dataset dataset_for(const h5::Schema* schema, int id, std::uint64_t bytes) {
    if (schema != nullptr) {
        if (auto it = schema->datasets.find(id); it != schema->datasets.end()) {
            std::uint64_t elements = 1;
            for (std::uint64_t d : it->second.dims) elements *= d;
            if (elements * it->second.type->size == bytes) return it->second;
        }
    }
    h5::Dataset d;
    d.name = "Dataset_" + std::to_string(id);
    d.dims = {bytes};
    auto byte = std::make_shared<h5::Type>();
    byte->kind = h5::Type::Kind::primitive;
    byte->primitive = 4;  // FTI_UCHR
    byte->size = 1;
    d.type = std::move(byte);
    return d;
}

std::string dataset_path(const h5::Dataset& d) {
    std::string group = h5::path_text(d.group);
    return (group == "/" ? group : group + "/") + d.name;
}

// FTI_SetAttribute's name (a string) and dim (its extents; none: no
// attribute, HDF5 writes no empty one).
void write_fti_attributes(const h5::Site& site, hid_t dataset, const h5::Dataset& d) {
    if (d.has_attribute_name) {
        h5::write_string_attribute(site, dataset, "name", d.attribute_name);
    }
    if (d.has_attribute_dim && !d.attribute_dim.empty()) {
        h5::write_attribute(site, dataset, "dim", H5T_NATIVE_UINT64, {d.attribute_dim.size()}, d.attribute_dim.data());
    }
}

// The datasets that hold bytes, in the order of the file, when the VAR
// records place each one inside the file of `size` bytes, past the
// superblock and clear of the others; else none (a record without offsets).
std::optional<std::vector<const VarRecord*>> placed_datasets(const FileRecord& record, std::uint64_t size) {
    std::vector<const VarRecord*> placed;
    for (const VarRecord& v : record.vars) {
        if (v.size > 0) placed.push_back(&v);
    }
    std::sort(placed.begin(), placed.end(),
              [](const VarRecord* a, const VarRecord* b) { return a->offset < b->offset; });
    std::uint64_t end = 0;
    for (const VarRecord* v : placed) {
        if (v->offset == 0 || v->offset < end || v->size > size || v->offset > size - v->size) return std::nullopt;
        end = v->offset + v->size;
    }
    return placed;
}

// CRC-32 of the file of `size` bytes from the bytes outside the datasets
// `placed` (in the order of the file), read here, and the datasets' CRC-32s
// from their records, combined in the order of the file.
std::uint32_t crc32_around_datasets(const File& file, const std::vector<const VarRecord*>& placed, std::uint64_t size) {
    std::uint32_t crc = 0;
    std::uint64_t at = 0;
    auto outside = [&](std::uint64_t end) {
        crc = crc32_combine(crc, crc32_of_extents(file, {{at, end - at}}, kReadBuffer), end - at);
    };
    for (const VarRecord* v : placed) {
        outside(v->offset);
        crc = crc32_combine(crc, v->crc32, v->size);
        at = v->offset + v->size;
    }
    outside(size);
    return crc;
}

// Checks the file's size, and every byte that no dataset holds (HDF5's
// records, free space) before HDF5 parses any: their CRC-32, combined with
// the datasets' recorded ones in the order of the file, must be the file's
// (the FILE record's). The datasets' bytes are checked when they are read.
// Returns whether the datasets lie where their VAR records say; when the
// records do not place them, every byte is checked here.
bool verify_outside_datasets(const fs::path& path, const FileRecord& record) {
    const File file = File::open_read(path);
    check_recorded_size(path, file.size(), record);
    const std::optional<std::vector<const VarRecord*>> placed = placed_datasets(record, record.size);
    if (!placed) {
        verify_posix_file(path, record, kReadBuffer);
        return false;
    }
    const std::uint32_t crc = crc32_around_datasets(file, *placed, record.size);
    if (crc != record.crc32) {
        fail(Damage::checksum, "checkpoint file '" + path.string() +
                                   "' fails its checksum: HDF5's records and free space, with the datasets' "
                                   "recorded CRC-32s, give " +
                                   crc32_hex(crc) + ", the file's is " + crc32_hex(record.crc32));
    }
    return true;
}

class Hdf5Reader final : public CheckpointReader {
  public:
    // Checks the bytes outside the datasets first: damage there (HDF5's
    // own records, free space) would not show in the datasets' checksums,
    // and HDF5 never parses a byte that was not checked. Each dataset is
    // checked when it is read.
    Hdf5Reader(const fs::path& path, const FileRecord& record) : site_{path, ErrorKind::corrupt} {
        h5::silence_errors();
        placed_ = verify_outside_datasets(path, record);
        if (placed_) data_.emplace(File::open_read(path));
        file_ = site_.own(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open");
        const bool recorded =
            std::all_of(record.vars.begin(), record.vars.end(), [](const VarRecord& v) { return !v.dataset.empty(); });
        if (!recorded) {
            site_.check(H5Lvisit(file_.get(), H5_INDEX_NAME, H5_ITER_INC, &Hdf5Reader::collect, this), "list datasets");
        }
    }

    void read(const VarRecord& var, std::span<std::byte> out) const override {
        const std::string& path = dataset_of(var);
        h5::Handle ds = site_.own(H5Dopen2(file_.get(), path.c_str(), H5P_DEFAULT), H5Dclose, "dataset '" + path + "'");
        h5::Handle type = site_.own(H5Dget_type(ds.get()), H5Tclose, "type of dataset '" + path + "'");
        h5::Handle space = site_.own(H5Dget_space(ds.get()), H5Sclose, "space of dataset '" + path + "'");
        const hssize_t points = H5Sget_simple_extent_npoints(space.get());
        const std::uint64_t bytes = static_cast<std::uint64_t>(points) * H5Tget_size(type.get());
        if (points < 0 || bytes != out.size()) {
            site_.raise("dataset '" + path + "' holds " + std::to_string(bytes) + " bytes, variable " +
                        std::to_string(var.id) + " has " + std::to_string(out.size()));
        }
        // The bytes read must be those left out of the check above.
        if (placed_ && !out.empty() &&
            (H5Dget_offset(ds.get()) != var.offset || H5Dget_storage_size(ds.get()) != out.size())) {
            site_.raise("dataset '" + path + "' does not lie at offset " + std::to_string(var.offset) + " in " +
                        std::to_string(out.size()) + " contiguous bytes, where its VAR record places it");
        }
        Crc32 running;
        if (placed_ && !out.empty()) {
            // Where the writer put them: the dataset's contiguous storage,
            // read as the POSIX files are, the CRC-32 beside the reads.
            read_overlapped(*data_, var.offset, out,
                            [&running](std::span<const std::byte> piece) { running.update(piece); });
        } else if (!out.empty()) {
            // Read in the file's own type: no conversion, the bytes as written.
            site_.check(H5Dread(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()),
                        "read dataset '" + path + "'");
            running.update(out);
        }
        const std::uint32_t crc = running.value();
        if (crc != var.crc32) {
            fail(Damage::checksum, "HDF5 file '" + site_.file.string() + "': dataset '" + path + "' (variable " +
                                       std::to_string(var.id) + ") fails its checksum (metadata " +
                                       crc32_hex(var.crc32) + ", computed " + crc32_hex(crc) + ")");
        }
    }

  private:
    // Where the metadata says, else (older metadata) the dataset whose
    // attribute names the variable.
    const std::string& dataset_of(const VarRecord& var) const {
        if (!var.dataset.empty()) return var.dataset;
        auto it = paths_.find(var.id);
        if (it == paths_.end()) {
            site_.raise("no dataset has " + std::string(kIdAttribute) + " " + std::to_string(var.id));
        }
        return it->second;
    }

    // H5Lvisit's callback: records every dataset that names its variable.
    static herr_t collect(hid_t group, const char* name, const H5L_info_t* info, void* self) {
        if (info->type != H5L_TYPE_HARD || H5Aexists_by_name(group, name, kIdAttribute, H5P_DEFAULT) <= 0) return 0;
        hid_t attr = H5Aopen_by_name(group, name, kIdAttribute, H5P_DEFAULT, H5P_DEFAULT);
        if (attr < 0) return -1;
        int id = 0;
        herr_t status = H5Aread(attr, H5T_NATIVE_INT, &id);
        H5Aclose(attr);
        if (status < 0) return -1;
        auto* reader = static_cast<Hdf5Reader*>(self);
        return reader->paths_.emplace(id, std::string("/") + name).second ? 0 : -1;  // an id twice: damaged
    }

    h5::Site site_;
    h5::Handle file_;
    bool placed_ = false;       // the VAR records give the datasets' offsets
    std::optional<File> data_;  // the file, for reading placed datasets
    std::map<int, std::string> paths_;
};

}  // namespace

Hdf5Writer::Hdf5Writer(const Directory& dir, const std::string& name, std::shared_ptr<const h5::Schema> schema,
                       WritePath path_kind, Packing packing)
    : site_{dir.path_of(name), ErrorKind::io},
      schema_(std::move(schema)),
      path_kind_(path_kind),
      packing_(std::move(packing)) {
    h5::silence_errors();
    dir.remove(name);  // a leftover of a failed attempt, or a link planted at the name
    // The datasets' bytes go to the device around the page cache, written
    // by the library; HDF5 writes only its records.
    h5::Handle access = site_.own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access properties");
    h5::align_for_direct_io(site_, access.get());
    creation_ = h5::placed_dataset_creation(site_);
    // HDF5 takes a path: through the directory's descriptor, and exclusive
    // (O_CREAT | O_EXCL), so neither a swapped directory nor a link redirects it.
    file_ = site_.own(H5Fcreate(dir.descriptor_path_of(name).c_str(), H5F_ACC_EXCL, H5P_DEFAULT, access.get()),
                      H5Fclose, "create");
    data_.emplace(File::open_update(dir, name));  // the file HDF5 created: never through a link
    record_.file = name;
    std::set<std::string> datasets;
    if (schema_) {
        for (const auto& [id, d] : schema_->datasets) datasets.insert(dataset_path(d));
    }
    named_types_.emplace(file_.get(), site_, std::move(datasets));
    if (!schema_) return;
    for (const h5::GroupPath& g : schema_->groups) {
        const std::string text = h5::path_text(g);
        site_.own(H5Gcreate2(file_.get(), text.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                  "group '" + text + "'");
    }
}

void Hdf5Writer::add(int id, std::span<const std::byte> data, const std::string& name) {
    const h5::Dataset d = dataset_for(schema_.get(), id, data.size());
    const std::string path = dataset_path(d);
    std::vector<hsize_t> dims(d.dims.begin(), d.dims.end());
    const hid_t type = named_types_->dataset_type(d.type);
    h5::Handle space = site_.own(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose,
                                 "space of dataset '" + path + "'");
    std::vector<hsize_t> chunk;
    if (packing_.codec != Codec::none && data.size() >= kMinPackedBytes) {
        chunk = h5::chunk_shape(dims, d.type->size, packing_.block_bytes);
    }
    const h5::Handle compressed = chunk.empty() ? h5::Handle{} : h5::compressed_dataset_creation(site_, chunk);
    const hid_t creation = chunk.empty() ? creation_.get() : compressed.get();
    h5::Handle ds =
        site_.own(H5Dcreate2(file_.get(), path.c_str(), type, space.get(), H5P_DEFAULT, creation, H5P_DEFAULT),
                  H5Dclose, "dataset '" + path + "'");
    std::uint64_t offset = 0;  // none: HDF5 places a chunked dataset's bytes
    Crc32 crc;
    if (!chunk.empty()) {
        // In the file's own type: HDF5 converts nothing, filters the bytes.
        site_.check(H5Dwrite(ds.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
                    "write dataset '" + path + "'");
        crc.update(data);
    } else if (!data.empty()) {
        offset = write_placed(ds.get(), path, data, crc);
    }
    write_fti_attributes(site_, ds.get(), d);
    VarRecord var = describe_var(id, offset, data.size(), crc.value(), name);
    var.dataset = path;
    record_.vars.push_back(std::move(var));
}

// Where the bytes lie: the library writes them there, and a restart checks
// the rest of the file before HDF5 opens it, each dataset when it reads it.
std::uint64_t Hdf5Writer::write_placed(hid_t ds, const std::string& path, std::span<const std::byte> data, Crc32& crc) {
    const haddr_t at = H5Dget_offset(ds);
    if (at == HADDR_UNDEF || H5Dget_storage_size(ds) != data.size()) {
        site_.raise("dataset '" + path + "' has no contiguous storage of " + std::to_string(data.size()) + " bytes");
    }
    write_overlapped(
        *data_, at, data, [&](std::span<const std::byte> piece) { crc.update(piece); }, path_kind_);
    return at;
}

FileRecord Hdf5Writer::finish() {
    named_types_.reset();  // HDF5 closes a file only once nothing in it is open
    site_.check(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "flush");
    site_.check(file_.close(), "close");
    data_->sync();  // HDF5's records and the datasets' bytes: HDF5 does not fsync
    record_.size = data_->size();
    // The file's CRC-32 without a second pass over the data: HDF5's
    // records (read back, they are small) combined with the datasets'.
    const std::optional<std::vector<const VarRecord*>> placed = placed_datasets(record_, record_.size);
    record_.crc32 = placed ? crc32_around_datasets(*data_, *placed, record_.size)
                           : crc32_of_extents(*data_, {{0, record_.size}}, kReadBuffer);
    data_->close();
    record_.complete = true;
    return record_;
}

std::unique_ptr<FileWriter> create_hdf5_writer(const WriterSetup& s) {
    return std::make_unique<Hdf5Writer>(s.dir, s.name, s.hdf5_schema, s.write_path, s.packing);
}

std::unique_ptr<CheckpointReader> open_hdf5_reader(const fs::path& path, const FileRecord& record, DataWhere) {
    return std::make_unique<Hdf5Reader>(path, record);
}

}  // namespace mlckpt::core
