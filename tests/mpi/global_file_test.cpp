// One global HDF5 file (FTI_L4_H5_SINGLE) and FTI's variate processor
// restart ([restart] failure = 3): global datasets written by N ranks are
// recovered bit for bit by M ranks, each declaring its own subsets; a
// damaged file is detected and an older one taken; bad declarations fail
// the checkpoint on every rank and leave the previous file as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <random>
#include <regex>
#include <sstream>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

// Dataset "grid" (ints, 26 x 12, in the root group): each rank holds a
// block of rows, one variable per row. Dataset "/fields/cells" (a compound
// with padding, 26 x 12): each rank holds a block of columns, one variable
// whose subset is not contiguous in the file. Blocks are uneven when the
// rank count does not divide 26 or 12.
constexpr std::uint64_t kRows = 26;
constexpr std::uint64_t kCols = 12;
constexpr int kGrid = 0;
constexpr int kCells = 1;

struct Cell {
    std::int32_t one;
    double x;  // after 4 bytes of padding
    std::int32_t two;
};

std::int32_t grid_value(std::uint64_t i, std::uint64_t j, int version) {
    return static_cast<std::int32_t>(version * 100000 + i * 1000 + j + 1);
}

Cell cell_value(std::uint64_t i, std::uint64_t j, int version) {
    const auto n = static_cast<std::int32_t>(i * kCols + j);
    return {n + version, static_cast<double>(n) / 8.0 + version, 2 * n + 1};
}

std::pair<std::uint64_t, std::uint64_t> block(std::uint64_t n, int rank, int size) {
    return {n * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(size),
            n * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(size)};
}

class Application {
  public:
    Application() : rank_(app_rank()) {
        MPI_Comm_size(FTI_COMM_WORLD, &size_);
        rows_ = block(kRows, rank_, size_);
        cols_ = block(kCols, rank_, size_);
        grid_.assign(rows_.second - rows_.first, std::vector<std::int32_t>(kCols));
        cells_.assign(kRows * (cols_.second - cols_.first), Cell{});
    }

    // Declares both datasets with `dims` (a restart passes zeros, then
    // takes the stored shape) and this rank's subsets.
    void declare(bool restarting) {
        ASSERT_FTI(FTI_SCES, FTI_InitGroup(&fields_, "fields", nullptr));
        cell_type_ = FTI_InitCompositeType("Cell", sizeof(Cell), nullptr);
        ASSERT_GE(cell_type_, 0) << FTI_LastError();
        ASSERT_FTI(FTI_SCES, FTI_AddScalarField(cell_type_, "one", FTI_INTG, offsetof(Cell, one)));
        ASSERT_FTI(FTI_SCES, FTI_AddScalarField(cell_type_, "x", FTI_DBLE, offsetof(Cell, x)));
        ASSERT_FTI(FTI_SCES, FTI_AddScalarField(cell_type_, "two", FTI_INTG, offsetof(Cell, two)));
        FTIT_hsize_t dims[2] = {kRows, kCols};
        ASSERT_FTI(FTI_SCES, FTI_DefineGlobalDataset(kGrid, 2, dims, "grid", nullptr, FTI_INTG));
        ASSERT_FTI(FTI_SCES, FTI_DefineGlobalDataset(kCells, 2, dims, "cells", &fields_, cell_type_));
        for (std::size_t r = 0; r < grid_.size(); ++r) {
            const int id = static_cast<int>(10 + r);
            ASSERT_FTI(FTI_SCES, FTI_Protect(id, grid_[r].data(), kCols, FTI_INTG));
            FTIT_hsize_t offset[2] = {rows_.first + r, 0};
            FTIT_hsize_t count[2] = {1, kCols};
            ASSERT_FTI(FTI_SCES, FTI_AddSubset(id, 2, offset, count, kGrid));
        }
        ASSERT_FTI(FTI_SCES, FTI_Protect(1, cells_.data(), static_cast<int64_t>(cells_.size()), cell_type_));
        FTIT_hsize_t offset[2] = {0, cols_.first};
        FTIT_hsize_t count[2] = {kRows, cols_.second - cols_.first};
        ASSERT_FTI(FTI_SCES, FTI_AddSubset(1, 2, offset, count, kCells));
        ASSERT_FTI(FTI_SCES, FTI_Protect(2, &step_, 1, FTI_INTG));  // in no global dataset
        if (restarting) {
            FTIT_hsize_t none[2] = {0, 0};
            ASSERT_FTI(FTI_SCES, FTI_UpdateGlobalDataset(kGrid, 2, none));
        }
    }

