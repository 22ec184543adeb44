// Compressed checkpoint files ([compression], the "lz4" and "zstd" variants
// of the scenarios): the files hold packed variables, are smaller than the
// data on compressible fields, and a restart returns every byte.
#include <gtest/gtest.h>

#include <cmath>

#include "file_checks.hpp"
#include "format/checkpoint_meta.hpp"
#include "scenario.hpp"

namespace mlckpt::test {
namespace {

void packed_roundtrip(int level) {
    ASSERT_FALSE(compression().empty()) << "registered with COMPRESS only";
    const std::string cfg = config(two_node_group());
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    std::vector<double> f(1 << 16);
    ASSERT_FTI(FTI_SCES, FTI_Protect(10, f.data(), static_cast<int64_t>(f.size()), FTI_DBLE));
    if (phase() == 1) {
        d.fill(1);
        const std::vector<double> values = heat_field(app_rank(), 1);
        std::copy(values.begin(), values.end(), f.begin());  // the protected buffer stays where it is
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, level));
        MPI_Barrier(FTI_COMM_WORLD);
        const std::string name = level == 4 ? l4_file(1, app_rank()) : data_file(1, app_rank());
        const fs::path file = the_file(name);
        std::uint64_t raw = f.size() * sizeof(double);
        for (int v = 0; v < Dataset::kVariables; ++v) raw += d.bytes_of(v);
        EXPECT_LT(fs::file_size(file) * 2, raw) << file << ": the field is stored compressed";
        const std::string meta_name = "ckpt1.l" + std::to_string(level) + ".meta";
        auto found = files_below(meta_dir(), [&](const fs::path& p) { return p.filename() == meta_name; });
        ASSERT_EQ(found.size(), 1u) << meta_name;
        const core::CheckpointMeta meta = core::parse_meta(core::read_text_file(found[0]), found[0].string());
        const core::VarRecord* var = meta.file_of(app_rank()).find_var(10);
        ASSERT_NE(var, nullptr);
        EXPECT_TRUE(var->packed());
        EXPECT_EQ(var->size, f.size() * sizeof(double));
        EXPECT_EQ(var->elem, sizeof(double));
        expect_recorded_size_and_crc(1, level, file);
        return;  // crash
    }
    EXPECT_EQ(FTI_Status(), 1);
    EXPECT_EQ(FTI_GetStoredSize(10), static_cast<int64_t>(f.size() * sizeof(double)));
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1));
    EXPECT_TRUE(f == heat_field(app_rank(), 1)) << "every byte of the field";
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// The metadata of this rank's variable `id` in checkpoint `seq` at `level`.
core::VarRecord recorded_var(std::uint64_t seq, int level, int id) {
    const std::string name = "ckpt" + std::to_string(seq) + ".l" + std::to_string(level) + ".meta";
    auto found = files_below(meta_dir(), [&](const fs::path& p) { return p.filename() == name; });
    EXPECT_EQ(found.size(), 1u) << name;
    if (found.empty()) return {};
    const core::CheckpointMeta meta = core::parse_meta(core::read_text_file(found[0]), found[0].string());
    const core::VarRecord* var = meta.file_of(app_rank()).find_var(id);
    EXPECT_NE(var, nullptr) << "variable " << id << " in " << name;
    return var != nullptr ? *var : core::VarRecord{};
}

// An L4 checkpoint completed after its commit (by the heads, or the rank's
// worker) with L1 uncompressed and L4 compressed: the L1 file is written as
// it is, the L4 copy packed on the way by the head or the worker; every
// node lost, the restart reads the packed copy bit for bit.
TEST(Compression, PromotedL4IsPackedAfterTheCommit) {
    ASSERT_TRUE(promoted_after_commit()) << "registered as a HEADS or BACKGROUND scenario";
    ConfigOptions o;
    o.compression = {{"l1", "none"}, {"l4", "zstd"}, {"block_size", "4"}};
    const std::string cfg = config(o);
    if (phase() == 1) {
        if (!start(cfg)) return;
        static Dataset d(app_rank());  // the session points at them until the kill
        static std::vector<double> f(1 << 16);
        d.protect();
        ASSERT_FTI(FTI_SCES, FTI_Protect(10, f.data(), static_cast<int64_t>(f.size()), FTI_DBLE));
        d.fill(1);
        const std::vector<double> values = heat_field(app_rank(), 1);
        std::copy(values.begin(), values.end(), f.begin());
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        EXPECT_FALSE(recorded_var(1, 1, 10).packed()) << "the file the application waited for is not compressed";
        ASSERT_FTI(FTI_SCES, FTI_WaitBackground());
        const core::VarRecord var = recorded_var(1, 4, 10);
        EXPECT_TRUE(var.packed()) << "the L4 copy is";
        EXPECT_EQ(var.elem, sizeof(double));
        EXPECT_LT(var.stored * 2, var.size);
        const fs::path file = the_file(l4_file(1, app_rank()));
        EXPECT_EQ(file.string().rfind(global_dir().string(), 0), 0u) << file;
        expect_recorded_size_and_crc(1, 4, file);
        return crash();
    }
    if (world_rank() == 0) fs::remove_all(local_dir());
    world_barrier();
    if (!start(cfg)) return;
    Dataset d(app_rank());
    std::vector<double> f(1 << 16);
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Protect(10, f.data(), static_cast<int64_t>(f.size()), FTI_DBLE));
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1));
    EXPECT_TRUE(f == heat_field(app_rank(), 1));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// keep_last_ckpt: FTI_Finalize flushes the last (uncompressed) L1
