// Harness for MPI tests that span several launches. Each launch runs one
// gtest test with --phase=N (1, 2, ...) in a shared --workdir, so phase 2
// really is a new process that must find what phase 1 left on disk.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "fti.h"

namespace mlckpt::test {

namespace fs = std::filesystem;

// A launch whose test skipped itself (GTEST_SKIP) prints the marker on rank 0
// and exits with the code on every rank; run_phases.sh then skips the whole
// scenario (CTest's SKIP_RETURN_CODE), whichever phase it was.
inline constexpr int kSkippedExitCode = 77;
inline constexpr const char* kSkippedMarker = "=== SKIPPED: the scenario's test skipped itself (its reason is above)";

int phase();
const fs::path& workdir();
void set_launch_arguments(int phase, fs::path workdir);  // from main()

int world_rank();
int world_size();
void world_barrier();
int app_rank();       // rank in FTI_COMM_WORLD
bool session_open();  // an application rank between FTI_Init and FTI_Finalize

struct ConfigOptions {
    int node_size = 0;                               // 0: 2 when the rank count is even, else 1
    int group_size = 0;                              // 0: 1
    std::map<std::string, std::string> basic;        // extra or overriding [basic] keys
    std::map<std::string, std::string> advanced;     // extra [advanced] keys
    std::map<std::string, std::string> injection{};  // [injection] keys, when any
    // [compression] keys, over those of the COMPRESS variants (compression())
    std::map<std::string, std::string> compression{};
};

// Phase 1: rank 0 writes <workdir>/config.fti (local_test = 1, directories in
// the workdir). Later phases reuse the file the library rewrote. Collective.
std::string config(const ConfigOptions& options = {});
// Nodes of two ranks, two nodes per group: L2 and L3 have partners with 4 ranks.
ConfigOptions two_node_group();
fs::path local_dir();  // ckpt_dir (on separate nodes: this node's own)
// Where node `node`'s local storage is, seen from any rank: emptying it
// loses the node's checkpoint files (simulated nodes: its folder in
// ckpt_dir; separate nodes: the node's whole disk, WORKDIR/nodes/n<node>,
// which the node's processes see as ckpt_dir).
fs::path node_storage(int node);
fs::path global_dir();  // glbl_dir
fs::path meta_dir();    // meta_dir

// The regular files below `root` that `wanted` selects; directories that
// vanish during the walk (other ranks' old checkpoints) are skipped.
std::vector<fs::path> files_below(const fs::path& root, const std::function<bool(const fs::path&)>& wanted);
// All files below the workdir whose name is `name`, or matches the regular
// expression `pattern`.
std::vector<fs::path> find_files(const std::string& name);
std::vector<fs::path> files_matching(const std::string& pattern);
fs::path the_file(const std::string& name);  // exactly one, or the test fails
// Whether no file named `name` is left within 30 s: the files of retired
// checkpoints go in the background after FTI_Checkpoint returns.
bool removed_in_background(const std::string& name);
// Runs `step`, with this process's files limited to `bytes` when `limited`:
// every write past that fails (EFBIG, where a full disk gives ENOSPC)
// instead of killing the process. The limit is lifted afterwards.
void with_file_size_limit(bool limited, std::uint64_t bytes, const std::function<void()>& step);
// The rank in the names of application rank `app_rank`'s files: its rank in
// FTI_Init's communicator, as FTI names them (in head mode, one head per
// node of two: 2 * app_rank + 1).
int file_rank(int app_rank);
// "Ckpt<id>-Rank<r>.fti" (".h5" with ckpt_io = 5), r = file_rank(app_rank)
std::string data_file(int ckpt_id, int app_rank);
// "Ckpt<id>-Pcof<r>.fti": the L2 copy that application rank `holder` keeps.
std::string partner_file(int ckpt_id, int holder);
// The extension of per-rank files and their partner copies and parity, as
// a regular expression: "\\.fti", or "\\.h5" with ckpt_io = 5.
std::string ckpt_ext_regex();
// The file that holds `rank`'s data of an L4 checkpoint: data_file(), or
// with ckpt_io 2 and 4 the shared file (file 0 of a container).
std::string l4_file(int ckpt_id, int rank);
bool config_says(const std::string& line);  // the config file has this line

// Fault injection on files, for real.
void truncate_file(const fs::path& path, std::uintmax_t size);
void overwrite_in_place(const fs::path& path, std::uintmax_t offset, std::uintmax_t bytes);

// A copy of every file below `from` at the same place below `to` (which is
// replaced), and whether two trees hold the same files byte for byte.
void copy_tree(const fs::path& from, const fs::path& to);
bool same_files(const fs::path& a, const fs::path& b);

// Removes the node-local directories of simulated nodes `nodes` (rank 0),
// then a barrier.
void delete_nodes(std::initializer_list<int> nodes);
// The same for every node: all node-local storage is lost.
void delete_every_node();

// A small tmpfs mounted on `dir` by rank 0, where mounting is allowed: a
// real full disk (ENOSPC). Collective. Unmounted when the object goes,
// unless kept() for a later launch (a launch that ends in a kill keeps it
// anyway).
class SmallFileSystem {
  public:
    SmallFileSystem(fs::path dir, const std::string& size);
    ~SmallFileSystem();
    SmallFileSystem(const SmallFileSystem&) = delete;
    SmallFileSystem& operator=(const SmallFileSystem&) = delete;
    bool mounted() const { return mounted_; }
    const fs::path& dir() const { return dir_; }
    void keep() { owner_ = false; }

