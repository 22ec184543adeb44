// The C++ wrapper over the C API: type deduction, exceptions carrying the
// library's code and message, move semantics, and the restart path. Built
// twice, as C++17 and as C++20 (std::span).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mlckpt/mlckpt.hpp"
#include "scenario.hpp"

namespace mlckpt::test {
namespace {

struct Particle {
    double position[3];
    std::int32_t charge;
    std::int32_t flags;
};

// The mapping is decided at compile time, by size and signedness.
using detail::c_type_of;
using detail::CType;
static_assert(c_type_of<char>() == CType::char_);
static_assert(c_type_of<int>() == CType::int_);
static_assert(c_type_of<const int>() == CType::int_);
static_assert(c_type_of<unsigned>() == CType::uint);
static_assert(c_type_of<double>() == CType::double_);
static_assert(c_type_of<long double>() == CType::long_double);
static_assert(c_type_of<long long>() == (sizeof(long long) == sizeof(long) ? CType::long_ : CType::none));
static_assert(c_type_of<std::uint64_t>() == (sizeof(std::uint64_t) == sizeof(unsigned long) ? CType::ulong
                                             : sizeof(std::uint64_t) == sizeof(unsigned)    ? CType::uint
                                                                                            : CType::none));
enum class Color : unsigned char { red, green };
static_assert(c_type_of<Color>() == CType::uchar, "an enum is its underlying type");
static_assert(c_type_of<bool>() == CType::none);
static_assert(c_type_of<std::complex<double>>() == CType::none);

TEST(CppWrapper, TypesMapToTheCHandles) {
    using detail::primitive_handle;
    EXPECT_EQ(primitive_handle<char>(), FTI_CHAR);
    EXPECT_EQ(primitive_handle<std::int8_t>(), FTI_CHAR);
    EXPECT_EQ(primitive_handle<unsigned char>(), FTI_UCHR);
    EXPECT_EQ(primitive_handle<short>(), FTI_SHRT);
    EXPECT_EQ(primitive_handle<std::uint16_t>(), FTI_USHT);
    EXPECT_EQ(primitive_handle<int>(), FTI_INTG);
    EXPECT_EQ(primitive_handle<unsigned>(), FTI_UINT);
    EXPECT_EQ(primitive_handle<long>(), FTI_LONG);
    EXPECT_EQ(primitive_handle<unsigned long>(), FTI_ULNG);
    EXPECT_EQ(primitive_handle<float>(), FTI_SFLT);
    EXPECT_EQ(primitive_handle<double>(), FTI_DBLE);
    EXPECT_EQ(primitive_handle<long double>(), FTI_LDBE);
    if (sizeof(long long) == sizeof(long)) {
        EXPECT_EQ(primitive_handle<long long>(), FTI_LONG) << "picked by size and signedness";
        EXPECT_EQ(primitive_handle<unsigned long long>(), FTI_ULNG);
    }
    // No exact C type: an opaque type of sizeof(T) bytes.
    EXPECT_EQ(primitive_handle<bool>(), -1);
    EXPECT_EQ(primitive_handle<Particle>(), -1);
    EXPECT_EQ(primitive_handle<std::complex<double>>(), -1);

    // Opaque types are registered once per type, as the library's types
    // 11, 12, ...: the stored sizes follow sizeof(T).
    Session s{config(), MPI_COMM_WORLD};
    std::vector<Particle> a(3);
    std::vector<Particle> b(5);
    std::complex<double> z{1.0, -1.0};
    bool flag = true;
    s.protect(1, a);
    s.protect(2, b);
    s.protect(3, z);
    s.protect(4, flag);
    EXPECT_TRUE(s.checkpoint(1, Level::L1));
    s.finalize();
}

// Every kind of argument protect() takes, filled from (rank, version).
struct State {
    std::vector<int> ints = std::vector<int>(1000);
    std::vector<double> doubles = std::vector<double>(333);
    std::array<float, 7> floats{};
    std::vector<Particle> particles = std::vector<Particle>(20);
    std::vector<std::complex<double>> waves = std::vector<std::complex<double>>(50);
    std::int64_t step = 0;
    std::uint8_t raw[37] = {};
    std::vector<unsigned short> via_pointer = std::vector<unsigned short>(64);

