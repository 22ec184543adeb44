#include "scenario.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <regex>
#include <thread>

namespace mlckpt::test {

namespace {

int g_phase = 1;
fs::path g_workdir;

}  // namespace

int phase() {
    return g_phase;
}
const fs::path& workdir() {
    return g_workdir;
}

void set_launch_arguments(int phase, fs::path dir) {
    g_phase = phase;
    g_workdir = std::move(dir);
}

int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int world_size() {
    int s = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

void world_barrier() {
    MPI_Barrier(MPI_COMM_WORLD);
}

namespace {
void world_barrier_app() {
    MPI_Barrier(FTI_COMM_WORLD);
}
}  // namespace

int app_rank() {
    int r = 0;
    MPI_Comm_rank(FTI_COMM_WORLD, &r);
    return r;
}

fs::path local_dir() {
    return workdir() / "local";
}
fs::path node_storage(int node) {
    if (separate_nodes() == 0) return local_dir() / ("node" + std::to_string(node));
    return workdir() / "nodes" / ("n" + std::to_string(node));
}
fs::path global_dir() {
    return workdir() / "global";
}
fs::path meta_dir() {
    return workdir() / "meta";
}

ConfigOptions two_node_group() {
    ConfigOptions o;
    o.node_size = 2;
    o.group_size = 2;
    return o;
}

std::string config(const ConfigOptions& o) {
    fs::path path = workdir() / "config.fti";
    if (phase() == 1 && world_rank() == 0) {
        int node_size = o.node_size > 0 ? o.node_size : (world_size() % 2 == 0 ? 2 : 1);
        if (separate_nodes() > 0) node_size = world_size() / separate_nodes();  // as the launch placed them
        std::map<std::string, std::string> basic = {
            {"node_size", std::to_string(node_size)},
            {"group_size", std::to_string(o.group_size > 0 ? o.group_size : 1)},
            {"ckpt_dir", local_dir().string()},
            {"glbl_dir", global_dir().string()},
            {"meta_dir", meta_dir().string()},
            {"verbosity", "2"},
            {"ckpt_io", io_mode()},
        };
        if (heads_mode()) {
            basic["head"] = "1";
            basic["keep_heads_alive"] = "1";
        }
        if (promoted_after_commit()) basic["inline_l2"] = basic["inline_l3"] = basic["inline_l4"] = "0";
        if (snapshot_mode()) basic["async_snapshot"] = "1";
        for (const auto& [k, v] : o.basic) basic[k] = v;
        std::ofstream out(path);
        out << "# written by the mlckpt test harness\n[basic]\n";
        for (const auto& [k, v] : basic) out << k << " = " << v << "\n";
        out << "\n[restart]\n; filled in by the library\nfailure = 0\nexec_id =\n";
        out << "\n[advanced]\nlocal_test = " << (separate_nodes() > 0 ? 0 : 1) << "\nblock_size = 64\n";
        for (const auto& [k, v] : o.advanced) out << k << " = " << v << "\n";
        std::map<std::string, std::string> compressed = o.compression;
        if (!compression().empty()) {
            // Every level that may compress, in blocks of 1 KiB so that each
            // variable has several; the shared L4 files may not.
            compressed.emplace("block_size", "1");
            const bool shared_l4 = io_mode() == "2" || io_mode() == "4";
            for (int level = 1; level <= (shared_l4 ? 3 : 4); ++level) {
                compressed.emplace("l" + std::to_string(level), compression());
            }
        }
        if (!compressed.empty()) out << "\n[compression]\n";
        for (const auto& [k, v] : compressed) out << k << " = " << v << "\n";
        if (!o.injection.empty()) out << "\n[injection]\n";
        for (const auto& [k, v] : o.injection) out << k << " = " << v << "\n";
    }
    world_barrier();
    return path.string();
}

// A walk by hand, one directory at a time: other ranks delete their old
// checkpoints while this one searches, and a directory that vanishes under
// the walk must cost only its own entries, not end the whole search (a
// recursive_directory_iterator stops at the first such error).
std::vector<fs::path> files_below(const fs::path& root, const std::function<bool(const fs::path&)>& wanted) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code type_ec;
        if (it->is_symlink(type_ec)) continue;
        if (it->is_directory(type_ec)) {
            for (fs::path& p : files_below(it->path(), wanted)) out.push_back(std::move(p));
        } else if (wanted(it->path())) {
            out.push_back(it->path());
        }
    }
    return out;
}