  private:
    fs::path dir_;
    bool mounted_ = false;
    bool owner_ = false;  // unmounts (no MPI call then: it may be after MPI_Finalize)
};
// Unmounts what a SmallFileSystem of an earlier launch left on `dir` (rank 0).
void unmount_small_file_system(const fs::path& dir);

// What the library prints (stdout and stderr) during `step`.
std::string output_of(const std::function<void()>& step);

// Marker files let a later phase check how far an earlier one got.
void mark(const std::string& name);
bool marked(const std::string& name);

// A deterministic set of protected variables of rank-dependent sizes and
// types (ints, doubles, odd-sized bytes, an opaque struct type, and an empty
// variable), whose content is a function of (rank, variable, version).
class Dataset {
  public:
    explicit Dataset(int rank);
    void protect();  // FTI_Protect every variable (asserts success)
    void fill(int version);
    void clear();  // zeroes every byte
    bool matches(int version) const;

    static constexpr int kVariables = 5;
    std::size_t bytes_of(int var) const;

    std::vector<std::int32_t> ints;
    std::vector<double> doubles;
    std::vector<std::uint8_t> bytes;
    struct Particle {
        double position[2];
        std::int32_t charge;
        std::int32_t flags;
    };
    std::vector<Particle> particles;
    std::vector<double> empty;

  private:
    int rank_;
    fti_id_t particle_type_ = -1;
};

std::uint64_t pattern(int rank, int var, int version, std::size_t index);

// A temperature field of 256 x 256 doubles as a heat-distribution solver
// leaves it: values on a coarse grid of levels, as fields of finite
// precision are (512 KiB; it compresses).
std::vector<double> heat_field(int rank, int version);

// The Dataset and a 3 MiB variable (id 10), enough to take writes past a
// lowered file-size limit and through the direct I/O paths. Made after
// FTI_Init.
struct LargeDataset {
    Dataset d{app_rank()};
    std::vector<std::uint64_t> large = std::vector<std::uint64_t>(3u << 17);

    void protect();
    void fill(int version);
    bool matches(int version) const;
};

// The ckpt_io of the harness's configurations: environment MLCKPT_TEST_IO
// (set by the FTI-FF variants of the scenarios), else "1" (POSIX).
std::string io_mode();

// Head mode (environment MLCKPT_TEST_HEADS=1, set by the "heads" variants of
// the scenarios): head = 1 with keep_heads_alive, inline_l2..l4 = 0, so the
// heads do the L2/L3/L4 work asynchronously.
bool heads_mode();
// Separate nodes (MLCKPT_TEST_NODES=K, the "multinode" variants): the launch
// runs on K nodes with hostnames and node-local storage of their own
// (tests/support/node_agent.sh) and the configuration has local_test = 0;
// 0 when nodes are simulated (local_test = 1).
int separate_nodes();
// Background mode (MLCKPT_TEST_BACKGROUND=1, the "background" variants):
// head = 0 and inline_l2..l4 = 0, so each rank's worker thread does the
// L2/L3/L4 work after the commit.
bool background_mode();
// Snapshot mode (MLCKPT_TEST_SNAPSHOT=1, the "snapshot" variants):
// async_snapshot = 1, FTI_Checkpoint copies the data and the rank's worker
// writes the checkpoint.
bool snapshot_mode();
// The codec every level's files use (MLCKPT_TEST_COMPRESS, the "lz4" and
// "zstd" variants), "" for none.
std::string compression();
// Heads, background or snapshot: checkpoints of L2-L4 are committed with
// the files alone and completed afterwards.
bool promoted_after_commit();
// MPI_THREAD_MULTIPLE with MLCKPT_TEST_THREAD_MULTIPLE=1 (the "multiple"
// variants), else MPI_THREAD_SINGLE: what main() initialises MPI with.
int mpi_thread_level();
int app_ranks_expected();  // application ranks of this launch
// FTI_Init; returns false on a head rank (which has then finalized) and
// checks the application ranks' result against `expected`.
bool start(const std::string& cfg, int expected = FTI_SCES);
// Ends a launch as a crash would: in head mode by a real kill (after the
// heads finished the last checkpoint), else by returning without Finalize.
void crash();

// The two halves of most scenarios. The first initializes, protects a
// Dataset filled with `version`, checkpoints it and stops without
// FTI_Finalize (a crash). The second initializes (expecting FTI_Status() ==
// `status`), recovers, checks the data bit for bit and finalizes.
void checkpoint_then_crash(const std::string& cfg, int ckpt_id, int level, int version);
// Phase 1 of the fallback scenarios: an L4 checkpoint (version 1), then a
// newer L1 checkpoint (version 2); the launch ends without Finalize.
void write_l4_then_l1(const std::string& cfg);
void recover_then_finalize(const std::string& cfg, int version, int status = 1);

}  // namespace mlckpt::test

// Asserts an FTI call's result and prints FTI_LastError() when it differs.
#define EXPECT_FTI(expected, call)                                          \
    do {                                                                    \
        int fti_rc_ = (call);                                               \
        EXPECT_EQ(fti_rc_, (expected)) << #call << ": " << FTI_LastError(); \
    } while (0)
#define ASSERT_FTI(expected, call)                                          \
    do {                                                                    \
        int fti_rc_ = (call);                                               \
        ASSERT_EQ(fti_rc_, (expected)) << #call << ": " << FTI_LastError(); \
    } while (0)
