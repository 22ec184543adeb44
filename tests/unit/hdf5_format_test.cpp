// The HDF5 writer and reader of core (ckpt_io = 5), file by file: groups,
// shapes and compound types go in as described; every byte comes back; a
// damaged dataset (when it is read), a damaged record of HDF5's (when the
// file is opened), a truncated file and an HDF5 failure are errors that
// name the file.
#include "format/hdf5/hdf5_format.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <numeric>

#include "checkpoint/hdf5_schema.hpp"
#include "expect_error.hpp"
#include "format/file_formats.hpp"
#include "format/hdf5/hdf5_global_file.hpp"
#include "format/posix/posix_format.hpp"
#include "hash/crc32.hpp"
#include "registry/registry.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

struct Pair {
    double x[2];
    char tag;  // and 7 bytes of padding
};

struct Written {
    test::TempDir dir;
    fs::path path = dir.path() / "Ckpt1-Rank0.h5";
    std::vector<double> grid = std::vector<double>(12);
    std::vector<Pair> pairs = std::vector<Pair>(3);
    std::vector<int> empty;
    FileRecord record;

    Written() {
        std::iota(grid.begin(), grid.end(), 0.5);
        std::memset(pairs.data(), 0xa5, pairs.size() * sizeof(Pair));  // padding bytes too
        for (Pair& p : pairs) p.x[1] = 2.0;
        Registry reg(100);
        int group = reg.groups().add("mesh", 0);
        int pair = reg.types().add_composite("Pair", sizeof(Pair), group);
        reg.types().add_field(pair, "x", kDouble, offsetof(Pair, x), {2});
        reg.types().add_field(pair, "tag", kChar, offsetof(Pair, tag), {});
        reg.protect(0, grid.data(), 12, kDouble);
        reg.protect(1, pairs.data(), 3, pair);
        reg.protect(2, nullptr, 0, kInt);
        reg.define_dataset(0, {3, 4}, "grid", group);
        Hdf5Writer w(Directory::open(path.parent_path()), path.filename().string(), hdf5_schema(reg));
        w.add(0, std::as_bytes(std::span(grid)), "");
        w.add(1, std::as_bytes(std::span(pairs)), "pairs");
        w.add(2, {}, "");
        record = w.finish();
    }
};

// Each variable of `f`, read through a reader of its file, bit for bit.
void expect_every_byte_back(const Written& f) {
    auto reader = open_checkpoint_reader(f.path, IoMode::hdf5, f.record);
    std::vector<double> grid(12);
    reader->read(f.record.vars[0], std::as_writable_bytes(std::span(grid)));
    EXPECT_EQ(grid, f.grid);
    std::vector<Pair> pairs(3);
    reader->read(f.record.vars[1], std::as_writable_bytes(std::span(pairs)));
    EXPECT_EQ(std::memcmp(pairs.data(), f.pairs.data(), sizeof(Pair) * 3), 0) << "padding included";
    reader->read(f.record.vars[2], {});
}

