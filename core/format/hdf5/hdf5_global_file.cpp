#include "format/hdf5/hdf5_global_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <future>
#include <optional>

#include "common/fault_injection.hpp"
#include "format/hdf5/hdf5_global_layout.hpp"
#include "format/hdf5/hdf5_types.hpp"
#include "hash/crc32.hpp"
#include "io/direct_io.hpp"
#include "io/file.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core::h5 {

namespace {

// Runs a step whose failure may strike some ranks only (a write that
// meets a full disk), then agrees on it: either every rank goes on, or
// every rank throws, at the same point. Parallel HDF5 needs the ranks in
// step: a rank that left early to close the file would wait in a
// collective that the others never reach.
template <typename Step>
void together(MPI_Comm comm, Step&& step) {
    std::exception_ptr failure;
    try {
        step();
    } catch (const Error&) {
        failure = std::current_exception();
    }
    agree(comm, failure);
}

// Whether the block of `count` elements of a dataset of `dims` is one run
// of the dataset's bytes: past its leading single elements, whole rows.
bool one_run(const std::vector<std::uint64_t>& dims, const std::vector<std::uint64_t>& count) {
    std::size_t k = 0;
    while (k < count.size() && count[k] == 1) ++k;
    for (std::size_t j = k + 1; j < count.size(); ++j) {
        if (count[j] != dims[j]) return false;
    }
    return true;
}

// One collective transfer into `dataset`: this rank's piece, or nothing
// when it has no piece left for this round (H5Dwrite is collective: every
// rank takes part in every round).
void write_round(MPI_Comm comm, const Site& site, hid_t dataset, hid_t type, hid_t file_space, hid_t transfer,
                 const Piece* piece, const std::string& path) {
    Handle fspace;
    Handle mspace;
    const void* data = &kIdAttribute;  // any valid address: nothing is selected
    if (piece != nullptr && std::all_of(piece->count.begin(), piece->count.end(), [](auto c) { return c > 0; })) {
        BlockSelection block =
            select_block(site, file_space, piece->offset, piece->count,
                         "the subset of variable " + std::to_string(piece->var) + " in '" + path + "'");
        fspace = std::move(block.file);
        mspace = std::move(block.memory);
        data = piece->data.data();
    } else {
        fspace = site.own(H5Scopy(file_space), H5Sclose, "space of '" + path + "'");
        site.check(H5Sselect_none(fspace.get()), "select nothing in '" + path + "'");
        const hsize_t one = 1;
        mspace = site.own(H5Screate_simple(1, &one, nullptr), H5Sclose, "empty selection");
        site.check(H5Sselect_none(mspace.get()), "select nothing");
    }
    const herr_t written = H5Dwrite(dataset, type, mspace.get(), fspace.get(), transfer, data);
    together(comm, [&] {
        site.check(written, "write " + (piece ? "variable " + std::to_string(piece->var) + " into " : std::string()) +
                                "'" + path + "'");
    });
}

// The columns of the subset table.
std::uint64_t table_width(const GlobalSchema& schema) {
    std::size_t max_rank = 1;
    for (const GlobalDatasetSpec& d : schema.datasets) max_rank = std::max(max_rank, d.dims.size());
    return kFixedColumns + 2 * max_rank;
}

// The subset table; its rows (this rank's as `block`) are written last,
// once their checksums are known.
struct SubsetTable {
    std::string what;  // names it in messages
    Handle space;
    Handle table;
    std::uint64_t width = 0;
    std::vector<std::uint64_t> rows;
    Piece block;
};

SubsetTable create_subset_table(const Site& site, MPI_Comm comm, hid_t file, const GlobalSchema& schema,
                                const std::vector<Piece>& pieces) {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const std::uint64_t width = table_width(schema);
    const std::size_t max_rank = (width - kFixedColumns) / 2;

    std::vector<std::uint64_t> counts(static_cast<std::size_t>(size));
    std::uint64_t mine = pieces.size();
    allgather(&mine, counts.data(), 1, MPI_UINT64_T, comm, "the number of subsets each rank writes");
    std::uint64_t first = 0;
    std::uint64_t total = 0;
    for (int r = 0; r < size; ++r) {
        if (r < rank) first += counts[static_cast<std::size_t>(r)];
        total += counts[static_cast<std::size_t>(r)];
    }

    SubsetTable t;
    t.width = width;
    t.rows.assign(pieces.size() * width, 0);
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const Piece& p = pieces[i];
        std::uint64_t* row = t.rows.data() + i * width;
        row[0] = static_cast<std::uint64_t>(static_cast<std::int64_t>(schema.datasets[p.dataset].id));
        row[1] = static_cast<std::uint64_t>(rank);
        row[2] = static_cast<std::uint64_t>(static_cast<std::int64_t>(p.var));
        row[4] = p.count.size();
        std::copy(p.offset.begin(), p.offset.end(), row + kFixedColumns);
        std::copy(p.count.begin(), p.count.end(), row + kFixedColumns + max_rank);
    }

