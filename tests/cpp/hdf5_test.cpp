// The wrapper's HDF5 naming (ckpt_io = 5): groups (Group, rename), the
// dataset of each protected variable (Dataset: name, shape, group,
// attributes), and the declarations of global datasets (GlobalDataset).
// Built as C++17 and as C++20 with the other wrapper tests.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "mlckpt/mlckpt.hpp"
#include "scenario.hpp"

namespace mlckpt::test {
namespace {

struct Cell {  // no exact C type: an opaque type of sizeof(Cell) bytes, with padding
    double pos[3];
    std::int32_t id;
};
enum class Phase : std::uint8_t { solid, liquid, gas };

// Dims takes unsigned integers of up to 64 bits, and nothing signed.
static_assert(std::is_constructible_v<Dims, std::vector<std::uint64_t>>);
static_assert(std::is_constructible_v<Dims, std::vector<unsigned>>);
static_assert(std::is_constructible_v<Dims, std::array<FTIT_hsize_t, 2>>);
static_assert(!std::is_constructible_v<Dims, std::vector<int>>);
static_assert(!std::is_constructible_v<Dims, std::vector<bool>>);
static_assert(!std::is_constructible_v<Dims, std::vector<double>>);
#ifdef MLCKPT_HAS_SPAN
static_assert(std::is_constructible_v<Dims, std::span<const std::size_t>>);
static_assert(!std::is_constructible_v<Dims, std::span<const long>>);
#endif

template <typename T>
std::string bytes_of(const T* data, std::size_t count) {
    return std::string(reinterpret_cast<const char*>(data), count * sizeof(T));
}

// Every byte of `count` objects at `data` from the pattern, padding included.
template <typename T>
void fill_bytes(T* data, std::size_t count, int rank, int var, int version) {
    auto* bytes = reinterpret_cast<unsigned char*>(data);
    for (std::size_t i = 0; i < count * sizeof(T); ++i) {
        bytes[i] = static_cast<unsigned char>(pattern(rank, var, version, i));
    }
}

// Variables of several kinds, named, shaped and grouped through the wrapper.
// h5py_names.py reads the files they make and knows this layout.
struct Named {
    explicit Named(int rank) : rank_(rank) {}
    int rank_;
    std::vector<double> temperature = std::vector<double>(6 * 10);
    std::vector<std::int32_t> counts = std::vector<std::int32_t>(7 + static_cast<std::size_t>(rank_));
    std::vector<Cell> cells = std::vector<Cell>(5);
    std::array<std::uint64_t, 5> steps{};
    float blobs[8] = {};
    std::int64_t step = 0;
    std::vector<Phase> phases = std::vector<Phase>(3);