    void fill(int version) {
        for (std::size_t r = 0; r < grid_.size(); ++r) {
            for (std::uint64_t j = 0; j < kCols; ++j) grid_[r][j] = grid_value(rows_.first + r, j, version);
        }
        const std::uint64_t width = cols_.second - cols_.first;
        for (std::uint64_t i = 0; i < kRows; ++i) {
            for (std::uint64_t j = 0; j < width; ++j) cells_[i * width + j] = cell_value(i, cols_.first + j, version);
        }
        step_ = version;
    }

    void clear() {
        for (auto& row : grid_) std::fill(row.begin(), row.end(), -1);
        std::fill(cells_.begin(), cells_.end(), Cell{-1, -1.0, -1});
        step_ = -7;
    }

    // Every element of both subsets, bit for bit (the fields of Cell; its
    // padding is not data).
    void expect_version(int version) const {
        for (std::size_t r = 0; r < grid_.size(); ++r) {
            for (std::uint64_t j = 0; j < kCols; ++j) {
                ASSERT_EQ(grid_[r][j], grid_value(rows_.first + r, j, version))
                    << "grid[" << rows_.first + r << "][" << j << "] on rank " << rank_;
            }
        }
        const std::uint64_t width = cols_.second - cols_.first;
        for (std::uint64_t i = 0; i < kRows; ++i) {
            for (std::uint64_t j = 0; j < width; ++j) {
                const Cell& got = cells_[i * width + j];
                const Cell want = cell_value(i, cols_.first + j, version);
                ASSERT_TRUE(got.one == want.one && got.two == want.two &&
                            std::memcmp(&got.x, &want.x, sizeof(double)) == 0)
                    << "cells[" << i << "][" << cols_.first + j << "] on rank " << rank_;
            }
        }
        EXPECT_EQ(step_, -7) << "a variable in no global dataset keeps its value";
    }

    // Half of the ranks FTI_Recover, the others FTI_RecoverVar in a
    // shuffled order, as FTI's own test of the variate restart does.
    void recover() {
        if (rank_ % 2 == 0) {
            ASSERT_FTI(FTI_SCES, FTI_Recover());
            return;
        }
        std::vector<int> ids = {1, 2};
        for (std::size_t r = 0; r < grid_.size(); ++r) ids.push_back(static_cast<int>(10 + r));
        std::shuffle(ids.begin(), ids.end(), std::mt19937(static_cast<unsigned>(rank_)));
        ASSERT_FTI(FTI_SCES, FTI_RecoverVarInit());
        for (int id : ids) ASSERT_FTI(FTI_SCES, FTI_RecoverVar(id));
        ASSERT_FTI(FTI_SCES, FTI_RecoverVarFinalize());
    }

  private:
    int rank_;
    int size_ = 0;
    std::pair<std::uint64_t, std::uint64_t> rows_, cols_;
    std::vector<std::vector<std::int32_t>> grid_;
    std::vector<Cell> cells_;
    std::int32_t step_ = 0;
    FTIT_H5Group fields_{};
    fti_id_t cell_type_ = -1;
};

ConfigOptions single_file(bool keep) {
    ConfigOptions o;
    o.node_size = 1;
    o.basic = {{"h5_single_file_enable", "1"},
               {"h5_single_file_dir", (workdir() / "vpr").string()},
               {"h5_single_file_keep", keep ? "1" : "0"}};
    return o;
}

fs::path vpr_file(int id) {
    char name[64];
    std::snprintf(name, sizeof name, "VPR-h5-ID%08d.h5", id);
    return workdir() / "vpr" / name;
}