    t.what = std::string("the subset table '") + kSubsetTable + "'";
    t.space = simple_space(site, {total, width}, t.what);
    t.table = site.own(
        H5Dcreate2(file, kSubsetTable, H5T_NATIVE_UINT64, t.space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        H5Dclose, t.what);
    write_string_attribute(site, t.table.get(), kColumnsAttribute, kColumnsText);
    t.block.offset = {first, 0};
    t.block.count = {pieces.size(), width};
    t.block.data = std::as_bytes(std::span<const std::uint64_t>(t.rows));
    return t;
}

// Room for HDF5's records (superblock, groups, object headers,
// attributes) beside the data, and for the gap before each object that
// starts at a 4 KiB boundary; a file that needs more is read back.
constexpr std::uint64_t kRecordsRoom = std::uint64_t{64} << 10;
constexpr std::uint64_t kRecordsPerObject = (std::uint64_t{4} << 10) + kDirectAlign;

// Rank 0 allocates the storage the file will take, before anything but
// HDF5's first records is written, so that a full disk fails here,
// cleanly, and not in a write that MPI-IO may report as a success.
// Returns the reserved length on rank 0, 0 where the file system cannot
// reserve and on the other ranks.
std::uint64_t reserve_file(MPI_Comm comm, const Site& site, const GlobalSchema& schema,
                           const std::vector<Piece>& pieces, int rank, int ckpt_id) {
    std::uint64_t mine = pieces.size();
    std::uint64_t subsets = 0;
    allreduce(&mine, &subsets, 1, MPI_UINT64_T, MPI_SUM, comm, "the number of subsets of the global file");
    std::uint64_t size = kRecordsRoom + kRecordsPerObject * (schema.groups.size() + schema.datasets.size() + 1) +
                         subsets * table_width(schema) * sizeof(std::uint64_t);
    for (const GlobalDatasetSpec& d : schema.datasets) {
        std::uint64_t bytes = d.type->size;
        for (std::uint64_t n : d.dims) bytes *= n;
        size += bytes;
    }
    std::uint64_t reserved = 0;
    together(comm, [&] {
        if (rank != 0) return;
        const auto seq = static_cast<std::uint64_t>(ckpt_id);
        int err = 0;
        if (fault_requested("reservation_full", rank, seq)) {
            err = ENOSPC;
        } else if (fault_requested("no_space_reservation", rank, seq)) {
            err = EOPNOTSUPP;
        } else {
            err = File::open_update(site.file).reserve(size);
        }
        if (err == 0) reserved = size;
        if (err == 0 || err == EOPNOTSUPP || err == ENOSYS || err == EINVAL) return;
        const fs::path disk = site.file.parent_path();
        std::error_code ec;
        const fs::space_info room = fs::space(disk, ec);
        fail(ErrorKind::io, "HDF5 file '" + site.file.string() + "': cannot reserve its " + std::to_string(size) +
                                " bytes on the file system of '" + disk.string() + "'" +
                                (ec ? std::string() : " (" + std::to_string(room.available) + " bytes available)") +
                                ": " + std::strerror(err));
    });
    return reserved;
}

}  // namespace

