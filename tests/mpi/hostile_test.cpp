// Hostile directories: someone who may write where the library writes plants
// symbolic links at the names it is about to create (checkpoint files,
// metadata and its copy, the configuration's rewrite, the L4 differential
// journal). Nothing outside is touched, and the checkpoints still recover.
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

fs::path victim() {
    return workdir() / "victim";
}

const char* const kVictimText = "not the library's\n";

std::string slurp_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// This rank's execution directory under `root` (node-local or global).
fs::path execution_dir(const fs::path& root) {
    for (const auto& entry : fs::directory_iterator(root)) {
        if (entry.is_directory()) return entry.path();
    }
    ADD_FAILURE() << "no execution directory in " << root;
    return root;
}

void plant(const fs::path& name) {
    fs::create_directories(name.parent_path());
    fs::create_symlink(victim(), name);
}

TEST(Hostile, PlantedLinksReachNothing) {
    ConfigOptions o;
    o.basic["enable_dcp"] = "1";
    o.basic["dcp_block_size"] = "4096";
    std::string cfg = config(o);
    if (phase() == 1 && world_rank() == 0) std::ofstream(victim()) << kVictimText;
    world_barrier();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    static std::unique_ptr<Dataset> d;
    d = std::make_unique<Dataset>(app_rank());
    d->protect();
    if (phase() == 1) {
        const int node = app_rank() / (world_size() % 2 == 0 ? 2 : 1);
        const fs::path local = execution_dir(local_dir() / ("node" + std::to_string(node)));
        const std::string exec_id = local.filename().string();
        const fs::path global = global_dir() / exec_id;
        const fs::path meta = meta_dir() / exec_id;
        const std::string rank = std::to_string(app_rank());
        plant(local / "l1" / "ckpt1" / ("Ckpt1-Rank" + rank + ".fti.tmp"));
        plant(global / "l4" / "ckpt2" / ("Ckpt2-Rank" + rank + ".fti.tmp"));
        if (app_rank() == 0) {
            const std::string pid = std::to_string(::getpid());
            plant(cfg + ".tmp." + pid);
            plant(meta / ("ckpt1.l1.meta.tmp." + pid));
            plant(meta / ("ckpt2.l4.meta.tmp." + pid));
            plant(local / "l1" / "ckpt1" / ("ckpt1.l1.meta.tmp." + pid));  // the metadata's copy
        }
        MPI_Barrier(FTI_COMM_WORLD);
        d->fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(3, FTI_L4_DCP));
        plant(global / "dcp" / ("dCP-Rank" + rank + ".fti.journal"));
        d->fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(4, FTI_L4_DCP));
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_EQ(slurp_text(victim()), kVictimText);
        return;  // crash
    }
    EXPECT_EQ(FTI_Status(), 1);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d->matches(2));
    EXPECT_EQ(slurp_text(victim()), kVictimText);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

}  // namespace
}  // namespace mlckpt::test
