// Hostile directories: someone who may write where the library writes plants
// symbolic links at the names it is about to create (checkpoint files,
// metadata and its copy, the configuration's rewrite, the L4 differential
// journal), or at the directories it is about to create below ckpt_dir,
// glbl_dir and meta_dir. Nothing outside is touched, and the checkpoints
// still recover.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "tree_snapshot.hpp"

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
        plant(global / "dCP" / ("dcp-id0-rank" + rank + ".fti.journal"));
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

// The directories below `root` (not through links) whose mode is not `mode`.
std::vector<std::string> directories_without_mode(const fs::path& root, unsigned mode) {
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        if ((st.st_mode & 07777) != mode) out.push_back(it->path().string());
        for (std::string& p : directories_without_mode(it->path(), mode)) out.push_back(std::move(p));
    }
    return out;
}

// Links planted where the library makes its own directories, below the
// configured ones: the node directories before FTI_Init, the level
// directories of the execution after it. Each is refused with an error that
// names it (FTI_Init or the checkpoint fails), nothing is written through
// it, and once they are gone the same run checkpoints and recovers. Under a
// umask of 0, every directory the library made has mode 0750.
TEST(Hostile, PlantedDirectoryLinksReachNothing) {
    ::umask(0);
    ConfigOptions o;
    o.basic["enable_dcp"] = "1";
    o.basic["dcp_block_size"] = "4096";
    std::string cfg = config(o);
    const fs::path outside = workdir() / "outside";
    const int per_node = world_size() % 2 == 0 ? 2 : 1;
    static std::unique_ptr<Dataset> d;
    if (phase() == 1) {
        if (world_rank() == 0) {
            fs::create_directories(outside / "l1" / "ckpt1");
            std::ofstream(outside / "victim") << kVictimText;
            std::ofstream(outside / "l1" / "ckpt1" / "Ckpt1-Rank0.fti") << kVictimText;
            fs::create_directories(local_dir());
            for (int node = 0; node < world_size() / per_node; ++node) {
                fs::create_directory_symlink(outside, local_dir() / ("node" + std::to_string(node)));
            }
        }
        world_barrier();
        const auto before = tree_snapshot(outside);
        EXPECT_FTI(FTI_NSCS, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        EXPECT_NE(std::string(FTI_LastError()).find("symbolic link"), std::string::npos) << FTI_LastError();
        EXPECT_NE(std::string(FTI_LastError()).find((local_dir() / "node").string()), std::string::npos)
            << FTI_LastError();
        world_barrier();
        EXPECT_EQ(tree_snapshot(outside), before);
        if (world_rank() == 0) {
            for (int node = 0; node < world_size() / per_node; ++node) {
                fs::remove(local_dir() / ("node" + std::to_string(node)));
            }
        }
        world_barrier();

        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        d = std::make_unique<Dataset>(app_rank());
        d->protect();
        d->fill(1);
        const fs::path local = execution_dir(local_dir() / ("node" + std::to_string(app_rank() / per_node)));
        const fs::path global = global_dir() / local.filename();
        std::vector<fs::path> planted;
        if (app_rank() % per_node == 0) planted.push_back(local / "l1");
        if (app_rank() == 0) {
            planted.push_back(global / "l4");
            planted.push_back(global / "dCP");
        }
        for (const fs::path& p : planted) fs::create_directory_symlink(outside, p);
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(1, FTI_L1));
        EXPECT_NE(std::string(FTI_LastError()).find("symbolic link"), std::string::npos) << FTI_LastError();
        EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(2, FTI_L4));
        EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(3, FTI_L4_DCP));
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_EQ(tree_snapshot(outside), before);
        for (const fs::path& p : planted) fs::remove(p);
        MPI_Barrier(FTI_COMM_WORLD);

        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(3, FTI_L4_DCP));
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_EQ(tree_snapshot(outside), before);
        if (app_rank() == 0) {
            // The configured directories the library made, and all below them.
            for (const fs::path& root : {global_dir(), meta_dir()}) {
                struct stat st {};
                ASSERT_EQ(::lstat(root.c_str(), &st), 0) << root;
                EXPECT_EQ(st.st_mode & 07777, 0750u) << root;
            }
            for (const fs::path& root : {local_dir(), global_dir(), meta_dir()}) {
                EXPECT_EQ(directories_without_mode(root, 0750), std::vector<std::string>{}) << root;
            }
        }
        return;  // crash
    }
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    d = std::make_unique<Dataset>(app_rank());
    d->protect();
    EXPECT_EQ(FTI_Status(), 1);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d->matches(1));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    if (world_rank() == 0) {
        EXPECT_EQ(slurp_text(outside / "victim"), kVictimText);
        EXPECT_EQ(slurp_text(outside / "l1" / "ckpt1" / "Ckpt1-Rank0.fti"), kVictimText);
    }
}

}  // namespace
}  // namespace mlckpt::test