TEST(Hdf5Format, EveryByteComesBack) {
    Written f;
    EXPECT_EQ(f.record.size, fs::file_size(f.path));
    EXPECT_EQ(f.record.crc32, crc32_of_file(f.path, 4096));
    ASSERT_EQ(f.record.vars.size(), 3u);
    EXPECT_EQ(f.record.vars[1].crc32, crc32_of(std::as_bytes(std::span(f.pairs))));
    EXPECT_EQ(f.record.vars[1].name, "pairs");
    verify_checkpoint_file(f.path, f.record, IoMode::hdf5, 4096);
    expect_every_byte_back(f);
}

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Changes the byte at `at` of the file.
void flip_byte(const fs::path& path, std::size_t at) {
    std::string bytes = slurp(path);
    bytes.at(at) = static_cast<char>(~bytes[at]);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// As FTI's files: a composite type is committed in its group under its
// name, and its datasets refer to it; the datasets carry no attribute of
// the library's, the metadata holds their paths and checksums.
TEST(Hdf5Format, TypesAreCommittedAsFtiCommitsThem) {
    Written f;
    EXPECT_EQ(f.record.vars[0].dataset, "/mesh/grid");
    EXPECT_EQ(f.record.vars[1].dataset, "/Dataset_1");
    EXPECT_EQ(f.record.vars[2].dataset, "/Dataset_2");
    h5::Handle file(H5Fopen(f.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    ASSERT_GE(file.get(), 0);
    H5O_info_t info{};
    ASSERT_GE(H5Oget_info_by_name2(file.get(), "/mesh/Pair", &info, H5O_INFO_BASIC, H5P_DEFAULT), 0);
    EXPECT_EQ(info.type, H5O_TYPE_NAMED_DATATYPE);
    h5::Handle pairs(H5Dopen2(file.get(), "/Dataset_1", H5P_DEFAULT), H5Dclose);
    h5::Handle type(H5Dget_type(pairs.get()), H5Tclose);
    EXPECT_GT(H5Tcommitted(type.get()), 0) << "the dataset refers to the named type";
    h5::Handle grid(H5Dopen2(file.get(), "/mesh/grid", H5P_DEFAULT), H5Dclose);
    h5::Handle native(H5Dget_type(grid.get()), H5Tclose);
    EXPECT_EQ(H5Tcommitted(native.get()), 0) << "FTI's primitives are not committed";
    for (const char* dataset : {"/mesh/grid", "/Dataset_1", "/Dataset_2"}) {
        ASSERT_GE(H5Oget_info_by_name2(file.get(), dataset, &info, H5O_INFO_NUM_ATTRS, H5P_DEFAULT), 0);
        EXPECT_EQ(info.num_attrs, 0u) << dataset;
    }
}

// A file of an earlier version: its metadata has no dataset paths and each
// dataset names its variable in the attribute mlckpt_id. It still restarts.
TEST(Hdf5Format, OlderFilesAreFoundByTheirIdAttribute) {
    Written f;
    {
        h5::Handle file(H5Fopen(f.path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
        for (const VarRecord& v : f.record.vars) {
            h5::Handle ds(H5Dopen2(file.get(), v.dataset.c_str(), H5P_DEFAULT), H5Dclose);
            h5::write_attribute({f.path}, ds.get(), "mlckpt_id", H5T_NATIVE_INT, {}, &v.id);
        }
    }
    f.record.size = fs::file_size(f.path);
    f.record.crc32 = crc32_of_file(f.path, 4096);
    for (VarRecord& v : f.record.vars) v.dataset.clear();
    expect_every_byte_back(f);
    // Damage in an older file is caught and named as in a new one.
    flip_byte(f.path, f.record.vars[0].offset + 9);
    auto damaged = open_checkpoint_reader(f.path, IoMode::hdf5, f.record);
    std::vector<double> grid(12);
    std::string one = test::error_message(
        ErrorKind::corrupt, [&] { damaged->read(f.record.vars[0], std::as_writable_bytes(std::span(grid))); });
    EXPECT_NE(one.find("dataset '/mesh/grid' (variable 0) fails its checksum"), std::string::npos) << one;
}

TEST(Hdf5Format, VarRecordsPlaceTheDatasets) {
    Written f;
    // The grid's bytes lie in the file as they are in memory, where its VAR record says.
    const std::string bytes = slurp(f.path);
    const auto at = bytes.find(std::string(reinterpret_cast<const char*>(f.grid.data()), 12 * sizeof(double)));
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(f.record.vars[0].offset, at);
    EXPECT_GT(f.record.vars[1].offset, 0u);
    EXPECT_EQ(bytes.substr(f.record.vars[1].offset, f.record.vars[1].size),
              std::string(reinterpret_cast<const char*>(f.pairs.data()), f.record.vars[1].size));
    EXPECT_EQ(f.record.vars[2].size, 0u);
}

// The library writes the datasets' bytes (HDF5 only its records): a
// dataset of 4 KiB or more starts at a 4 KiB boundary, goes around the page
// cache, and the file's CRC-32, combined from its pieces', is every byte's.
TEST(Hdf5Format, LargeDatasetsAreAlignedAndWrittenByTheLibrary) {
    test::TempDir dir;
    std::vector<std::uint32_t> big((std::size_t{3} << 20) / 4 + 25);
    std::iota(big.begin(), big.end(), 7u);
    std::vector<std::uint32_t> small(10, 3u);
    FileRecord record;
    for (WritePath kind : {WritePath::direct, WritePath::page_cache}) {
        const std::string name = kind == WritePath::direct ? "direct.h5" : "cached.h5";
        Hdf5Writer w(Directory::open(dir.path()), name, nullptr, kind);
        w.add(0, std::as_bytes(std::span(small)), "");
        w.add(1, std::as_bytes(std::span(big)), "");
        w.add(2, std::as_bytes(std::span(small)), "");
        record = w.finish();
        const fs::path path = dir.path() / name;
        EXPECT_EQ(record.vars[1].offset % 4096, 0u) << record.vars[1].offset;
        EXPECT_EQ(record.size, fs::file_size(path));
        EXPECT_EQ(record.crc32, crc32_of_file(path, 4096));
        EXPECT_EQ(record.vars[1].crc32, crc32_of(std::as_bytes(std::span(big))));
        verify_checkpoint_file(path, record, IoMode::hdf5, 4096);
        auto reader = open_checkpoint_reader(path, IoMode::hdf5, record);
        std::vector<std::uint32_t> back(big.size());
        reader->read(record.vars[1], std::as_writable_bytes(std::span(back)));
        EXPECT_EQ(back, big);
        std::vector<std::uint32_t> back_small(small.size());
        reader->read(record.vars[2], std::as_writable_bytes(std::span(back_small)));
        EXPECT_EQ(back_small, small);
    }
}

TEST(Hdf5Format, DamagedDatasetIsNamed) {
    Written f;
    flip_byte(f.path, f.record.vars[0].offset + 9);

    std::string whole =
        test::error_message(ErrorKind::corrupt, [&] { verify_checkpoint_file(f.path, f.record, IoMode::hdf5, 4096); });
    EXPECT_NE(whole.find("fails its checksum"), std::string::npos) << whole;
    // A restart checks the bytes outside the datasets when it opens the
    // file, and each dataset when it reads it.
    auto reader = open_checkpoint_reader(f.path, IoMode::hdf5, f.record);
    std::vector<double> grid(12);
    std::string one = test::error_message(
        ErrorKind::corrupt, [&] { reader->read(f.record.vars[0], std::as_writable_bytes(std::span(grid))); });
    EXPECT_NE(one.find("dataset '/mesh/grid' (variable 0) fails its checksum"), std::string::npos) << one;
    std::vector<Pair> pairs(3);
    reader->read(f.record.vars[1], std::as_writable_bytes(std::span(pairs)));
    EXPECT_EQ(std::memcmp(pairs.data(), f.pairs.data(), sizeof(Pair) * 3), 0) << "the other dataset is sound";
}

TEST(Hdf5Format, DamagedRecordIsNamed) {
    Written f;
    // A byte of HDF5's own records (a link's name), which no dataset's
    // checksum covers: the file is refused before HDF5 parses it.
    const auto at = slurp(f.path).find("Dataset_1");
    ASSERT_NE(at, std::string::npos);
    ASSERT_TRUE(at < f.record.vars[0].offset || at >= f.record.vars[0].offset + f.record.vars[0].size);
    flip_byte(f.path, at);
    std::string opened =
        test::error_message(ErrorKind::corrupt, [&] { open_checkpoint_reader(f.path, IoMode::hdf5, f.record); });
    EXPECT_NE(opened.find("fails its checksum"), std::string::npos) << "a restart never opens it: " << opened;
    std::string whole =
        test::error_message(ErrorKind::corrupt, [&] { verify_checkpoint_file(f.path, f.record, IoMode::hdf5, 4096); });
    EXPECT_NE(whole.find("fails its checksum"), std::string::npos) << whole;
}

TEST(Hdf5Format, RecordsWithoutOffsetsCheckEveryByte) {
    Written f;
    flip_byte(f.path, f.record.vars[0].offset + 9);
    for (VarRecord& v : f.record.vars) v.offset = 0;  // as no VAR record places a dataset
    std::string opened =
        test::error_message(ErrorKind::corrupt, [&] { open_checkpoint_reader(f.path, IoMode::hdf5, f.record); });
    EXPECT_NE(opened.find("fails its checksum"), std::string::npos) << opened;
}

TEST(Hdf5Format, TruncatedOrForeignFileIsNamed) {
    Written f;
    fs::resize_file(f.path, f.record.size / 2);
    std::string cut =
        test::error_message(ErrorKind::corrupt, [&] { open_checkpoint_reader(f.path, IoMode::hdf5, f.record); });
    EXPECT_NE(cut.find("(truncated)"), std::string::npos) << cut;

    std::ofstream(f.path, std::ios::binary | std::ios::trunc) << std::string(f.record.size, 'x');
    // Past the checksums (the file's, and the datasets' that it is combined
    // with): HDF5 itself refuses it.
    f.record.crc32 = crc32_of_file(f.path, 4096);
    for (VarRecord& v : f.record.vars) {
        const std::string x(v.size, 'x');
        v.crc32 = crc32_of(std::as_bytes(std::span(x.data(), x.size())));
    }
    std::string foreign =
        test::error_message(ErrorKind::corrupt, [&] { open_checkpoint_reader(f.path, IoMode::hdf5, f.record); });
    EXPECT_NE(foreign.find("HDF5 file '" + f.path.string() + "': open: "), std::string::npos) << foreign;
}

TEST(Hdf5Format, HdfFailureNamesFileAndDataset) {
    test::TempDir dir;
    Registry reg(10);
    std::vector<int> a(4), b(4);
    reg.protect(0, a.data(), 4, kInt);
    reg.protect(1, b.data(), 4, kInt);
    reg.define_dataset(0, {}, "same", -1);
    reg.define_dataset(1, {}, "same", -1);
    Hdf5Writer w(Directory::open(dir.path()), "f.h5", hdf5_schema(reg));
    w.add(0, std::as_bytes(std::span(a)), "");
    std::string msg = test::error_message(ErrorKind::io, [&] { w.add(1, std::as_bytes(std::span(b)), ""); });
    EXPECT_NE(msg.find("f.h5': dataset '/same': "), std::string::npos) << msg;
    EXPECT_NE(msg.find("H5D"), std::string::npos) << "HDF5's own message: " << msg;
}

// A global file's subsets larger than the 8 MiB that verify() reads at
// once: read in row-major pieces, their CRC-32 is the whole subset's, and a
// byte changed in the last piece is caught.
TEST(Hdf5GlobalFile, VerifiesLargeSubsetsInPieces) {
    test::TempDir dir;
    const fs::path path = dir.path() / "global.h5";
    constexpr std::uint64_t kRow = std::uint64_t{3} << 20;
    struct Case {
        std::string name;
        std::vector<std::uint64_t> dims, offset, count;
    };
    // Pieces of 2 rows of 3 MiB; of 2 x 3 MiB in each of the first
    // dimension's 12 MiB; and a small subset, one piece.
    const std::vector<Case> cases = {{"/rows", {5, kRow}, {1, 1000}, {3, kRow - 2000}},
                                     {"/planes", {2, 3, kRow}, {0, 0, 5}, {2, 3, kRow - 10}},
                                     {"/small", {4, 4}, {1, 1}, {2, 3}}};
    auto value = [](std::uint64_t linear) { return static_cast<unsigned char>((linear * 7919) >> 3); };
    {
        h5::Handle f(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        ASSERT_GE(f.get(), 0);
        for (const Case& c : cases) {
            std::vector<hsize_t> dims(c.dims.begin(), c.dims.end());
            std::uint64_t n = 1;
            for (std::uint64_t d : c.dims) n *= d;
            std::vector<unsigned char> bytes(n);
            for (std::uint64_t i = 0; i < n; ++i) bytes[i] = value(i);
            h5::Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
            h5::Handle ds(H5Dcreate2(f.get(), c.name.c_str(), H5T_NATIVE_UCHAR, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                     H5P_DEFAULT),
                          H5Dclose);
            ASSERT_GE(ds.get(), 0);
            ASSERT_GE(H5Dwrite(ds.get(), H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), 0);
        }
    }
    // The subset's bytes, row-major, as one read lays them out.
    auto subset_crc = [&](const Case& c) {
        std::vector<std::byte> out;
        std::vector<std::uint64_t> at(c.count.size(), 0);
        const std::size_t last = c.count.size() - 1;
        for (;;) {
            std::uint64_t linear = 0;
            for (std::size_t k = 0; k < at.size(); ++k) linear = linear * c.dims[k] + c.offset[k] + at[k];
            for (std::uint64_t j = 0; j < c.count[last]; ++j) out.push_back(static_cast<std::byte>(value(linear + j)));
            std::size_t k = last;
            while (k > 0 && ++at[k - 1] == c.count[k - 1]) at[--k] = 0;
            if (k == 0) break;
        }
        return crc32_of(out);
    };
    const h5::GlobalFileReader reader(path);
    std::vector<h5::SubsetRecord> subsets;
    for (const Case& c : cases) {
        subsets.push_back(h5::SubsetRecord{0, 0, 7, subset_crc(c), c.offset, c.count});
        reader.verify(c.name, subsets.back());
    }
    // The last byte of /rows' subset: row 3, column kRow - 1001.
    const std::uint64_t at = reader.byte_offset("/rows", {3, kRow - 1001});
    {
        File f = File::open_update(path);
        std::byte b{};
        f.read_exact_at(std::span(&b, 1), at);
        b = ~b;
        f.write_all_at(std::span(&b, 1), at);
    }
    const h5::GlobalFileReader damaged(path);
    std::string msg = test::error_message(ErrorKind::corrupt, [&] { damaged.verify(cases[0].name, subsets[0]); });
    EXPECT_NE(msg.find("fails its checksum"), std::string::npos) << msg;
    damaged.verify(cases[1].name, subsets[1]);
}

TEST(Hdf5Groups, TreeAndNames) {
    GroupTree t;
    int a = t.add("a", 0);
    int b = t.add("b", a);
    EXPECT_EQ(t.path(b), (std::vector<std::string>{"a", "b"}));
    t.rename(a, "z");
    EXPECT_EQ(t.path(b), (std::vector<std::string>{"z", "b"}));
    test::error_message(ErrorKind::usage, [&] { t.add("b", a); });
    test::error_message(ErrorKind::usage, [&] { t.add("x/y", 0); });
    test::error_message(ErrorKind::usage, [&] { t.add(".", 0); });
    test::error_message(ErrorKind::usage, [&] { t.add("c", 7); });
    test::error_message(ErrorKind::usage, [&] { t.rename(0, "root"); });
}

TEST(Hdf5Schema, DefaultsAndReprotection) {
    Registry reg(10);
    std::vector<int> v(6);
    reg.protect(3, v.data(), 6, kInt);
    auto s = hdf5_schema(reg);
    EXPECT_EQ(s->datasets.at(3).name, "Dataset_3");
    EXPECT_EQ(s->datasets.at(3).dims, (std::vector<std::uint64_t>{6}));
    EXPECT_TRUE(s->datasets.at(3).group.empty());
    test::error_message(ErrorKind::usage, [&] { reg.define_dataset(3, {4, 2}, "", -1); });
    reg.define_dataset(3, {2, 3}, "v", -1);
    reg.protect(3, v.data(), 6, kInt);  // same count: the shape stays
    EXPECT_EQ(hdf5_schema(reg)->datasets.at(3).dims, (std::vector<std::uint64_t>{2, 3}));
    reg.protect(3, v.data(), 5, kInt);  // another count: one dimension, the name stays
    s = hdf5_schema(reg);
    EXPECT_EQ(s->datasets.at(3).dims, (std::vector<std::uint64_t>{5}));
    EXPECT_EQ(s->datasets.at(3).name, "v");
}

}  // namespace
}  // namespace mlckpt::core
