// HDF5 checkpoints (ckpt_io = 5) seen from outside mlckpt: phase 1 protects
// named, shaped, grouped and composite variables and checkpoints them; phase
// 2, one process that never calls FTI_Init, reads the files with h5py and
// h5dump and compares names, shapes, types and values with what phase 1
// protected. And a damaged dataset or record of HDF5's is caught at restart.
// Compressed ([compression]) files are read by h5py and h5dump as well.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

struct Cell {
    double pos[3];
    std::int32_t id;
    float w[2][2];
    char tag;  // then 3 bytes of padding, which must survive too
};

// Every byte of the variables, padding included, follows the pattern.
template <typename T>
void fill_bytes(std::vector<T>& v, int rank, int var, int version) {
    auto* bytes = reinterpret_cast<unsigned char*>(v.data());
    for (std::size_t i = 0; i < v.size() * sizeof(T); ++i) {
        bytes[i] = static_cast<unsigned char>(pattern(rank, var, version, i));
    }
}

struct Protected {
    explicit Protected(int rank) : rank_(rank) {}
    int rank_;
    std::vector<double> temperature = std::vector<double>(6 * 10);
    std::vector<std::int32_t> counts = std::vector<std::int32_t>(7 + static_cast<std::size_t>(rank_));
    std::vector<Cell> cells = std::vector<Cell>(5);
    std::vector<std::array<unsigned char, 12>> blobs = std::vector<std::array<unsigned char, 12>>(4);
    std::vector<unsigned long> steps = std::vector<unsigned long>(5);
    FTIT_H5Group fields{}, physics{}, renamed{};