// Rank 0 sets [restart] failure = 3 and one rank per node, as a job
// script does before relaunching on another number of ranks.
void ask_for_variate_restart(const std::string& cfg) {
    if (world_rank() == 0) {
        std::ifstream in(cfg);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        text = std::regex_replace(text, std::regex("(^|\n)failure *=[^\n]*"), "$1failure = 3");
        text = std::regex_replace(text, std::regex("(^|\n)node_size *=[^\n]*"), "$1node_size = 1");
        std::ofstream(cfg) << text;
    }
    world_barrier();
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Phase 1's beginning in the tests that use Application: both datasets
// declared, version 1 written into global file 1. Returns FTI_Checkpoint's
// code, for the test to assert.
int declare_and_write_version_1(Application& app) {
    app.declare(false);
    app.fill(1);
    return FTI_Checkpoint(1, FTI_L4_H5_SINGLE);
}

// Phase 2's beginning: FTI started on `cfg`, which asks for failure = 3,
// and FTI_Status says a variate restart. False where start() says the
// launch goes no further.
bool start_variate_restart(const std::string& cfg) {
    if (!start(cfg)) return false;
    EXPECT_EQ(FTI_Status(), 3);
    return true;
}

// Phase 1 (N ranks): two global files (the first replaced by the second
// unless `keep`) and an ordinary checkpoint, then a crash. Phase 2 (M
// ranks): failure = 3, the stored shape, a recovery, and a finalize that
// clears the restart state.
TEST(GlobalFile, RestartsOnAnotherRankCount) {
    const std::string cfg = config(single_file(false));
    if (phase() == 1) {
        if (!start(cfg)) return;
        static Application app;
        ASSERT_FTI(FTI_SCES, declare_and_write_version_1(app));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
        app.fill(3);
        ASSERT_FTI(FTI_SCES, FTI_Checkpoint(3, FTI_L4_H5_SINGLE));
        EXPECT_FALSE(fs::exists(vpr_file(1))) << "h5_single_file_keep = 0: the run's previous file goes";
        EXPECT_TRUE(fs::exists(vpr_file(3)));
        EXPECT_TRUE(files_matching(".*\\.partial").empty());
        return crash();
    }
    ask_for_variate_restart(cfg);
    if (!start_variate_restart(cfg)) return;
    static Application app;
    app.declare(true);
    app.clear();
    EXPECT_EQ(FTI_GetDatasetSpan(kGrid, 2)[0], 0u);
    ASSERT_FTI(FTI_SCES, FTI_RecoverDatasetDimension(kGrid));
    ASSERT_EQ(FTI_GetDatasetRank(kGrid), 2);
    const FTIT_hsize_t* span = FTI_GetDatasetSpan(kGrid, 2);
    ASSERT_NE(span, nullptr) << FTI_LastError();
    EXPECT_EQ(span[0], kRows);
    EXPECT_EQ(span[1], kCols);
    EXPECT_EQ(FTI_GetDatasetSpan(kGrid, 3), nullptr) << "the rank differs";
    app.recover();
    app.expect_version(3);
    EXPECT_EQ(FTI_Status(), 0);
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
    EXPECT_TRUE(config_says("failure = 0"));
    EXPECT_TRUE(fs::exists(vpr_file(3))) << "the global file outlives the executions";
}

// The newest file is damaged in one subset's data: the restart verifies
// every subset, names the file, and takes the older one. With both
// damaged, FTI_Init reports FTI_NREC and failure = 3 stays.
TEST(GlobalFile, DamagedFileFallsBackToAnOlderOne) {
    const std::string cfg = config(single_file(true));
    if (phase() == 1) {
        if (!start(cfg)) return;
        static Application app;
        ASSERT_FTI(FTI_SCES, declare_and_write_version_1(app));
        app.fill(2);
        ASSERT_FTI(FTI_SCES, FTI_Checkpoint(2, FTI_L4_H5_SINGLE));
        EXPECT_TRUE(fs::exists(vpr_file(1))) << "h5_single_file_keep = 1";
        return crash();
    }
    // Rows 5 of grid, as version 2 and version 1 wrote them.
    auto damage = [](int id, int version) {
        std::vector<std::int32_t> row(kCols);
        for (std::uint64_t j = 0; j < kCols; ++j) row[j] = grid_value(5, j, version);
        const std::string bytes = slurp(vpr_file(id));
        const auto at = bytes.find(std::string(reinterpret_cast<const char*>(row.data()), kCols * 4));
        ASSERT_NE(at, std::string::npos);
        overwrite_in_place(vpr_file(id), at + 7, 1);
    };
    ask_for_variate_restart(cfg);
    if (phase() == 2) {
        if (world_rank() == 0) damage(2, 2);
        world_barrier();
        if (!start_variate_restart(cfg)) return;
        static Application app;
        app.declare(false);
        app.clear();
        app.recover();
        app.expect_version(1);
        // failure = 3 again for phase 3: FTI_Finalize clears it.
        return crash();
    }
    if (world_rank() == 0) damage(1, 1);
    world_barrier();
    if (!start(cfg, FTI_NREC)) return;
    EXPECT_EQ(FTI_Status(), 0);
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
    EXPECT_TRUE(config_says("failure = 3")) << "relaunching tries again once a file is repaired";
}

// Declarations that do not describe the global arrays fail the checkpoint
// on every rank and write nothing; the previous file stays intact. The
// file reads with h5py as the application's arrays.
TEST(GlobalFile, BadDeclarationsWriteNothing) {
    const std::string cfg = config(single_file(false));
    if (!start(cfg)) return;
    static Application app;
    ASSERT_FTI(FTI_SCES, declare_and_write_version_1(app));
    const std::string good = slurp(vpr_file(1));
    const int rank = app_rank();
    int size = 0;
    MPI_Comm_size(FTI_COMM_WORLD, &size);

    // A hole: the last rank's last row belongs to no subset.
    FTIT_hsize_t dims[2] = {kRows + 1, kCols};
    ASSERT_FTI(FTI_SCES, FTI_UpdateGlobalDataset(kGrid, 2, dims));
    EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(2, FTI_L4_H5_SINGLE));
    EXPECT_NE(std::string(FTI_LastError()).find("every element must belong to exactly one subset"), std::string::npos)
        << FTI_LastError();
    dims[0] = kRows;
    ASSERT_FTI(FTI_SCES, FTI_UpdateGlobalDataset(kGrid, 2, dims));

    // Ranks that declare different shapes.
    FTIT_hsize_t other[2] = {kRows, rank == 0 ? kCols + 1 : kCols};
    ASSERT_FTI(FTI_SCES, FTI_UpdateGlobalDataset(kCells, 2, other));
    if (size > 1) {
        EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(2, FTI_L4_H5_SINGLE));
        EXPECT_NE(std::string(FTI_LastError()).find("declare different global datasets"), std::string::npos)
            << FTI_LastError();
    }
    other[1] = kCols;
    ASSERT_FTI(FTI_SCES, FTI_UpdateGlobalDataset(kCells, 2, other));

    // An overlap: rank 0's first row is claimed again by the last rank, and
    // the dataset has one row more, so that the number of elements matches.
    std::vector<std::int32_t> extra(kCols);
    ASSERT_FTI(FTI_SCES, FTI_Protect(99, extra.data(), kCols, FTI_INTG));
    FTIT_hsize_t offset[2] = {0, 0};
    FTIT_hsize_t count[2] = {1, kCols};
    if (rank == size - 1) ASSERT_FTI(FTI_SCES, FTI_AddSubset(99, 2, offset, count, kGrid));
    dims[0] = kRows + 1;
    ASSERT_FTI(FTI_SCES, FTI_UpdateGlobalDataset(kGrid, 2, dims));
    EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(2, FTI_L4_H5_SINGLE));
    EXPECT_NE(std::string(FTI_LastError()).find("overlap"), std::string::npos) << FTI_LastError();

    // A subset whose count is not its variable's (on the last rank only).
    count[1] = kCols - 1;
    if (rank == size - 1) {
        ASSERT_FTI(FTI_SCES, FTI_UpdateSubset(99, 2, offset, count, kGrid));
    }
    EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(2, FTI_L4_H5_SINGLE));
    if (rank == size - 1) {
        EXPECT_NE(std::string(FTI_LastError()).find("must describe the variable's elements"), std::string::npos)
            << FTI_LastError();
    }

    FTIT_hsize_t three[3] = {0, 0, 1};
    EXPECT_FTI(FTI_NSCS, FTI_AddSubset(99, 3, three, three, kGrid));      // the rank is the dataset's
    EXPECT_FTI(FTI_NSCS, FTI_AddSubset(12345, 2, offset, count, kGrid));  // not protected
    EXPECT_FTI(FTI_NSCS, FTI_UpdateSubset(1, 2, offset, count, kGrid));   // a subset of kCells
    EXPECT_FTI(FTI_NSCS, FTI_DefineGlobalDataset(kGrid, 2, dims, "again", nullptr, FTI_INTG));  // id taken
    EXPECT_FTI(FTI_NSCS, FTI_GetDatasetRank(77));
    EXPECT_FTI(FTI_NSCS, FTI_RecoverDatasetDimension(kGrid));  // no variate restart

    EXPECT_FALSE(fs::exists(vpr_file(2)));
    EXPECT_TRUE(files_matching(".*\\.partial").empty());
    EXPECT_EQ(slurp(vpr_file(1)), good) << "the previous file is intact";

    world_barrier();
    if (world_rank() == 0) {
        const std::string script = std::string(R"(
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
g = f["grid"]
assert g.shape == (26, 12) and g.dtype == np.int32, (g.shape, g.dtype)
i, j = np.meshgrid(np.arange(26), np.arange(12), indexing="ij")
assert (g[...] == 100000 + i * 1000 + j + 1).all()
c = f["fields/cells"]
assert c.shape == (26, 12) and c.dtype.names == ("one", "x", "two"), (c.shape, c.dtype)
n = i * 12 + j
assert (c["one"] == n + 1).all() and (c["two"] == 2 * n + 1).all() and (c["x"] == n / 8.0 + 1).all()
assert f["grid"].attrs["mlckpt_id"] == 0 and f["fields/cells"].attrs["mlckpt_id"] == 1
t = f["mlckpt_subsets"]
assert t.shape[0] == 26 + )") + std::to_string(size) +
                                   R"(, t.shape
print("ok")
)";
        std::ofstream(workdir() / "check.py") << script;
        const std::string command = std::string("'" MLCKPT_H5PY_PYTHON "' '") + (workdir() / "check.py").string() +
                                    "' '" + vpr_file(1).string() + "' > '" + (workdir() / "h5py.out").string() +
                                    "' 2>&1";
        EXPECT_EQ(std::system(command.c_str()), 0) << slurp(workdir() / "h5py.out");
    }
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
}