namespace {

// Fault injection (lost_global_write): the first byte of this rank's first
// subset changes in the file, as a write that MPI-IO lost would leave it.
void lose_a_write(const fs::path& file, const GlobalSchema& schema, const std::vector<Piece>& pieces) {
    if (pieces.empty() || pieces.front().data.empty()) return;
    const Piece& p = pieces.front();
    const std::uint64_t at = GlobalFileReader(file).byte_offset(schema.datasets[p.dataset].path(), p.offset);
    const std::byte changed = ~p.data.front();
    File f = File::open_update(file);
    f.write_all_at(std::span<const std::byte>(&changed, 1), at);
    f.sync();
}

void read_back(const fs::path& file, const GlobalSchema& schema, const std::vector<Piece>& pieces, int rank) {
    try {
        const GlobalFileReader reader(file);
        for (const Piece& p : pieces) {
            const GlobalDatasetSpec& d = schema.datasets[p.dataset];
            reader.verify(d.path(), SubsetRecord{d.id, rank, p.var, p.crc32, p.offset, p.count});
        }
    } catch (const Error& e) {
        fail(ErrorKind::io, std::string("the global HDF5 file does not hold what was written, though every write "
                                        "reported success (a full disk?): ") +
                                e.what());
    }
}

}  // namespace