    void protect() {
        ASSERT_FTI(FTI_SCES, FTI_InitGroup(&fields, "fields", nullptr));
        ASSERT_FTI(FTI_SCES, FTI_InitGroup(&physics, "physics", &fields));
        ASSERT_FTI(FTI_SCES, FTI_InitGroup(&renamed, "first_name", nullptr));
        ASSERT_FTI(FTI_SCES, FTI_RenameGroup(&renamed, "renamed"));
        EXPECT_STREQ(physics.fullName, "/fields/physics");
        EXPECT_FTI(FTI_NSCS, FTI_InitGroup(&physics, "physics", &fields));  // a sibling of that name exists

        fti_id_t cell = FTI_InitCompositeType("Cell", sizeof(Cell), nullptr);
        ASSERT_GE(cell, 0) << FTI_LastError();
        int three[] = {3};
        int two_by_two[] = {2, 2};
        ASSERT_FTI(FTI_SCES, FTI_AddVectorField(cell, "pos", FTI_DBLE, offsetof(Cell, pos), 1, three));
        ASSERT_FTI(FTI_SCES, FTI_AddScalarField(cell, "id", FTI_INTG, offsetof(Cell, id)));
        ASSERT_FTI(FTI_SCES, FTI_AddVectorField(cell, "w", FTI_SFLT, offsetof(Cell, w), 2, two_by_two));
        ASSERT_FTI(FTI_SCES, FTI_AddScalarField(cell, "tag", FTI_CHAR, offsetof(Cell, tag)));
        fti_id_t blob = -1;
        ASSERT_FTI(FTI_SCES, FTI_InitType(&blob, 12));

        ASSERT_FTI(FTI_SCES, FTI_Protect(0, temperature.data(), 60, FTI_DBLE));
        ASSERT_FTI(FTI_SCES, FTI_Protect(1, counts.data(), static_cast<int64_t>(counts.size()), FTI_INTG));
        ASSERT_FTI(FTI_SCES, FTI_Protect(2, cells.data(), 5, cell));
        ASSERT_FTI(FTI_SCES, FTI_Protect(3, blobs.data(), 4, blob));
        ASSERT_FTI(FTI_SCES, FTI_Protect(4, steps.data(), 5, FTI_ULNG));
        int six_by_ten[] = {6, 10};
        int wrong[] = {7, 10};
        EXPECT_FTI(FTI_NSCS, FTI_DefineDataset(0, 2, wrong, "temperature", &physics));  // 70 elements, not 60
        ASSERT_FTI(FTI_SCES, FTI_DefineDataset(0, 2, six_by_ten, "temperature", &physics));
        ASSERT_FTI(FTI_SCES, FTI_DefineDataset(2, 0, nullptr, "cells", &fields));
        ASSERT_FTI(FTI_SCES, FTI_DefineDataset(3, 0, nullptr, "blobs", &renamed));
        ASSERT_FTI(FTI_SCES, FTI_DefineDataset(4, 0, nullptr, "steps", nullptr));
        FTIT_attribute attribute{};
        std::strcpy(attribute.name, "steps of the run");
        attribute.dim.ndims = 1;
        attribute.dim.count[0] = 5;
        ASSERT_FTI(FTI_SCES, FTI_SetAttribute(4, attribute,
                                              static_cast<FTIT_attributeFlag>(FTI_ATTRIBUTE_NAME | FTI_ATTRIBUTE_DIM)));
    }
    // Floating-point values are numbers (no NaN), so that h5py's arrays compare.
    void fill(int version) {
        for (std::size_t i = 0; i < temperature.size(); ++i) {
            temperature[i] = static_cast<double>(pattern(rank_, 0, version, i) % 1000003) * 0.5;
        }
        fill_bytes(counts, rank_, 1, version);
        fill_bytes(cells, rank_, 2, version);
        for (std::size_t k = 0; k < cells.size(); ++k) {
            for (std::size_t j = 0; j < 3; ++j) {
                cells[k].pos[j] = static_cast<double>(pattern(rank_, 5, version, k * 3 + j) % 1000) / 7.0;
            }
            for (std::size_t j = 0; j < 4; ++j) {
                cells[k].w[j / 2][j % 2] = static_cast<float>(pattern(rank_, 6, version, k * 4 + j) % 1000) / 3.0f;
            }
        }
        fill_bytes(blobs, rank_, 3, version);
        fill_bytes(steps, rank_, 4, version);
    }
    template <typename T>
    static std::string raw(const std::vector<T>& v) {
        return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
    }
    // The variables' bytes, in id order.
    std::vector<std::string> contents() const {
        return {raw(temperature), raw(counts), raw(cells), raw(blobs), raw(steps)};
    }
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(Hdf5, FileReadsWithoutMlckpt) {
    const std::string cfg = config();
    if (phase() == 1) {
        if (!start(cfg)) return;
        static Protected p(app_rank());  // the session points at it until the process ends
        p.protect();
        p.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        // What the reader must find: each variable's bytes, and the layout of Cell.
        const std::vector<std::string> contents = p.contents();
        for (std::size_t id = 0; id < contents.size(); ++id) {
            std::ofstream(workdir() / ("expected-rank" + std::to_string(app_rank()) + "-var" + std::to_string(id)),
                          std::ios::binary)
                << contents[id];
        }
        if (app_rank() == 0) {
            std::ofstream(workdir() / "cell-layout.txt")
                << sizeof(Cell) << " " << offsetof(Cell, pos) << " " << offsetof(Cell, id) << " " << offsetof(Cell, w)
                << " " << offsetof(Cell, tag) << "\n";
        }
        return crash();
    }

    const std::size_t ranks = files_matching("expected-rank[0-9]+-var0").size();  // phase 1's application ranks
    ASSERT_GE(ranks, 4u);
    const std::string command = std::string("'" MLCKPT_H5PY_PYTHON "' '" MLCKPT_H5PY_SCRIPT "' '") +
                                workdir().string() + "' '" + global_dir().string() + "' " + std::to_string(ranks) +
                                " > '" + (workdir() / "h5py.out").string() + "' 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << slurp(workdir() / "h5py.out");

    const fs::path rank0 = the_file(data_file(1, 0));
    const std::string dump =
        "'" MLCKPT_H5DUMP "' -H '" + rank0.string() + "' > '" + (workdir() / "h5dump.out").string() + "' 2>&1";
    EXPECT_EQ(std::system(dump.c_str()), 0) << slurp(workdir() / "h5dump.out");
    const std::string header = slurp(workdir() / "h5dump.out");
    // As FTI's files: the composite type Cell and the opaque type 12
    // committed in the root (no group given), the datasets referring to
    // them, the opaque type a 12-byte integer; no attribute of mlckpt's.
    for (const char* expected :
         {"GROUP \"physics\"", "DATASET \"temperature\"", "DATASPACE  SIMPLE { ( 6, 10 ) / ( 6, 10 ) }",
          "DATASET \"Dataset_1\"", "DATATYPE \"Cell\" H5T_COMPOUND", "DATATYPE  \"/Cell\"",
          "DATATYPE \"Type12\" 96-bit little-endian integer 8-bit precision", "DATATYPE  \"/Type12\"",
          "GROUP \"renamed\""}) {
        EXPECT_NE(header.find(expected), std::string::npos) << expected << "\n" << header;
    }
    EXPECT_EQ(header.find("mlckpt"), std::string::npos) << header;
}

// Checkpoints 1 (L4) and 2 (L1); then world rank 0 changes a byte of rank
// 1's file of checkpoint 2 at what `find` returns (an offset), and every
// rank restarts: each must recover checkpoint 1, bit for bit.
void damaged_newest_falls_back(const std::function<std::size_t(const std::string& file)>& find) {
    const std::string cfg = config();
    if (phase() == 1) {
        if (!start(cfg)) return;
        static Protected p(app_rank());
        p.protect();
        p.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        p.fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
        return crash();
    }
    if (world_rank() == 0) {
        const fs::path f = the_file(data_file(2, 1));
        const std::size_t at = find(slurp(f));
        ASSERT_NE(at, std::string::npos) << f;
        overwrite_in_place(f, at, 1);
    }
    world_barrier();
    if (!start(cfg)) return;
    static Protected p(app_rank());
    p.protect();
    EXPECT_EQ(FTI_Status(), 1);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    Protected expected(app_rank());
    expected.fill(1);
    EXPECT_EQ(p.contents(), expected.contents()) << "rank " << app_rank() << " recovered checkpoint 1 bit for bit";
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
}

// A byte of one rank's temperature changed in the newest checkpoint: the
// dataset fails its checksum when FTI_Init reads it (or FTI_Recover, with
// verify_at_init = 0), and every rank takes the older one.
TEST(Hdf5, DamagedDatasetFallsBack) {
    damaged_newest_falls_back([](const std::string& file) {
        Protected newest(1);  // rank 1's variables as checkpoint 2 holds them
        newest.fill(2);
        const auto at = file.find(newest.contents()[0]);
        return at == std::string::npos ? at : at + 100;  // rank 1's temperature, unconverted
    });
}

// A byte of HDF5's own records (the name of the temperature's link), which
// no dataset's checksum covers: FTI_Init refuses the file before HDF5
// parses it, and every rank takes the older checkpoint.
TEST(Hdf5, DamagedRecordFallsBack) {
    damaged_newest_falls_back([](const std::string& file) { return file.find("temperature"); });
}

// With [compression] (the COMPRESS variants) at `level`: the field's
// dataset is chunked and filtered by HDF5's own shuffle, deflate and
// Fletcher-32, the file is under half the data, h5dump shows the filters,
// h5py (HDF5 alone) reads every value, and a restart gets every byte back.
void compressed_fields(int level) {
    ASSERT_FALSE(compression().empty()) << "registered with COMPRESS only";
    const std::string cfg = config(two_node_group());
    const fs::path expected = workdir() / ("field-rank" + std::to_string(world_rank()));
    if (phase() == 1) {
        if (!start(cfg)) return;
        static Protected p(app_rank());
        static std::vector<double> field = heat_field(app_rank(), 1);
        p.protect();
        p.fill(1);
        ASSERT_FTI(FTI_SCES, FTI_Protect(20, field.data(), static_cast<int64_t>(field.size()), FTI_DBLE));
        int dims[] = {256, 256};
        ASSERT_FTI(FTI_SCES, FTI_DefineDataset(20, 2, dims, "field", &p.fields));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, level));
        std::ofstream(expected, std::ios::binary) << Protected::raw(field);
        const fs::path file = the_file(level == 4 ? l4_file(1, app_rank()) : data_file(1, app_rank()));
        EXPECT_LT(fs::file_size(file) * 2, field.size() * sizeof(double)) << file << ": stored compressed";
        return crash();
    }
    if (world_rank() == 0) {
        const fs::path file = the_file(level == 4 ? l4_file(1, 0) : data_file(1, 0));
        const fs::path out = workdir() / "h5dump.out";
        const std::string dump = "'" MLCKPT_H5DUMP "' -p -H '" + file.string() + "' > '" + out.string() + "' 2>&1";
        EXPECT_EQ(std::system(dump.c_str()), 0) << slurp(out);
        const std::string header = slurp(out);
        for (const char* filter : {"CHUNKED", "SHUFFLE", "COMPRESSION DEFLATE { LEVEL 1 }", "CHECKSUM FLETCHER32"}) {
            EXPECT_NE(header.find(filter), std::string::npos) << filter << "\n" << header;
        }
        const fs::path check = workdir() / "h5py-field.out";
        const std::string h5py =
            "'" MLCKPT_H5PY_PYTHON
            "' -c \"import h5py, sys\n"
            "d = h5py.File(sys.argv[1], 'r')['fields/field']\n"
            "print(d.chunks, d.compression, d.shuffle, d.fletcher32)\n"
            "sys.exit(0 if d.compression == 'gzip' and d.shuffle and d.fletcher32 and d.shape == (256, 256)"
            " and d[()].tobytes() == open(sys.argv[2], 'rb').read() else 1)\" '" +
            file.string() + "' '" + expected.string() + "' > '" + check.string() + "' 2>&1";
        EXPECT_EQ(std::system(h5py.c_str()), 0) << slurp(check);
    }
    world_barrier();
    if (!start(cfg)) return;
    static Protected p(app_rank());
    static std::vector<double> field(256 * 256);
    p.protect();
    ASSERT_FTI(FTI_SCES, FTI_Protect(20, field.data(), static_cast<int64_t>(field.size()), FTI_DBLE));
    EXPECT_EQ(FTI_Status(), 1);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    Protected want(app_rank());
    want.fill(1);
    EXPECT_EQ(p.contents(), want.contents()) << "rank " << app_rank();
    EXPECT_TRUE(field == heat_field(app_rank(), 1)) << "rank " << app_rank() << ": every byte of the field";
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(Hdf5, CompressedFieldsL1) {
    compressed_fields(FTI_L1);
}
TEST(Hdf5, CompressedFieldsL2) {
    compressed_fields(FTI_L2);
}
TEST(Hdf5, CompressedFieldsL3) {
    compressed_fields(FTI_L3);
}
TEST(Hdf5, CompressedFieldsL4) {
    compressed_fields(FTI_L4);
}

}  // namespace
}  // namespace mlckpt::test