// The slab: a 1-D global dataset of doubles, a little over 1 MiB per rank
// and uneven (rank r holds kSlab + 3r + 1 elements), so that each rank's
// subset goes to the file around the page cache and the ranks' boundaries
// fall inside the file's 4 KiB blocks. Element g holds slab_value(g).
constexpr FTIT_hsize_t kSlab = FTIT_hsize_t{1} << 17;

FTIT_hsize_t slab_start(int rank) {
    const auto r = static_cast<FTIT_hsize_t>(rank);
    return r * kSlab + 3 * (r * (r - 1) / 2) + r;
}

double slab_value(FTIT_hsize_t g) {
    return static_cast<double>(g) + 1.0 / 3.0;
}

// Checkpoint 2 fails while the global file is written: either a write of
// rank 1 is lost without an error where the file system could not reserve
// the file's storage (no_space_reservation + lost_global_write: the
// read-back finds it), or the reservation meets a full disk
// (reservation_full, or without MLCKPT_FAULT_INJECT a real one: a small
// file system holds the global files and only the first fits) — in these
// every rank returns FTI_NSCS and no partial file stays — or rank 1 is
// killed while the file is written (during_global_write: the job dies).
// Either way the previous file is intact, and a restart on 3 ranks takes
// it (a leftover .partial is no candidate) bit for bit.
TEST(GlobalFile, FailedWriteKeepsThePreviousFile) {
    const char* inject = std::getenv("MLCKPT_FAULT_INJECT");
    const bool real_disk = inject == nullptr;
    const std::string cfg = config(single_file(true));
    const fs::path vpr = workdir() / "vpr";
    int size = 0;
    if (phase() == 1) {
        if (real_disk) {
            unmount_small_file_system(vpr);
            static SmallFileSystem disk(vpr, "6m");  // the first file takes 4 MiB and a little more
            if (!disk.mounted()) GTEST_SKIP() << "mounting a small file system is not allowed here";
            disk.keep();  // phase 2 reads it
        }
        if (!start(cfg)) return;
        MPI_Comm_size(FTI_COMM_WORLD, &size);
        const FTIT_hsize_t first = slab_start(app_rank());
        static std::vector<double> slab(slab_start(app_rank() + 1) - first);
        for (std::size_t i = 0; i < slab.size(); ++i) slab[i] = slab_value(first + i);
        FTIT_hsize_t dims[1] = {slab_start(size)};
        ASSERT_FTI(FTI_SCES, FTI_DefineGlobalDataset(0, 1, dims, "slab", nullptr, FTI_DBLE));
        ASSERT_FTI(FTI_SCES, FTI_Protect(0, slab.data(), static_cast<int64_t>(slab.size()), FTI_DBLE));
        FTIT_hsize_t offset[1] = {first};
        FTIT_hsize_t count[1] = {slab.size()};
        ASSERT_FTI(FTI_SCES, FTI_AddSubset(0, 1, offset, count, 0));
        ASSERT_FTI(FTI_SCES, FTI_Checkpoint(1, FTI_L4_H5_SINGLE));
        const std::string good = slurp(vpr_file(1));
        for (double& x : slab) x = -x;
        EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(2, FTI_L4_H5_SINGLE));
        const bool full = real_disk || std::strstr(inject, "reservation_full") != nullptr;
        EXPECT_NE(std::string(FTI_LastError()).find(full ? "cannot reserve" : "does not hold what was written"),
                  std::string::npos)
            << FTI_LastError();
        world_barrier();
        EXPECT_FALSE(fs::exists(vpr_file(2)));
        EXPECT_TRUE(files_matching(".*\\.partial").empty());
        EXPECT_EQ(slurp(vpr_file(1)), good);
        return crash();
    }
    ask_for_variate_restart(cfg);
    if (!start_variate_restart(cfg)) return;
    MPI_Comm_size(FTI_COMM_WORLD, &size);
    FTIT_hsize_t unknown[1] = {0};
    ASSERT_FTI(FTI_SCES, FTI_DefineGlobalDataset(0, 1, unknown, "slab", nullptr, FTI_DBLE));
    ASSERT_FTI(FTI_SCES, FTI_RecoverDatasetDimension(0));
    const FTIT_hsize_t total = FTI_GetDatasetSpan(0, 1)[0];
    const FTIT_hsize_t first = total * app_rank() / size, last = total * (app_rank() + 1) / size;
    static std::vector<double> mine(last - first);
    ASSERT_FTI(FTI_SCES, FTI_Protect(0, mine.data(), static_cast<int64_t>(mine.size()), FTI_DBLE));
    FTIT_hsize_t offset[1] = {first};
    FTIT_hsize_t count[1] = {last - first};
    ASSERT_FTI(FTI_SCES, FTI_AddSubset(0, 1, offset, count, 0));
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    for (FTIT_hsize_t i = 0; i < mine.size(); ++i) {
        const double want = slab_value(first + i);
        ASSERT_EQ(std::memcmp(&mine[i], &want, sizeof want), 0) << "element " << first + i;
    }
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    if (real_disk) unmount_small_file_system(vpr);
}

}  // namespace
}  // namespace mlckpt::test