namespace {

// The work dir's files, each once: on separate nodes WORKDIR/local is this
// node's view of its own storage, which WORKDIR/nodes shows as well.
std::vector<fs::path> workdir_files(const std::function<bool(const fs::path&)>& wanted) {
    if (separate_nodes() == 0) return files_below(workdir(), wanted);
    const fs::path own_view = local_dir();
    return files_below(workdir(), [&](const fs::path& file) {
        return wanted(file) && file.string().rfind(own_view.string() + "/", 0) != 0;
    });
}

}  // namespace

std::vector<fs::path> find_files(const std::string& name) {
    return workdir_files([&](const fs::path& file) { return file.filename() == name; });
}

std::vector<fs::path> files_matching(const std::string& pattern) {
    const std::regex re(pattern);
    return workdir_files([&](const fs::path& file) { return std::regex_match(file.filename().string(), re); });
}

namespace {

// Rank 0: node `n`'s local checkpoint files are gone.
void lose_node(int n) {
    fs::path dir = node_storage(n);
    EXPECT_TRUE(fs::is_directory(dir)) << dir;
    if (separate_nodes() == 0) {
        fs::remove_all(dir);
        return;
    }
    // The node's disk, mounted already by this launch: what is on it goes,
    // as on a replacement node (mount points stay).
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) fs::remove_all(entry.path());
}

}  // namespace

void delete_nodes(std::initializer_list<int> nodes) {
    if (world_rank() == 0) {
        for (int n : nodes) lose_node(n);
    }
    world_barrier();
}

void delete_every_node() {
    if (world_rank() == 0) {
        if (separate_nodes() == 0) {
            fs::remove_all(local_dir());
        } else {
            for (int n = 0; n < separate_nodes(); ++n) lose_node(n);
        }
    }
    world_barrier();
}

SmallFileSystem::SmallFileSystem(fs::path dir, const std::string& size) : dir_(std::move(dir)) {
    int mounted = 0;
    if (world_rank() == 0) {
        fs::create_directories(dir_);
        const std::string options = "size=" + size;
        mounted = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, options.c_str()) == 0 ? 1 : 0;
    }
    MPI_Bcast(&mounted, 1, MPI_INT, 0, MPI_COMM_WORLD);
    mounted_ = mounted != 0;
    owner_ = mounted_ && world_rank() == 0;
}

SmallFileSystem::~SmallFileSystem() {
    if (owner_) ::umount2(dir_.c_str(), MNT_DETACH);
}

void unmount_small_file_system(const fs::path& dir) {
    if (world_rank() == 0) ::umount2(dir.c_str(), MNT_DETACH);
}

void LargeDataset::protect() {
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Protect(10, large.data(), static_cast<int64_t>(large.size()), FTI_ULNG));
}

void LargeDataset::fill(int version) {
    d.fill(version);
    for (std::size_t i = 0; i < large.size(); ++i) large[i] = pattern(app_rank(), 10, version, i);
}

bool LargeDataset::matches(int version) const {
    for (std::size_t i = 0; i < large.size(); ++i) {
        if (large[i] != pattern(app_rank(), 10, version, i)) return false;
    }
    return d.matches(version);
}