    void protect(Session& s) {
        s.protect(1, ints);
        s.protect(2, doubles);
        s.protect(3, floats);
        s.protect(4, particles);
        s.protect(6, step);
        s.protect(7, raw);
        s.protect(8, via_pointer.data(), via_pointer.size());  // the C++17 form
#ifdef MLCKPT_HAS_SPAN
        s.protect(5, std::span(waves));
#else
        s.protect(5, waves);
#endif
    }
    void fill(int version) {
        const int r = app_rank();
        for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int>(pattern(r, 1, version, i));
        for (std::size_t i = 0; i < doubles.size(); ++i)
            doubles[i] = static_cast<double>(pattern(r, 2, version, i) >> 11);
        for (std::size_t i = 0; i < floats.size(); ++i)
            floats[i] = static_cast<float>(i) * 0.5f + static_cast<float>(version);
        for (std::size_t i = 0; i < particles.size(); ++i) {
            particles[i] = Particle{
                {1.0 * static_cast<double>(i), 2.0, static_cast<double>(r)}, static_cast<std::int32_t>(i) * version, r};
        }
        for (std::size_t i = 0; i < waves.size(); ++i)
            waves[i] = {static_cast<double>(i), static_cast<double>(version)};
        step = 1000 * version + r;
        for (std::size_t i = 0; i < sizeof raw; ++i) raw[i] = static_cast<std::uint8_t>(pattern(r, 7, version, i));
        for (std::size_t i = 0; i < via_pointer.size(); ++i) {
            via_pointer[i] = static_cast<unsigned short>(pattern(r, 8, version, i));
        }
    }
    bool operator==(const State& o) const {
        auto same_particles = [&] {
            for (std::size_t i = 0; i < particles.size(); ++i) {
                const Particle& a = particles[i];
                const Particle& b = o.particles[i];
                if (a.position[0] != b.position[0] || a.position[1] != b.position[1] ||
                    a.position[2] != b.position[2] || a.charge != b.charge || a.flags != b.flags) {
                    return false;
                }
            }
            return particles.size() == o.particles.size();
        };
        return ints == o.ints && doubles == o.doubles && floats == o.floats && same_particles() && waves == o.waves &&
               step == o.step && std::equal(std::begin(raw), std::end(raw), std::begin(o.raw)) &&
               via_pointer == o.via_pointer;
    }
};

// Phase 1 checkpoints and crashes; phase 2 restarts: stored sizes follow
// the deduced types, a vector is resized by realloc(), a wrong size is
// refused with FTI_NREC, and everything is recovered bit for bit.
TEST(CppWrapper, RestartPath) {
    std::string cfg = config();
    if (phase() == 1) {
        // A crash: the session is never destroyed, so FTI_Finalize never
        // runs; it and the data it protects outlive the test.
        alignas(Session) static unsigned char storage[sizeof(Session)];
        Session& crashing = *new (storage) Session{cfg, MPI_COMM_WORLD};
        static State state;
        EXPECT_EQ(crashing.status(), 0);
        state.fill(1);
        state.protect(crashing);
        EXPECT_TRUE(crashing.checkpoint(1, Level::L1));
        state.fill(2);
        EXPECT_TRUE(crashing.checkpoint(2, Level::L4));
        return;
    }
    Session s{cfg, MPI_COMM_WORLD};
    ASSERT_EQ(s.status(), 1);
    EXPECT_EQ(s.stored_size(1), 1000 * static_cast<std::int64_t>(sizeof(int)));
    EXPECT_EQ(s.stored_size(4), 20 * static_cast<std::int64_t>(sizeof(Particle)));
    EXPECT_EQ(s.stored_size(7), 37);
    State restored;
    restored.protect(s);
    restored.ints.assign(5, 0);  // the wrong size ...
    s.protect(1, restored.ints);
    try {
        s.recover();
        ADD_FAILURE() << "recover() with a wrong size must throw";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), FTI_NREC);
        // Other ranks learn of rank 0's problem: "FTI_Recover: on rank 0: ...".
        EXPECT_EQ(std::string(e.what()).rfind("FTI_Recover: ", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("variable 1: the checkpoint holds 4000 bytes"), std::string::npos)
            << e.what();
    }
    std::vector<double> eight_byte_elements(4, 0.5);
    try {
        s.realloc(7, eight_byte_elements);  // 37 bytes stored
        ADD_FAILURE() << "37 bytes are not a whole number of doubles";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), FTI_NREC);
        EXPECT_STREQ(e.what(),
                     "mlckpt::Session::realloc: variable 7: the checkpoint holds 37 bytes, "
                     "not a whole number of 8-byte elements");
    }
    EXPECT_EQ(eight_byte_elements.size(), 4u);
    s.realloc(1, restored.ints);  // ... fixed from the stored size
    EXPECT_EQ(restored.ints.size(), 1000u);
    s.recover();
    State expected;
    expected.fill(2);
    EXPECT_TRUE(restored == expected);
    EXPECT_EQ(s.status(), 0);
    s.finalize();
}