    void protect(Session& s) {
        Group fields = s.create_group("fields");
        Group physics = s.create_group("physics", fields);
        Group renamed = s.create_group("first_name");
        Group inner = s.create_group("inner", renamed);
        EXPECT_EQ(physics.path(), "/fields/physics");
        EXPECT_EQ(physics.parent(), fields);
        EXPECT_EQ(inner.path(), "/first_name/inner");
        Group copy = renamed;
        copy.rename("renamed");  // a handle: every copy, and the paths below, follow
        EXPECT_EQ(renamed.name(), "renamed");
        EXPECT_EQ(inner.path(), "/renamed/inner");
        EXPECT_TRUE(Group().is_root());
        EXPECT_EQ(Group().path(), "/");

        s.protect(0, temperature).name("temperature").shape({6, 10}).group(physics);
        s.protect(1, counts);  // the defaults: "Dataset_1", one dimension, in "/"
        s.protect(2, cells).name("cells").group(fields);
        s.protect(3, steps).name("steps").name_attribute("steps of the run").dim_attribute({5});
        const std::vector<std::uint64_t> two_by_four{2, 4};
        s.protect(4, blobs).group(renamed).name("blobs").shape(two_by_four);
        s.protect(5, step);
        s.dataset(5).name("step");  // the dataset of a variable protected before
#ifdef MLCKPT_HAS_SPAN
        s.protect(6, std::span(phases)).name("phases").group(inner);
#else
        s.protect(6, phases).name("phases").group(inner);
#endif
    }
    void fill(int version) {
        fill_bytes(temperature.data(), temperature.size(), rank_, 0, version);
        fill_bytes(counts.data(), counts.size(), rank_, 1, version);
        fill_bytes(cells.data(), cells.size(), rank_, 2, version);
        fill_bytes(steps.data(), steps.size(), rank_, 3, version);
        fill_bytes(blobs, 8, rank_, 4, version);
        fill_bytes(&step, 1, rank_, 5, version);
        for (std::size_t i = 0; i < phases.size(); ++i)
            phases[i] = static_cast<Phase>((i + static_cast<std::size_t>(version)) % 3);
    }
    // Each dataset's path in the file (as h5py_names.py expects it) and bytes.
    std::vector<std::pair<std::string, std::string>> contents() const {
        return {{"fields/physics/temperature", bytes_of(temperature.data(), temperature.size())},
                {"Dataset_1", bytes_of(counts.data(), counts.size())},
                {"fields/cells", bytes_of(cells.data(), cells.size())},
                {"steps", bytes_of(steps.data(), steps.size())},
                {"renamed/blobs", bytes_of(blobs, 8)},
                {"step", bytes_of(&step, 1)},
                {"renamed/inner/phases", bytes_of(phases.data(), phases.size())}};
    }
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

ConfigOptions hdf5_options() {
    ConfigOptions options;
    options.basic = {{"ckpt_io", "5"}};
    return options;
}

// Phase 1 names, shapes and groups the variables, checkpoints at L4 and
// crashes. Phase 2: h5py finds every name, group, shape and attribute in
// the files (rank 0, without mlckpt); then the ranks restart and recover
// everything bit for bit.
TEST(CppHdf5, NamedDatasetsRoundTrip) {
    const std::string cfg = config(hdf5_options());
    if (phase() == 1) {
        alignas(Session) static unsigned char storage[sizeof(Session)];
        Session& crashing = *new (storage) Session{cfg, MPI_COMM_WORLD};
        static Named named(app_rank());
        named.protect(crashing);
        named.fill(1);
        EXPECT_TRUE(crashing.checkpoint(1, Level::L4));
        for (const auto& [path, bytes] : named.contents()) {
            std::string file = path;
            for (char& c : file) c = c == '/' ? '.' : c;
            std::ofstream(workdir() / ("expected-rank" + std::to_string(app_rank()) + "-" + file), std::ios::binary)
                << bytes;
        }
        return;
    }
    if (world_rank() == 0) {
        const std::string command = std::string("'" MLCKPT_H5PY_PYTHON "' '" MLCKPT_H5PY_NAMES "' '") +
                                    workdir().string() + "' '" + global_dir().string() + "' " +
                                    std::to_string(world_size()) + " > '" + (workdir() / "h5py.out").string() +
                                    "' 2>&1";
        EXPECT_EQ(std::system(command.c_str()), 0) << slurp(workdir() / "h5py.out");
    }
    world_barrier();
    Session s{cfg, MPI_COMM_WORLD};
    ASSERT_EQ(s.status(), 1);
    Named restored(app_rank());
    restored.protect(s);
    s.recover();
    Named expected(app_rank());
    expected.fill(1);
    EXPECT_EQ(restored.contents(), expected.contents()) << "rank " << app_rank() << " recovered bit for bit";
    s.finalize();
}

// The message of the Error that `call` throws (and a failure when none).
template <typename F>
std::string error_of(F&& call, int code = FTI_NSCS) {
    try {
        call();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), code) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no mlckpt::Error";
    return "";
}

#define EXPECT_MESSAGE_HAS(call, text)                                                        \
    do {                                                                                      \
        const std::string message_ = error_of([&] { call; });                                 \
        EXPECT_NE(message_.find(text), std::string::npos) << "message: '" << message_ << "'"; \
    } while (0)

// Rank and shape queries of global datasets, updates of shapes and subsets,
// and every misuse as an Error with a clear message.
TEST(CppHdf5, GlobalDatasetDeclarations) {
    static_assert(static_cast<int>(Level::L4_H5_SINGLE) == FTI_L4_H5_SINGLE);
    Session s{config(hdf5_options()), MPI_COMM_WORLD};
    const std::uint64_t ranks = static_cast<std::uint64_t>(world_size());
    const std::uint64_t me = static_cast<std::uint64_t>(app_rank());
    std::vector<double> rows(4 * 10);
    std::vector<Cell> cells(3);
    s.protect(1, rows);
    s.protect(2, cells);

    Group fields = s.create_group("fields");
    GlobalDataset temperature = s.define_global_dataset<double>(1, {4 * ranks, 10}, "temperature", fields);
    EXPECT_EQ(temperature.id(), 1);
    EXPECT_EQ(temperature.rank(), 2);
    EXPECT_EQ(temperature.shape(), (std::vector<std::uint64_t>{4 * ranks, 10}));
    temperature.add_subset(1, {4 * me, 0}, {4, 10});
    temperature.update_subset(1, {4 * me, 0}, {2, 10});
    temperature.update({4 * ranks, 5, 2});  // a new rank too
    EXPECT_EQ(temperature.rank(), 3);
    EXPECT_EQ(temperature.shape(), (std::vector<std::uint64_t>{4 * ranks, 5, 2}));
    // An opaque element type, a shape from a std::array, the root group.
    const std::array<FTIT_hsize_t, 1> cell_shape{3 * ranks};
    GlobalDataset all_cells = s.define_global_dataset<Cell>(2, cell_shape, "cells");
    all_cells.add_subset(2, {3 * me}, {3});
    EXPECT_EQ(s.global_dataset(2).shape(), std::vector<std::uint64_t>{3 * ranks}) << "a handle by id";
#ifdef MLCKPT_HAS_SPAN
    const std::vector<std::uint64_t> offset{3 * me}, count{3};
    all_cells.update_subset(2, std::span(offset), std::span(count));
#endif

    EXPECT_MESSAGE_HAS(s.define_global_dataset<double>(1, {8}, "again"),
                       "FTI_DefineGlobalDataset: global dataset id 1 is already taken");
    EXPECT_MESSAGE_HAS(s.define_global_dataset<int>(3, {}, "flat"),
                       "FTI_DefineGlobalDataset: rank 0 is invalid; allowed: 1 to 32");
    EXPECT_MESSAGE_HAS(s.define_global_dataset<int>(3, {4}, "a/b"), "global dataset name 'a/b' is invalid");
    EXPECT_MESSAGE_HAS(s.define_global_dataset<int>(3, {4}, std::string("a\0b", 3)),
                       "mlckpt::Session::define_global_dataset: the global dataset name contains a NUL character");
    EXPECT_MESSAGE_HAS(temperature.add_subset(1, {0, 0}, {4, 10, 1}),
                       "mlckpt::GlobalDataset::add_subset: global dataset 1: the offset {0, 0} has 2 dimensions, "
                       "the count {4, 10, 1} 3; both need one value per dimension of the dataset");
    EXPECT_MESSAGE_HAS(temperature.add_subset(1, {0, 0}, {4, 10}),
                       "FTI_AddSubset: global dataset 1 ('temperature') has rank 3, but the subset has rank 2");
    EXPECT_MESSAGE_HAS(temperature.add_subset(9, {0, 0, 0}, {1, 1, 1}),
                       "FTI_AddSubset: variable id 9 is not protected; call FTI_Protect first");
    EXPECT_MESSAGE_HAS(
        all_cells.update_subset(1, {0}, {3}),
        "FTI_UpdateSubset: variable 1 is not a subset of global dataset 2; add it with FTI_AddSubset first");
    EXPECT_MESSAGE_HAS(temperature.update({}), "FTI_UpdateGlobalDataset: rank 0 is invalid");
    GlobalDataset unknown = s.global_dataset(42);
    EXPECT_MESSAGE_HAS(unknown.rank(),
                       "FTI_GetDatasetRank: global dataset id 42 is unknown; define it with FTI_DefineGlobalDataset");
    EXPECT_MESSAGE_HAS(unknown.shape(), "global dataset id 42 is unknown");
    EXPECT_MESSAGE_HAS(unknown.add_subset(1, {0}, {1}), "FTI_AddSubset: global dataset id 42 is unknown");
    EXPECT_MESSAGE_HAS(temperature.recover_dimension(), "FTI_RecoverDatasetDimension: this is no variate restart");

    // Groups and datasets.
    EXPECT_MESSAGE_HAS(s.create_group("fields"), "FTI_InitGroup: group '/' already has the child 'fields'");
    EXPECT_MESSAGE_HAS(s.create_group("a/b", fields), "FTI_InitGroup: group name 'a/b' is invalid");
    EXPECT_MESSAGE_HAS(Group().rename("top"), "mlckpt::Group::rename: the root group \"/\" cannot be renamed");
    Group other = s.create_group("other");
    EXPECT_MESSAGE_HAS(other.rename("fields"), "FTI_RenameGroup: group '/' already has the child 'fields'");
    EXPECT_EQ(other.name(), "other") << "a failed rename changes nothing";
    EXPECT_MESSAGE_HAS(s.dataset(1).shape({7, 10}),
                       "FTI_DefineDataset: variable 1: a dataset of 70 elements does not fit its count 40");
    EXPECT_MESSAGE_HAS(s.dataset(1).shape({}),
                       "mlckpt::Dataset::shape: variable 1: a shape needs at least one dimension");
    EXPECT_MESSAGE_HAS(s.dataset(1).shape({std::uint64_t{1} << 40}),
                       "mlckpt::Dataset::shape: variable 1: dimension 0 of {1099511627776} exceeds the int lengths");
    EXPECT_MESSAGE_HAS(s.dataset(1).name(""), "mlckpt::Dataset::name: variable 1: the name is empty");
    EXPECT_MESSAGE_HAS(s.dataset(77).name("x"), "FTI_DefineDataset: variable id 77 is not protected");
    EXPECT_MESSAGE_HAS(
        s.dataset(1).name_attribute(std::string(256, 'x')),
        "mlckpt::Dataset::name_attribute: variable 1: the attribute has 256 characters; allowed: at most 255");
    EXPECT_MESSAGE_HAS(s.dataset(1).dim_attribute(std::vector<std::uint64_t>(33, 1)),
                       "mlckpt::Dataset::dim_attribute: variable 1: the attribute has 33 values; allowed: at most 32");
    s.dataset(1).name("rows").shape({4, 10}).group(fields).name_attribute(std::string(255, 'x')).dim_attribute({});

    s.finalize();
    // Handles outlive their session only to be refused.
    const std::string ended = "the session this handle was made in has ended (finalized or destroyed)";
    EXPECT_EQ(error_of([&] { (void)temperature.rank(); }), "mlckpt::GlobalDataset::rank: " + ended);
    EXPECT_EQ(error_of([&] { fields.rename("x"); }), "mlckpt::Group::rename: " + ended);
    Session next{config(hdf5_options()), MPI_COMM_WORLD};
    EXPECT_EQ(error_of([&] { next.create_group("child", fields); }), "mlckpt::Session::create_group: " + ended)
        << "a group of the previous session is not one of this one";
    next.finalize();
}

// The global HDF5 file (Level::L4_H5_SINGLE) through the wrapper. Phase 1,
// 4 ranks: a grid of doubles in group "fields" and a list of particles
// (an opaque struct) in the root group, each rank holding a band of rows
// and a range of particles; a checkpoint to the single file, then a crash.
// Between the launches h5py reads the file as the application's arrays.
// Phase 2, 2 ranks, [restart] failure = 3: status() is 3, the shapes come
// back through recover_dimension(), each rank declares its bigger band and
// range, and recover() loads them bit for bit.
constexpr std::uint64_t kRows = 10;
constexpr std::uint64_t kCols = 6;
constexpr std::uint64_t kParticles = 13;

struct Particle {  // no padding: every byte is data
    double x;
    std::int32_t id;
    std::int32_t kind;
};

double grid_value(std::uint64_t i, std::uint64_t j) {
    return static_cast<double>(i * 1000 + j) / 8.0;
}
Particle particle_value(std::uint64_t k) {
    return {static_cast<double>(k) * 0.25, static_cast<std::int32_t>(k), static_cast<std::int32_t>(k % 3)};
}

// [first, last) of n elements on `rank` of `ranks`.
std::pair<std::uint64_t, std::uint64_t> share(std::uint64_t n, int rank, int ranks) {
    const auto r = static_cast<std::uint64_t>(rank);
    const auto size = static_cast<std::uint64_t>(ranks);
    return {n * r / size, n * (r + 1) / size};
}

struct Shares {
    std::vector<double> band;
    std::vector<Particle> particles;
    std::pair<std::uint64_t, std::uint64_t> rows, range;