void with_file_size_limit(bool limited, std::uint64_t bytes, const std::function<void()>& step) {
    rlimit saved{};
    if (limited) {
        std::signal(SIGXFSZ, SIG_IGN);  // a failed write, not a killed process
        ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
        rlimit lowered = saved;
        lowered.rlim_cur = bytes;
        ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lowered), 0);
    }
    step();
    if (limited) {
        EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
    }
}

bool removed_in_background(const std::string& name) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!find_files(name).empty()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

fs::path the_file(const std::string& name) {
    auto files = find_files(name);
    EXPECT_EQ(files.size(), 1u) << "files named " << name;
    return files.empty() ? fs::path() : files.front();
}

namespace {
const char* ckpt_ext() {
    return io_mode() == "5" ? ".h5" : ".fti";
}
}  // namespace

int file_rank(int app_rank) {
    return heads_mode() ? 2 * app_rank + 1 : app_rank;  // heads are the lowest rank of their node
}

std::string data_file(int ckpt_id, int app_rank) {
    return "Ckpt" + std::to_string(ckpt_id) + "-Rank" + std::to_string(file_rank(app_rank)) + ckpt_ext();
}

std::string partner_file(int ckpt_id, int holder) {
    return "Ckpt" + std::to_string(ckpt_id) + "-Pcof" + std::to_string(file_rank(holder)) + ckpt_ext();
}

std::string ckpt_ext_regex() {
    return io_mode() == "5" ? "\\.h5" : "\\.fti";
}

std::string l4_file(int ckpt_id, int rank) {
    std::string io = io_mode();
    if (io == "2") return "Ckpt" + std::to_string(ckpt_id) + "-mpiio.fti";
    if (io == "4") return "Ckpt" + std::to_string(ckpt_id) + "-sionlib.fti";
    return data_file(ckpt_id, rank);
}

bool config_says(const std::string& line) {
    std::ifstream in(workdir() / "config.fti");
    for (std::string l; std::getline(in, l);) {
        if (l == line) return true;
    }
    return false;
}

void truncate_file(const fs::path& path, std::uintmax_t size) {
    ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(size)), 0) << path;
}

void overwrite_in_place(const fs::path& path, std::uintmax_t offset, std::uintmax_t bytes) {
    std::uintmax_t before = fs::file_size(path);
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good()) << path;
    f.seekg(static_cast<std::streamoff>(offset));
    std::string original(bytes, '\0');
    f.read(original.data(), static_cast<std::streamsize>(bytes));
    for (char& c : original) c = static_cast<char>(~c);  // every byte changes
    f.seekp(static_cast<std::streamoff>(offset));
    f.write(original.data(), static_cast<std::streamsize>(bytes));
    f.close();
    ASSERT_EQ(fs::file_size(path), before);
}

void copy_tree(const fs::path& from, const fs::path& to) {
    fs::remove_all(to);
    fs::create_directories(to);
    fs::copy(from, to, fs::copy_options::recursive);
}