TEST(CppWrapper, ErrorsCarryCodeAndMessage) {
    try {
        Session bad{(workdir() / "missing.fti").string(), MPI_COMM_WORLD};
        ADD_FAILURE() << "a missing configuration file must throw";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), FTI_NSCS);
        EXPECT_EQ(std::string(e.what()).rfind("FTI_Init: ", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("missing.fti"), std::string::npos) << e.what();
    }
    Session s{config(), MPI_COMM_WORLD};
    int x = 0;
    s.protect(1, x);
    try {
        s.checkpoint(1, static_cast<Level>(10));
        ADD_FAILURE() << "level 10 must throw";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), FTI_NSCS);
        EXPECT_EQ(std::string(e.what()).rfind("FTI_Checkpoint: ", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("checkpoint level 10 is invalid; allowed: FTI_L1"), std::string::npos)
            << e.what();
    }
    std::vector<double> v(3, 1.5);
    try {
        s.realloc(2, v);
        ADD_FAILURE() << "realloc() without a checkpoint to recover from must throw";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), FTI_NREC);
        EXPECT_STREQ(e.what(),
                     "mlckpt::Session::realloc: variable 2: there is no checkpoint to recover from (status() is 0)");
    }
    EXPECT_EQ(v, std::vector<double>(3, 1.5)) << "the vector is left alone";
    try {
        s.protect(-1, v);
        ADD_FAILURE() << "id -1 must throw";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), FTI_NSCS);
        EXPECT_NE(std::string(e.what()).find("FTI_Protect: variable id -1 is invalid"), std::string::npos) << e.what();
    }
    s.finalize();
    s.finalize();  // idempotent
    try {
        (void)s.status();
        ADD_FAILURE() << "a finalized session must refuse calls";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), FTI_NSCS);
        EXPECT_STREQ(e.what(), "mlckpt::Session::status: the session is not active (moved from or finalized)");
    }
}

TEST(CppWrapper, MoveSemantics) {
    static_assert(!std::is_copy_constructible_v<Session> && !std::is_copy_assignable_v<Session>);
    static_assert(std::is_nothrow_move_constructible_v<Session> && std::is_nothrow_move_assignable_v<Session>);
    std::string cfg = config();
    std::vector<double> data(100, 2.5);
    {
        Session first{cfg, MPI_COMM_WORLD};
        Session second{std::move(first)};
        {
            Session third{std::move(second)};
            // The moved-from sessions do not own the library any more:
            // destroying them must not finalize it.
            first = std::move(first);
            third.protect(1, data);
            EXPECT_TRUE(third.checkpoint(1, Level::L1));
            second = std::move(third);  // the target (moved from) has nothing to finalize
        }
        EXPECT_NE(FTI_COMM_WORLD, MPI_COMM_NULL) << "still initialized: 'second' owns the session";
        EXPECT_TRUE(second.checkpoint(2, Level::L1));
        EXPECT_NE(second.comm(), MPI_COMM_NULL);
        // A moved-from session refuses calls instead of reaching the
        // session that another object owns.
        EXPECT_EQ(first.comm(), MPI_COMM_NULL);
        try {
            first.checkpoint(3, Level::L1);
            ADD_FAILURE() << "a moved-from session must refuse calls";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), FTI_NSCS);
            EXPECT_STREQ(e.what(), "mlckpt::Session::checkpoint: the session is not active (moved from or finalized)");
        }
    }  // 'second' finalizes here
    EXPECT_EQ(FTI_COMM_WORLD, MPI_COMM_NULL) << "the owning session finalized on destruction";
    {
        Session moved_from{cfg, MPI_COMM_WORLD};
        Session owner{std::move(moved_from)};
        EXPECT_NE(FTI_COMM_WORLD, MPI_COMM_NULL);
        owner = std::move(moved_from);  // the target is active: it is finalized first
        EXPECT_EQ(FTI_COMM_WORLD, MPI_COMM_NULL) << "move assignment finalized the session it replaced";
        EXPECT_EQ(owner.comm(), MPI_COMM_NULL);
    }
    // A new session can start after the old one ended, and not while it is active.
    Session again{cfg, MPI_COMM_WORLD};
    EXPECT_EQ(again.status(), 0);
    try {
        Session twice{cfg, MPI_COMM_WORLD};
        ADD_FAILURE() << "a second active session must be refused";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), FTI_NSCS);
        EXPECT_NE(std::string(e.what()).find("a Session is already active in this process"), std::string::npos)
            << e.what();
    }
    EXPECT_NE(again.comm(), MPI_COMM_NULL) << "the active session is untouched";
}