// checkpoint to L4, which packs it; the next run restarts from it.
TEST(Compression, KeptCheckpointIsPackedWhenFlushed) {
    ConfigOptions o;
    o.basic["keep_last_ckpt"] = "1";
    o.compression = {{"l1", "none"}, {"l4", "lz4"}};
    const std::string cfg = config(o);
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    std::vector<double> f(1 << 16);
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Protect(10, f.data(), static_cast<int64_t>(f.size()), FTI_DBLE));
    if (phase() == 1) {
        d.fill(1);
        const std::vector<double> values = heat_field(app_rank(), 1);
        std::copy(values.begin(), values.end(), f.begin());
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
        EXPECT_FALSE(recorded_var(1, 1, 10).packed());
        const int rank = app_rank();
        ASSERT_FTI(FTI_SCES, FTI_Finalize());
        world_barrier();
        const std::string name = "ckpt1.l4.meta";
        auto found = files_below(meta_dir(), [&](const fs::path& p) { return p.filename() == name; });
        ASSERT_EQ(found.size(), 1u);
        const core::CheckpointMeta meta = core::parse_meta(core::read_text_file(found[0]), found[0].string());
        const core::VarRecord* var = meta.file_of(rank).find_var(10);
        ASSERT_NE(var, nullptr);
        EXPECT_TRUE(var->packed()) << "the flush packed the L4 copy";
        return;
    }
    EXPECT_EQ(FTI_Status(), 2);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1));
    EXPECT_TRUE(f == heat_field(app_rank(), 1));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// FTI_SetErrorBound: a double and a float field stored within their
// bounds (not bit for bit), an integer variable refused, every other
// variable exact; at L1 and L4, each compressed.
void error_bounded(int level) {
    ASSERT_FALSE(compression().empty()) << "registered with COMPRESS only";
    const std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    std::vector<double> f(1 << 15);
    std::vector<float> g(1 << 15);
    ASSERT_FTI(FTI_SCES, FTI_Protect(10, f.data(), static_cast<int64_t>(f.size()), FTI_DBLE));
    ASSERT_FTI(FTI_SCES, FTI_Protect(11, g.data(), static_cast<int64_t>(g.size()), FTI_SFLT));
    ASSERT_FTI(FTI_SCES, FTI_SetErrorBound(10, 1e-4));
    ASSERT_FTI(FTI_SCES, FTI_SetErrorBound(11, 1e-2));
    EXPECT_FTI(FTI_NSCS, FTI_SetErrorBound(0, 1e-2));  // Dataset's variable 0 holds ints
    EXPECT_NE(std::string(FTI_LastError()).find("not of type FTI_SFLT or FTI_DBLE"), std::string::npos);
    EXPECT_FTI(FTI_NSCS, FTI_SetErrorBound(10, -1));
    auto fill = [&] {
        for (std::size_t i = 0; i < f.size(); ++i) {
            f[i] = 20 + 80 * std::exp(-static_cast<double>(i) * 1e-4) + 1e-3 * std::sin(static_cast<double>(i) * 7.1);
            g[i] = static_cast<float>(f[i] * 3);
        }
    };
    if (phase() == 1) {
        d.fill(1);
        fill();
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, level));
        EXPECT_EQ(recorded_var(1, level, 10).size, f.size() * sizeof(double));
        EXPECT_LT(recorded_var(1, level, 10).stored * 3, f.size() * sizeof(double));
        return;  // crash
    }
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1)) << "variables without a bound are exact";
    const std::vector<double> f_back = f;
    const std::vector<float> g_back = g;
    fill();
    double worst_f = 0;
    double worst_g = 0;
    for (std::size_t i = 0; i < f.size(); ++i) {
        worst_f = std::max(worst_f, std::fabs(f_back[i] - f[i]));
        worst_g = std::max(worst_g, std::fabs(static_cast<double>(g_back[i]) - static_cast<double>(g[i])));
    }
    EXPECT_LE(worst_f, 1e-4);
    EXPECT_GT(worst_f, 0) << "lossy, as asked";
    EXPECT_LE(worst_g, 1e-2);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(Compression, ErrorBoundedVariablesL1) {
    error_bounded(FTI_L1);
}
TEST(Compression, ErrorBoundedVariablesL4) {
    error_bounded(FTI_L4);
}

TEST(Compression, PackedRoundTripL1) {
    packed_roundtrip(FTI_L1);
}
TEST(Compression, PackedRoundTripL2) {
    packed_roundtrip(FTI_L2);
}
TEST(Compression, PackedRoundTripL3) {
    packed_roundtrip(FTI_L3);
}
TEST(Compression, PackedRoundTripL4) {
    packed_roundtrip(FTI_L4);
}

}  // namespace
}  // namespace mlckpt::test