    // Protects this rank's band and range of the shapes given, as subsets
    // of the two global datasets.
    void declare(Session& s, GlobalDataset& grid, GlobalDataset& list, std::uint64_t rows_total,
                 std::uint64_t particles_total) {
        int ranks = 1;
        MPI_Comm_size(s.comm(), &ranks);
        rows = share(rows_total, app_rank(), ranks);
        range = share(particles_total, app_rank(), ranks);
        band.assign((rows.second - rows.first) * kCols, -1.0);
        particles.assign(range.second - range.first, Particle{-1.0, -1, -1});
        s.protect(1, band);
        s.protect(2, particles);
        grid.add_subset(1, {rows.first, 0}, {rows.second - rows.first, kCols});
        list.add_subset(2, {range.first}, {range.second - range.first});
    }
    void fill() {
        for (std::uint64_t i = rows.first; i < rows.second; ++i) {
            for (std::uint64_t j = 0; j < kCols; ++j) band[(i - rows.first) * kCols + j] = grid_value(i, j);
        }
        for (std::uint64_t k = range.first; k < range.second; ++k) particles[k - range.first] = particle_value(k);
    }
    bool as_filled() const {
        Shares expected = *this;
        expected.fill();
        return std::memcmp(band.data(), expected.band.data(), band.size() * sizeof(double)) == 0 &&
               std::memcmp(particles.data(), expected.particles.data(), particles.size() * sizeof(Particle)) == 0;
    }
};

ConfigOptions single_file_options() {
    ConfigOptions options = hdf5_options();
    options.node_size = 1;
    options.basic["h5_single_file_enable"] = "1";
    options.basic["h5_single_file_dir"] = (workdir() / "single").string();
    return options;
}

// What a job script does before relaunching on another number of ranks:
// [restart] failure = 3.
void request_variate_restart(const std::string& cfg) {
    if (world_rank() == 0) {
        std::string text = slurp(cfg);
        const std::string key = "\nfailure = ";
        const auto at = text.find(key);
        ASSERT_NE(at, std::string::npos) << text;
        text.replace(at + key.size(), text.find('\n', at + 1) - at - key.size(), "3");
        std::ofstream(cfg) << text;
    }
    world_barrier();
}

TEST(CppHdf5, GlobalFileRestartsOnTwoRanks) {
    const std::string cfg = config(single_file_options());
    if (phase() == 1) {
        alignas(Session) static unsigned char storage[sizeof(Session)];
        Session& crashing = *new (storage) Session{cfg, MPI_COMM_WORLD};
        Group fields = crashing.create_group("fields");
        GlobalDataset grid = crashing.define_global_dataset<double>(0, {kRows, kCols}, "grid", fields);
        GlobalDataset list = crashing.define_global_dataset<Particle>(1, {kParticles}, "particles");
        static Shares shares;
        shares.declare(crashing, grid, list, kRows, kParticles);
        shares.fill();
        EXPECT_TRUE(crashing.checkpoint(1, Level::L4_H5_SINGLE));
        return;
    }
    const fs::path file = workdir() / "single" / "VPR-h5-ID00000001.h5";
    if (world_rank() == 0) {
        const std::string command = std::string("'" MLCKPT_H5PY_PYTHON "' '" MLCKPT_H5PY_NAMES "' --global '") +
                                    file.string() + "' > '" + (workdir() / "h5py.out").string() + "' 2>&1";
        EXPECT_EQ(std::system(command.c_str()), 0) << slurp(workdir() / "h5py.out");
    }
    request_variate_restart(cfg);
    Session s{cfg, MPI_COMM_WORLD};
    ASSERT_EQ(s.status(), 3);
    Group fields = s.create_group("fields");
    // The shapes are not known yet: zeros, then the file's.
    GlobalDataset grid = s.define_global_dataset<double>(0, {0, 0}, "grid", fields);
    GlobalDataset list = s.define_global_dataset<Particle>(1, {0}, "particles");
    EXPECT_EQ(grid.shape(), (std::vector<std::uint64_t>{0, 0}));
    EXPECT_EQ(grid.recover_dimension(), (std::vector<std::uint64_t>{kRows, kCols}));
    EXPECT_EQ(list.recover_dimension(), std::vector<std::uint64_t>{kParticles});
    EXPECT_EQ(grid.rank(), 2);
    std::vector<double> any(3);
    s.protect(1, any);
    EXPECT_EQ(error_of([&] { s.realloc(1, any); }, FTI_NREC),
              "mlckpt::Session::realloc: variable 1: a restart from the global HDF5 file (status() is 3) keeps no "
              "size per rank; size the variable from the shapes of GlobalDataset::recover_dimension()");
    Shares shares;
    shares.declare(s, grid, list, grid.shape()[0], list.shape()[0]);
    s.recover();
    EXPECT_TRUE(shares.as_filled()) << "rank " << app_rank() << " of 2 recovered its band and range bit for bit";
    EXPECT_EQ(s.status(), 0);
    s.finalize();
    EXPECT_TRUE(config_says("failure = 0"));
}

}  // namespace
}  // namespace mlckpt::test