// An exception that destroys the session must not finalize: FTI_Finalize
// would remove the checkpoints that the relaunch restarts from.
TEST(CppWrapper, ExceptionKeepsTheCheckpoints) {
    std::string cfg = config();
    static std::vector<int> data(100);
    if (phase() == 1) {
        try {
            Session s{cfg, MPI_COMM_WORLD};
            std::fill(data.begin(), data.end(), 7 + app_rank());
            s.protect(1, data);
            s.checkpoint(1, Level::L1);
            throw std::runtime_error("the application fails");
        } catch (const std::runtime_error&) {
        }
        EXPECT_NE(FTI_COMM_WORLD, MPI_COMM_NULL) << "not finalized";
        return;
    }
    Session s{cfg, MPI_COMM_WORLD};
    ASSERT_EQ(s.status(), 1);
    std::fill(data.begin(), data.end(), 0);
    s.protect(1, data);
    s.recover();
    EXPECT_EQ(data, std::vector<int>(100, 7 + app_rank()));
    s.finalize();
}

// FTI_Init returns FTI_NREC when the checkpoints of a restart are gone: the
// session does not throw, keeps the reason and works as a fresh run.
TEST(CppWrapper, FailedRestartIsAFreshRun) {
    std::string cfg = config();
    if (phase() == 1) {
        alignas(Session) static unsigned char storage[sizeof(Session)];
        Session& crashing = *new (storage) Session{cfg, MPI_COMM_WORLD};
        static std::vector<double> data(64, 1.0);
        crashing.protect(1, data);
        EXPECT_TRUE(crashing.checkpoint(1, Level::L1));
        return;
    }
    if (world_rank() == 0) fs::remove_all(local_dir());  // every node lost its L1 files
    world_barrier();
    Session s{cfg, MPI_COMM_WORLD};
    EXPECT_TRUE(s.restart_failed());
    EXPECT_EQ(s.restart_error().rfind("FTI_Init: ", 0), 0u) << s.restart_error();
    EXPECT_EQ(s.status(), 0);
    std::vector<double> data(64, 2.0 + app_rank());
    EXPECT_THROW(s.realloc(1, data), Error);
    s.protect(1, data);
    try {
        s.recover();
        ADD_FAILURE() << "nothing to recover from";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), FTI_NREC);
        EXPECT_NE(std::string(e.what()).find("there is no checkpoint to recover from"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(s.checkpoint(2, Level::L1)) << "the run goes on as a fresh one";
    s.finalize();
    EXPECT_TRUE(config_says("failure = 0"));
}

// An in-memory snapshot promoted to L4 in the background: the data may
// change as soon as checkpoint() returns, and wait() returns once the
// checkpoint is in glbl_dir; the next launch restarts from it.
TEST(CppWrapper, WaitForTheBackground) {
    ConfigOptions options;
    options.basic = {{"inline_l4", "0"}, {"async_snapshot", "1"}};
    std::string cfg = config(options);
    if (phase() == 1) {
        // A crash after wait(): the session is never destroyed (see RestartPath).
        alignas(Session) static unsigned char storage[sizeof(Session)];
        Session& crashing = *new (storage) Session{cfg, MPI_COMM_WORLD};
        static std::vector<double> field(100000);
        crashing.protect(1, field);
        std::fill(field.begin(), field.end(), 1.0 + app_rank());
        EXPECT_TRUE(crashing.checkpoint(1, Level::L4));
        std::fill(field.begin(), field.end(), -1.0);  // at once: not in the checkpoint
        crashing.wait();
        crashing.wait();  // nothing left: at once
        const std::string name = l4_file(1, app_rank());
        EXPECT_EQ(files_below(global_dir(), [&](const fs::path& f) { return f.filename() == name; }).size(), 1u);
        return;
    }
    Session s{cfg, MPI_COMM_WORLD};
    std::vector<double> field(100000);
    s.protect(1, field);
    EXPECT_EQ(s.status(), 1);
    s.recover();
    EXPECT_EQ(std::count(field.begin(), field.end(), 1.0 + app_rank()), 100000);
    s.finalize();
}

// An error bound (FTI_SetErrorBound) on a double field, set where it is
// protected: the L4 checkpoint, compressed, restores it within the bound;
// an integer variable refuses one.
TEST(CppWrapper, ErrorBoundedField) {
    ConfigOptions options;
    options.compression = {{"l4", "zstd"}};
    std::string cfg = config(options);
    auto value = [](std::size_t i) { return 1.0 + std::sin(static_cast<double>(i) * 0.001); };
    if (phase() == 1) {
        // A crash after the checkpoint: the session is never destroyed (see RestartPath).
        alignas(Session) static unsigned char storage[sizeof(Session)];
        Session& crashing = *new (storage) Session{cfg, MPI_COMM_WORLD};
        static std::vector<double> field(50000);
        static std::vector<int> steps(10, 7);
        crashing.protect(1, field).error_bound(1e-3);
        try {
            crashing.protect(2, steps).error_bound(1e-3);
            ADD_FAILURE() << "an int variable took an error bound";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), FTI_NSCS);
            EXPECT_NE(std::string(e.what()).find("not of type FTI_SFLT or FTI_DBLE"), std::string::npos) << e.what();
        }
        for (std::size_t i = 0; i < field.size(); ++i) field[i] = value(i);
        EXPECT_TRUE(crashing.checkpoint(1, Level::L4));
        return;
    }
    Session s{cfg, MPI_COMM_WORLD};
    std::vector<double> field(50000);
    std::vector<int> steps(10);
    s.protect(1, field).error_bound(1e-3);
    s.protect(2, steps);
    EXPECT_EQ(s.status(), 1);
    s.recover();
    double worst = 0;
    for (std::size_t i = 0; i < field.size(); ++i) worst = std::max(worst, std::fabs(field[i] - value(i)));
    EXPECT_LE(worst, 1e-3);
    EXPECT_EQ(std::count(steps.begin(), steps.end(), 7), 10) << "the variable without a bound is exact";
    s.finalize();
}