bool same_files(const fs::path& a, const fs::path& b) {
    auto relative_files = [](const fs::path& root) {
        std::vector<fs::path> out;
        for (const fs::path& f : files_below(root, [](const fs::path&) { return true; })) {
            out.push_back(fs::relative(f, root));
        }
        std::sort(out.begin(), out.end());
        return out;
    };
    std::vector<fs::path> files = relative_files(a);
    if (files != relative_files(b)) {
        ADD_FAILURE() << "'" << a.string() << "' and '" << b.string() << "' hold different files";
        return false;
    }
    auto bytes = [](const fs::path& f) {
        std::ifstream in(f, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    for (const fs::path& f : files) {
        if (bytes(a / f) != bytes(b / f)) {
            ADD_FAILURE() << "'" << (a / f).string() << "' changed";
            return false;
        }
    }
    return true;
}

bool session_open() {
    // Without a session FTI_COMM_WORLD is MPI_COMM_NULL, or after a failed
    // FTI_Init the communicator given to it.
    return FTI_COMM_WORLD != MPI_COMM_NULL && FTI_COMM_WORLD != MPI_COMM_WORLD;
}

std::string output_of(const std::function<void()>& step) {
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    step();
    std::string out = testing::internal::GetCapturedStdout();
    return out + testing::internal::GetCapturedStderr();
}

void mark(const std::string& name) {
    int first = session_open() ? app_rank() : world_rank();
    if (first == 0) std::ofstream(workdir() / ("marker-" + name)) << "1";
}

bool marked(const std::string& name) {
    return fs::exists(workdir() / ("marker-" + name));
}

std::uint64_t pattern(int rank, int var, int version, std::size_t index) {
    // splitmix64 over the coordinates: distinct for every byte position and version.
    std::uint64_t z = (static_cast<std::uint64_t>(rank) << 48) ^ (static_cast<std::uint64_t>(var) << 40) ^
                      (static_cast<std::uint64_t>(version) << 32) ^ index;
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Dataset::Dataset(int rank)
    : ints(1000 + 37 * static_cast<std::size_t>(rank)),
      doubles(513 + 11 * static_cast<std::size_t>(rank)),
      bytes(4097 + static_cast<std::size_t>(rank)),
      particles(31 + static_cast<std::size_t>(rank)),
      rank_(rank) {}

std::vector<double> heat_field(int rank, int version) {
    std::vector<double> f(256 * 256);
    for (std::size_t i = 0; i < f.size(); ++i) {
        const double x = static_cast<double>(i % 256) / 256.0;
        const double y = static_cast<double>(i / 256) / 256.0;
        f[i] = std::round(1024.0 * (20.0 + 80.0 * std::exp(-(x * x + y * y) * (version + rank % 3)))) / 1024.0;
    }
    return f;
}

std::size_t Dataset::bytes_of(int var) const {
    switch (var) {
        case 0:
            return ints.size() * sizeof(std::int32_t);
        case 1:
            return doubles.size() * sizeof(double);
        case 2:
            return bytes.size();
        case 3:
            return particles.size() * sizeof(Particle);
        default:
            return 0;
    }
}

void Dataset::protect() {
    if (particle_type_ < 0) ASSERT_FTI(FTI_SCES, FTI_InitType(&particle_type_, sizeof(Particle)));
    ASSERT_FTI(FTI_SCES, FTI_Protect(0, ints.data(), static_cast<int64_t>(ints.size()), FTI_INTG));
    ASSERT_FTI(FTI_SCES, FTI_Protect(1, doubles.data(), static_cast<int64_t>(doubles.size()), FTI_DBLE));
    ASSERT_FTI(FTI_SCES, FTI_Protect(2, bytes.data(), static_cast<int64_t>(bytes.size()), FTI_UCHR));
    ASSERT_FTI(FTI_SCES, FTI_Protect(3, particles.data(), static_cast<int64_t>(particles.size()), particle_type_));
    ASSERT_FTI(FTI_SCES, FTI_Protect(4, nullptr, 0, FTI_DBLE));
}

void Dataset::fill(int version) {
    for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<std::int32_t>(pattern(rank_, 0, version, i));
    for (std::size_t i = 0; i < doubles.size(); ++i) {
        doubles[i] = static_cast<double>(pattern(rank_, 1, version, i) >> 11) * 0x1p-53;
    }
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(pattern(rank_, 2, version, i));
    for (std::size_t i = 0; i < particles.size(); ++i) {
        std::uint64_t p = pattern(rank_, 3, version, i);
        particles[i] = {{static_cast<double>(p % 1000), static_cast<double>(p % 777)},
                        static_cast<std::int32_t>(p >> 32),
                        static_cast<std::int32_t>(p & 0xffff)};
    }
}

void Dataset::clear() {
    std::fill(ints.begin(), ints.end(), 0);
    std::fill(doubles.begin(), doubles.end(), 0.0);
    std::fill(bytes.begin(), bytes.end(), 0);
    std::fill(particles.begin(), particles.end(), Particle{});
}

bool Dataset::matches(int version) const {
    Dataset expected(rank_);
    expected.fill(version);
    // Bitwise comparison, padding included in neither (Particle has none).
    return std::memcmp(ints.data(), expected.ints.data(), bytes_of(0)) == 0 &&
           std::memcmp(doubles.data(), expected.doubles.data(), bytes_of(1)) == 0 &&
           std::memcmp(bytes.data(), expected.bytes.data(), bytes_of(2)) == 0 &&
           std::memcmp(particles.data(), expected.particles.data(), bytes_of(3)) == 0;
}

std::string io_mode() {
    const char* v = std::getenv("MLCKPT_TEST_IO");
    return v != nullptr && *v != '\0' ? v : "1";
}

namespace {

bool env_flag(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && std::string(v) == "1";
}

}  // namespace

bool heads_mode() {
    return env_flag("MLCKPT_TEST_HEADS");
}

int separate_nodes() {
    const char* v = std::getenv("MLCKPT_TEST_NODES");
    return v != nullptr && *v != '\0' ? std::atoi(v) : 0;
}

bool background_mode() {
    return env_flag("MLCKPT_TEST_BACKGROUND");
}

std::string compression() {
    const char* v = std::getenv("MLCKPT_TEST_COMPRESS");
    return v != nullptr ? v : "";
}

bool snapshot_mode() {
    return env_flag("MLCKPT_TEST_SNAPSHOT");
}

bool promoted_after_commit() {
    return heads_mode() || background_mode() || snapshot_mode();
}

int mpi_thread_level() {
    return env_flag("MLCKPT_TEST_THREAD_MULTIPLE") ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
}

int app_ranks_expected() {
    return heads_mode() ? world_size() / 2 : world_size();
}

bool start(const std::string& cfg, int expected) {
    int rc = FTI_Init(cfg.c_str(), MPI_COMM_WORLD);
    if (rc == FTI_HEAD) {  // back once the application ranks finalized
        EXPECT_TRUE(heads_mode());
        // Its work is done: anything but FTI_Finalize is refused, not fatal.
        EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(1, FTI_L1));
        EXPECT_NE(std::string(FTI_LastError()).find("this is a head rank"), std::string::npos) << FTI_LastError();
        EXPECT_FTI(FTI_SCES, FTI_Finalize());
        return false;
    }
    EXPECT_EQ(rc, expected) << "FTI_Init: " << FTI_LastError();
    return rc == expected;
}

void crash() {
    if (!promoted_after_commit()) return;
    // What the last checkpoint left to the heads or to the rank's worker is
    // done first (a failure there is for the test to check before).
    FTI_WaitBackground();
    mark("heads-done");
    world_barrier_app();
    std::fprintf(stderr, "[rank %d] killed on purpose: the launch ends as a crash\n", world_rank());
    std::fflush(stderr);
    std::raise(SIGKILL);
}

void write_l4_then_l1(const std::string& cfg) {
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    d.fill(1);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
    d.fill(2);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
}

void checkpoint_then_crash(const std::string& cfg, int ckpt_id, int level, int version) {
    if (!start(cfg)) return;
    // Outlives the test: the session points at it until the process ends.
    static std::unique_ptr<Dataset> kept;
    kept = std::make_unique<Dataset>(app_rank());
    Dataset* d = kept.get();
    d->protect();
    d->fill(version);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(ckpt_id, level));
    crash();
}

void recover_then_finalize(const std::string& cfg, int version, int status) {
    if (!start(cfg)) return;
    EXPECT_EQ(FTI_Status(), status);
    Dataset d(app_rank());
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(version)) << "recovered data differs from version " << version;
    EXPECT_EQ(FTI_Status(), 0);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

}  // namespace mlckpt::test