void write_global_file(MPI_Comm comm, const fs::path& file, const GlobalSchema& schema, std::vector<Piece> pieces,
                       int ckpt_id) {
    silence_errors();
    const Site site{file, ErrorKind::io};
    int size = 0;
    int rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    // A dataset whose subsets are each one run of its storage, on every
    // rank, is written by each rank straight to its storage (as the
    // per-rank files are): no MPI-IO aggregation, no page cache. Subsets
    // scattered in the file go through collective H5Dwrite.
    const std::size_t count = schema.datasets.size();
    std::vector<std::uint64_t> own(2 * count, 0);  // per dataset: subsets, whether any is scattered
    for (const Piece& p : pieces) {
        ++own[2 * p.dataset];
        if (!one_run(schema.datasets[p.dataset].dims, p.count)) own[2 * p.dataset + 1] = 1;
    }
    std::vector<std::uint64_t> most(2 * count, 0);
    allreduce(own.data(), most.data(), static_cast<int>(own.size()), MPI_UINT64_T, MPI_MAX, comm,
              "the subsets the ranks have in the global datasets");
    const auto collective = [&most](std::size_t dataset) { return most[2 * dataset + 1] != 0; };
    // The checksums of what goes through HDF5 are computed beside the
    // writes, which only read the data; the direct writes hash their own.
    std::future<void> checksums = std::async(std::launch::async, [&pieces, &collective] {
        for (Piece& p : pieces) {
            if (collective(p.dataset)) p.crc32 = crc32_of(p.data);
        }
    });
    Handle access = site.own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access properties");
    site.check(H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL), "MPI-IO driver");
    site.check(H5Pset_coll_metadata_write(access.get(), true), "collective metadata writes");
    align_for_direct_io(site, access.get());
    Handle f =
        site.own(H5Fcreate(file.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, access.get()), H5Fclose, "create (parallel)");
    const std::uint64_t reserved = reserve_file(comm, site, schema, pieces, rank, ckpt_id);
    write_attribute(site, f.get(), kCkptAttribute, H5T_NATIVE_INT, {}, &ckpt_id);
    write_attribute(site, f.get(), kRanksAttribute, H5T_NATIVE_INT, {}, &size);
    for (const GroupPath& g : schema.groups) {
        const std::string text = path_text(g);
        site.own(H5Gcreate2(f.get(), text.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                 "group '" + text + "'");
    }
    Handle transfer = site.own(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "transfer properties");
    site.check(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE), "collective transfers");
    const Handle creation = placed_dataset_creation(site);

    struct Created {
        Handle type;
        Handle space;
        Handle dataset;
    };
    std::vector<Created> created;
    for (const GlobalDatasetSpec& d : schema.datasets) {
        const std::string path = d.path();
        Created c{make_datatype(*d.type, site), simple_space(site, d.dims, "'" + path + "'"), {}};
        c.dataset = site.own(
            H5Dcreate2(f.get(), path.c_str(), c.type.get(), c.space.get(), H5P_DEFAULT, creation.get(), H5P_DEFAULT),
            H5Dclose, "dataset '" + path + "'");
        write_attribute(site, c.dataset.get(), kIdAttribute, H5T_NATIVE_INT, {}, &d.id);
        created.push_back(std::move(c));
    }
    SubsetTable table = create_subset_table(site, comm, f.get(), schema, pieces);
    // This rank's own descriptor: its direct writes, and its fsync at the end.
    std::optional<File> data;
    together(comm, [&] { data.emplace(File::open_update(file)); });

    for (std::size_t i = 0; i < count; ++i) {
        const GlobalDatasetSpec& d = schema.datasets[i];
        const Created& c = created[i];
        std::vector<Piece*> mine;
        for (Piece& p : pieces) {
            if (p.dataset == i) mine.push_back(&p);
        }
        if (!collective(i)) {
            together(comm, [&] {
                const haddr_t start = H5Dget_offset(c.dataset.get());
                for (Piece* p : mine) {
                    Crc32 crc;
                    if (!p->data.empty()) {
                        if (start == HADDR_UNDEF) site.raise("'" + d.path() + "' has no contiguous storage");
                        write_overlapped(
                            *data, element_address(start, d.dims, p->offset, d.type->size), p->data,
                            [&crc](std::span<const std::byte> piece) { crc.update(piece); }, WritePath::direct);
                    }
                    p->crc32 = crc.value();
                }
            });
            continue;
        }
        for (std::uint64_t r = 0; r < most[2 * i]; ++r) {
            write_round(comm, site, c.dataset.get(), c.type.get(), c.space.get(), transfer.get(),
                        r < own[2 * i] ? mine[r] : nullptr, d.path());
        }
    }
    fault_point("during_global_write", rank, static_cast<std::uint64_t>(ckpt_id));
    checksums.get();
    for (std::size_t i = 0; i < pieces.size(); ++i) table.rows[i * table.width + kCrcColumn] = pieces[i].crc32;
    write_round(comm, site, table.table.get(), H5T_NATIVE_UINT64, table.space.get(), transfer.get(),
                pieces.empty() ? nullptr : &table.block, table.what);
    created.clear();  // parallel HDF5 closes no file whose objects are open
    table = {};
    // H5Fclose writes HDF5's records, and goes on through its collective
    // steps after a failed write, so that every rank returns from it.
    const herr_t closed = f.close();
    together(comm, [&] { site.check(closed, "close (HDF5's records)"); });
    // Every rank makes what it wrote durable, HDF5's records included
    // (HDF5 does not fsync): on a parallel file system each client flushes
    // its own writes.
    together(comm, [&] {
        data->sync();
        data->close();
    });
    // Once closed, the file's size is HDF5's end of allocation (the close
    // cuts off what the reservation had beyond it): a file that outgrew the
    // reservation is checked as without one.
    int unreserved = 1;
    together(comm, [&] {
        if (rank == 0) unreserved = reserved == 0 || File::open_read(file).size() > reserved;
    });
    bcast(&unreserved, 1, MPI_INT, 0, comm, "whether the reservation covers the global file");
    together(comm, [&] {
        if (fault_requested("lost_global_write", rank, static_cast<std::uint64_t>(ckpt_id))) {
            lose_a_write(file, schema, pieces);
        }
        // Where the storage was reserved, no write can have met a full disk.
        if (unreserved) read_back(file, schema, pieces, rank);
    });
}

}  // namespace mlckpt::core::h5