// Head ranks (head = 1, keep_heads_alive = 1) get a session that only
// finalizes: the other calls throw instead of reaching the application
// ranks' collectives.
TEST(CppWrapper, HeadRanksOnlyFinalize) {
    ConfigOptions options;
    options.basic = {{"head", "1"}, {"keep_heads_alive", "1"}};
    Session s{config(options), MPI_COMM_WORLD};
    if (!s.is_head()) {
        int size = 0;
        MPI_Comm_size(s.comm(), &size);
        EXPECT_EQ(size, world_size() / 2) << "one head per node of 2 ranks";
        std::vector<int> data(10, app_rank());
        s.protect(1, data);
        EXPECT_TRUE(s.checkpoint(1, Level::L1));
        s.finalize();  // releases the heads
        return;
    }
    EXPECT_EQ(s.comm(), MPI_COMM_NULL);
    const std::string refused = "this is a head rank (FTI_Init returned FTI_HEAD): only finalize() is allowed";
    try {
        s.checkpoint(1, Level::L1);
        ADD_FAILURE() << "a head rank must not checkpoint";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), FTI_NSCS);
        EXPECT_EQ(std::string(e.what()), "mlckpt::Session::checkpoint: " + refused);
    }
    EXPECT_THROW((void)s.status(), Error);
    s.finalize();
}

// Staging: the stage directory, a file moved in the background, its state
// returned once; with staging off, each member throws FTI_NSCS.
TEST(CppWrapper, StagingMovesAFile) {
    ConfigOptions options;
    options.basic = {{"enable_staging", "1"}};
    std::string cfg = config(options);
    Session s{cfg, MPI_COMM_WORLD};
    const std::string dir = s.stage_dir();
    const std::string from = dir + "/cpp-" + std::to_string(app_rank());
    const std::string to = (workdir() / ("cpp-staged-" + std::to_string(app_rank()))).string();
    { std::ofstream(from) << "staged"; }
    const int id = s.send_file(from, to);
    StageStatus state = s.stage_status(id);
    for (int i = 0; i < 10000 && (state == StageStatus::pending || state == StageStatus::active); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        state = s.stage_status(id);
    }
    EXPECT_EQ(state, StageStatus::succeeded);
    EXPECT_EQ(s.stage_status(id), StageStatus::none);
    std::ifstream in(to);
    std::string text;
    in >> text;
    EXPECT_EQ(text, "staged");
    EXPECT_THROW(s.send_file(from, to + "/"), Error);
    s.finalize();
}

}  // namespace
}  // namespace mlckpt::test
