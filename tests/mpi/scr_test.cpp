// scr.h: files the application writes itself, protected by routing them.
// Every rank writes its own files with plain stdio (two per rank, none on
// rank 3), the datasets are committed at the level SCR_COPY_TYPE says, and
// a later launch reads them back through SCR_Route_file, compared byte for
// byte, after node directories were really deleted and files truncated or
// overwritten. Simulated nodes of 2 ranks (MLCKPT_NODE_SIZE).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "scr.h"

namespace mlckpt::test {
namespace {

fs::path prefix() {
    return workdir() / "prefix";
}
// SCR_CACHE_BASE: on separate nodes each node's own storage (the ranks
// of a node see only theirs there).
fs::path cache() {
    return separate_nodes() > 0 ? local_dir() : workdir() / "cache";
}

int files_of(int rank) {
    return rank == 3 ? 0 : 2;
}

std::vector<char> content(int dataset, int rank, int file) {
    const std::size_t size = file == 0 ? 50000 + static_cast<std::size_t>(rank) * 4099 : 777u * (rank + 1u);
    std::vector<char> out(size);
    for (std::size_t i = 0; i < size; ++i) {
        out[i] = static_cast<char>((i * 131 + static_cast<std::size_t>(rank) * 17 +
                                    static_cast<std::size_t>(file) * 29 + static_cast<std::size_t>(dataset) * 7) &
                                   0xff);
    }
    return out;
}

std::string name_of(int dataset) {
    return "ckpt." + std::to_string(dataset);
}

fs::path file_name(int dataset, int rank, int file) {
    return prefix() / name_of(dataset) / ("rank_" + std::to_string(rank) + "." + std::to_string(file) + ".dat");
}

// SCR_Config before SCR_Init, on every rank: the directories in the work
// dir and `extra` (KEY=VALUE).
void init(const std::map<std::string, std::string>& extra) {
    std::map<std::string, std::string> p = {{"SCR_PREFIX", prefix().string()},
                                            {"SCR_CACHE_BASE", cache().string()},
                                            {"MLCKPT_NODE_SIZE", world_size() % 2 == 0 ? "2" : "1"},
                                            {"SCR_FLUSH", "0"},
                                            {"SCR_CACHE_BYPASS", "0"},  // the cache: SCR 3 bypasses it by default
                                            {"SCR_CACHE_SIZE", "2"}};
    for (const auto& [k, v] : extra) p[k] = v;
    for (const auto& [k, v] : p) ASSERT_EQ(SCR_Config((k + "=" + v).c_str()), nullptr);
    ASSERT_EQ(SCR_Init(), SCR_SUCCESS);
}

void write_files(int dataset) {
    const int rank = world_rank();
    for (int f = 0; f < files_of(rank); ++f) {
        char path[SCR_MAX_FILENAME];
        ASSERT_EQ(SCR_Route_file(file_name(dataset, rank, f).c_str(), path), SCR_SUCCESS);
        EXPECT_EQ(fs::path(path).filename(), file_name(dataset, rank, f).filename());
        std::FILE* out = std::fopen(path, "wb");
        ASSERT_NE(out, nullptr) << path;
        std::vector<char> data = content(dataset, rank, f);
        ASSERT_EQ(std::fwrite(data.data(), 1, data.size(), out), data.size());
        ASSERT_EQ(std::fclose(out), 0);
    }
}

void write_dataset(int dataset, int flags = SCR_FLAG_CHECKPOINT) {
    ASSERT_EQ(SCR_Start_output(name_of(dataset).c_str(), flags), SCR_SUCCESS);
    write_files(dataset);
    ASSERT_EQ(SCR_Complete_output(1), SCR_SUCCESS);
}

std::vector<char> slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

// Each rank's files of `dataset` read through SCR_Route_file: true when
// every byte matches.
bool read_files(int dataset) {
    const int rank = world_rank();
    bool all = true;
    for (int f = 0; f < files_of(rank); ++f) {
        char path[SCR_MAX_FILENAME];
        if (SCR_Route_file(file_name(dataset, rank, f).c_str(), path) != SCR_SUCCESS) return false;
        const bool same = slurp(path) == content(dataset, rank, f);
        EXPECT_TRUE(same) << path;
        all = all && same;
    }
    return all;
}

// The restart API in SCR's documented order; the dataset it loads must be
// `expected`, and its files must read back intact.
void restart_from(int expected) {
    int flag = 0;
    char name[SCR_MAX_FILENAME];
    ASSERT_EQ(SCR_Have_restart(&flag, name), SCR_SUCCESS);
    ASSERT_EQ(flag, 1);
    EXPECT_EQ(std::string(name), name_of(expected));
    char started[SCR_MAX_FILENAME];
    ASSERT_EQ(SCR_Start_restart(started), SCR_SUCCESS);
    EXPECT_EQ(std::string(started), name_of(expected));
    const bool ok = read_files(expected);
    ASSERT_EQ(SCR_Complete_restart(ok ? 1 : 0), SCR_SUCCESS);
}

// The files below the work dir whose whole path matches `pattern`.
std::vector<fs::path> paths_matching(const std::string& pattern) {
    const std::regex re(pattern);
    return files_below(workdir(), [&](const fs::path& file) { return std::regex_match(file.string(), re); });
}

void delete_cached_nodes(std::initializer_list<int> nodes) {
    if (separate_nodes() > 0) return delete_nodes(nodes);  // the nodes' whole disks
    if (world_rank() == 0) {
        for (int n : nodes) {
            const fs::path dir = cache() / ("node" + std::to_string(n));
            ASSERT_TRUE(fs::is_directory(dir)) << dir;
            fs::remove_all(dir);
        }
    }
    world_barrier();
}

// The cached copy of rank `rank`'s file `file` of the newest dataset.
fs::path cached_file(int rank, int file, int dataset) {
    std::vector<fs::path> found = paths_matching(".*/cache/.*/ckpt[0-9]+/rank" + std::to_string(rank) + "/rank_" +
                                                 std::to_string(rank) + "\\." + std::to_string(file) + "\\.dat");
    std::vector<fs::path> of_dataset;
    for (const fs::path& p : found) {
        if (p.parent_path().parent_path().filename() == "ckpt" + std::to_string(dataset)) {
            of_dataset.push_back(p);
        }
    }
    EXPECT_FALSE(of_dataset.empty()) << "no cached copy of rank " << rank << " file " << file;
    return of_dataset.empty() ? fs::path() : of_dataset.back();
}

// Phase 1 of most scenarios: datasets 1 and 2, then the launch ends without
// SCR_Finalize, as a crash would.
void two_datasets_then_crash(const std::map<std::string, std::string>& params) {
    init(params);
    int flag = -1;
    ASSERT_EQ(SCR_Have_restart(&flag, nullptr), SCR_SUCCESS);
    ASSERT_EQ(flag, 0);
    write_dataset(1);
    write_dataset(2);
}

std::map<std::string, std::string> copy_type(const std::string& type) {
    return {{"SCR_COPY_TYPE", type}, {"SCR_SET_SIZE", world_size() >= 8 ? "4" : "2"}};
}

void round_trip(const std::string& type) {
    if (phase() == 1) return two_datasets_then_crash(copy_type(type));
    init(copy_type(type));
    restart_from(2);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

TEST(ScrFiles, RoundTripSingle) {
    round_trip("SINGLE");
}
TEST(ScrFiles, RoundTripPartner) {
    round_trip("PARTNER");
}
TEST(ScrFiles, RoundTripXor) {
    round_trip("XOR");
}

// Redundancy files are recorded as seed 004 names them, beside the
// application's files with their original names.
TEST(ScrFiles, MetadataNamesEveryFile) {
    if (phase() == 1) return two_datasets_then_crash(copy_type("XOR"));
    if (world_rank() == 0) {
        std::vector<fs::path> metas = paths_matching(".*/prefix/\\.scr/ckpt[0-9]+\\.l3\\.meta");
        ASSERT_EQ(metas.size(), 2u);
        std::string text;
        for (const fs::path& m : metas) {
            const std::vector<char> bytes = slurp(m);
            text.append(bytes.begin(), bytes.end());
        }
        for (const char* needle : {"TYPE XOR", "TYPE FULL", "NAME ckpt.2", "FLAGS 1", "VALID 1",
                                   "ORIGNAME rank_0.0.dat", "ORIGPATH ", "ORIG "}) {
            EXPECT_NE(text.find(needle), std::string::npos) << needle << " in\n" << text;
        }
        EXPECT_NE(text.find("ORIG " + file_name(2, 1, 1).string()), std::string::npos) << text;
    }
    world_barrier();
}

TEST(ScrFiles, PartnerSurvivesNodeLoss) {
    if (phase() == 1) return two_datasets_then_crash(copy_type("PARTNER"));
    if (world_size() >= 8) {
        delete_cached_nodes({0, 2});  // not neighbours in the ring of 4
    } else {
        delete_cached_nodes({1});
    }
    init(copy_type("PARTNER"));
    restart_from(2);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

TEST(ScrFiles, XorSurvivesHalfASet) {
    if (phase() == 1) return two_datasets_then_crash(copy_type("XOR"));
    if (world_size() >= 8) {
        delete_cached_nodes({1, 2});
    } else {
        delete_cached_nodes({0});
    }
    init(copy_type("XOR"));
    restart_from(2);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// RS: Reed-Solomon sets of SCR_SET_FAILURES (here 1, of a set of 4 nodes
// with 8 ranks, of 2 with 4): each node keeps a share of the set's largest
// stream as parity, the metadata records the scheme, and the set survives
// that many lost nodes.
TEST(ScrFiles, RsSetsSurviveTheirFailures) {
    std::map<std::string, std::string> params = copy_type("RS");
    params["SCR_SET_FAILURES"] = "1";
    if (phase() == 1) return two_datasets_then_crash(params);
    if (world_rank() == 0) {
        const std::vector<fs::path> metas = paths_matching(".*/prefix/\\.scr/ckpt[0-9]+\\.l3\\.meta");
        ASSERT_EQ(metas.size(), 2u);
        const std::vector<char> bytes = slurp(metas.front());
        EXPECT_NE(std::string(bytes.begin(), bytes.end()).find("SET_FAILURES 1\n"), std::string::npos);
    }
    delete_cached_nodes({world_size() >= 8 ? 2 : 0});
    init(params);
    restart_from(2);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// A truncated file and an overwritten one are found by their CRC-32 and
// rebuilt from the redundancy, in the cache, where a later restart finds
// them intact.
void damaged_files_are_rebuilt(const std::string& type) {
    if (phase() == 1) return two_datasets_then_crash(copy_type(type));
    if (phase() == 2) {
        if (world_rank() == 0) {
            truncate_file(cached_file(0, 0, 2), 1000);
            overwrite_in_place(cached_file(1, 1, 2), 10, 20);
        }
        world_barrier();
    }
    init(copy_type(type));
    restart_from(2);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
    if (world_rank() == 0) {
        EXPECT_EQ(slurp(cached_file(0, 0, 2)), content(2, 0, 0));
        EXPECT_EQ(slurp(cached_file(1, 1, 2)), content(2, 1, 1));
    }
    world_barrier();
}

// Only a partner copy or parity file damaged (phase 2): the restart
// rebuilds it, and phase 3 proves it right by losing the node whose files
// it protects.
void damaged_redundancy_is_rebuilt(const std::string& type) {
    if (phase() == 1) return two_datasets_then_crash(copy_type(type));
    if (phase() == 2) {
        if (world_rank() == 0) {
            std::vector<fs::path> kept = paths_matching(".*/cache/node0/.*/ckpt2/Ckpt2-[^/]*\\.fti");
            EXPECT_FALSE(kept.empty());
            if (!kept.empty()) overwrite_in_place(kept.front(), 0, 16);
        }
        world_barrier();
    } else {
        delete_cached_nodes({1});
    }
    init(copy_type(type));
    restart_from(2);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

TEST(ScrFiles, DamagedRedundancyIsRebuiltPartner) {
    damaged_redundancy_is_rebuilt("PARTNER");
}
TEST(ScrFiles, DamagedRedundancyIsRebuiltXor) {
    damaged_redundancy_is_rebuilt("XOR");
}

TEST(ScrFiles, DamagedFilesAreRebuiltPartner) {
    damaged_files_are_rebuilt("PARTNER");
}
TEST(ScrFiles, DamagedFilesAreRebuiltXor) {
    damaged_files_are_rebuilt("XOR");
}

// SINGLE has nothing to rebuild from: the older dataset is used, and the
// message names the file that failed (checked by phase 3 in the log of 2).
TEST(ScrFiles, SingleFallsBackToTheOlderDataset) {
    if (phase() == 1) return two_datasets_then_crash(copy_type("SINGLE"));
    if (phase() == 3) {
        const std::vector<char> log = slurp(workdir() / "phase2.log");
        EXPECT_NE(std::string(log.begin(), log.end()).find("rank_0.0.dat' fails its CRC-32"), std::string::npos);
        return;
    }
    if (world_rank() == 0) overwrite_in_place(cached_file(0, 0, 2), 100, 8);
    world_barrier();
    init(copy_type("SINGLE"));
    restart_from(1);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// Every dataset flushed (SCR_FLUSH = 1): with the whole cache gone, the
// restart reads the prefix, where the files are at the application's own
// names.
TEST(ScrFiles, PrefixServesWhenTheCacheIsLost) {
    std::map<std::string, std::string> params = copy_type("PARTNER");
    params["SCR_FLUSH"] = "1";
    if (phase() == 1) return two_datasets_then_crash(params);
    if (world_rank() == 0) fs::remove_all(cache());
    world_barrier();
    for (int f = 0; f < files_of(world_rank()); ++f) {
        EXPECT_EQ(slurp(file_name(2, world_rank(), f)), content(2, world_rank(), f));
    }
    init(params);
    restart_from(2);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// SCR_CACHE_BYPASS = 1: the files are written at their names in the prefix
// and committed there (L4).
TEST(ScrFiles, BypassWritesToThePrefix) {
    const std::map<std::string, std::string> params = {{"SCR_CACHE_BYPASS", "1"}};
    if (phase() == 1) {
        two_datasets_then_crash(params);
        for (int f = 0; f < files_of(world_rank()); ++f) {
            EXPECT_EQ(slurp(file_name(2, world_rank(), f)), content(2, world_rank(), f));
        }
        return;
    }
    init(params);
    restart_from(2);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// SCR_CACHE_BYPASS = 1 with a dataset directory that the application made
// a symbolic link to another directory of the prefix: SCR follows it, as
// mkdir -p does, and so does mlckpt (the application's own layout; the
// directories it creates are synced into their parents).
TEST(ScrFiles, BypassFollowsTheApplicationsLinks) {
    const std::map<std::string, std::string> params = {{"SCR_CACHE_BYPASS", "1"}};
    if (phase() == 1) {
        if (world_rank() == 0) {
            fs::create_directories(prefix() / "elsewhere");
            fs::create_directory_symlink("elsewhere", prefix() / name_of(2));
        }
        world_barrier();
        two_datasets_then_crash(params);
        for (int f = 0; f < files_of(world_rank()); ++f) {
            EXPECT_EQ(slurp(prefix() / "elsewhere" / file_name(2, world_rank(), f).filename()),
                      content(2, world_rank(), f));
        }
        return;
    }
    init(params);
    restart_from(2);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// A crash between SCR_Start_output and SCR_Complete_output: the dataset
// being written never counts, the previous one is intact, and the cache
// keeps nothing of the unfinished one after the next SCR_Init.
TEST(ScrFiles, CrashDuringOutputKeepsThePreviousDataset) {
    const auto params = copy_type("PARTNER");
    if (phase() == 1) {
        init(params);
        write_dataset(1);
        ASSERT_EQ(SCR_Start_output(name_of(2).c_str(), SCR_FLAG_CHECKPOINT), SCR_SUCCESS);
        write_files(2);
        return;  // no SCR_Complete_output, no SCR_Finalize
    }
    init(params);
    restart_from(1);
    world_barrier();
    for (int f = 0; f < files_of(world_rank()); ++f) {
        for (const fs::path& p :
             paths_matching(".*/rank_" + std::to_string(world_rank()) + "\\." + std::to_string(f) + "\\.dat")) {
            EXPECT_NE(slurp(p), content(2, world_rank(), f)) << p << " of the unfinished dataset is still there";
        }
    }
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// A rank killed while dataset 2 is being committed (the fault point is in
// MLCKPT_FAULT_INJECT: its files sealed, the partner copies being made, the
// metadata about to be written): the relaunch restarts from dataset 1, and
// the cache keeps nothing of dataset 2. Killed while its copy to the prefix
// is made (during_flush), dataset 2 is committed in the cache already: the
// relaunch restarts from it there.
TEST(ScrFiles, KilledWhileCommittingKeepsThePreviousDataset) {
    const char* fault = std::getenv("MLCKPT_FAULT_INJECT");
    const bool in_flush = fault != nullptr && std::string(fault).rfind("during_flush", 0) == 0;
    std::map<std::string, std::string> params = copy_type("PARTNER");
    params["SCR_FLUSH"] = "2";
    if (phase() == 1) {
        init(params);
        write_dataset(1);
        write_dataset(2);
        ADD_FAILURE() << "the injected fault did not kill the rank";
        return;
    }
    unsetenv("MLCKPT_FAULT_INJECT");  // SCR_Finalize flushes dataset 2 again: not killed this time
    init(params);
    restart_from(in_flush ? 2 : 1);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
    if (!in_flush) {
        EXPECT_TRUE(paths_matching(".*/cache/.*/ckpt2/.*").empty());
    }
}

// SCR_Complete_output(0) on one rank: the call fails everywhere, and the
// dataset is never restarted from.
TEST(ScrFiles, InvalidDatasetIsNeverRestarted) {
    const auto params = copy_type("XOR");
    if (phase() == 1) {
        init(params);
        write_dataset(1);
        ASSERT_EQ(SCR_Start_output(name_of(2).c_str(), SCR_FLAG_CHECKPOINT), SCR_SUCCESS);
        write_files(2);
        EXPECT_NE(SCR_Complete_output(world_rank() == 1 ? 0 : 1), SCR_SUCCESS);
        return;
    }
    init(params);
    restart_from(1);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// SCR_Complete_restart(0) on one rank: SCR_Have_restart then offers the
// next older dataset.
TEST(ScrFiles, FailedRestartOffersTheOlderDataset) {
    const auto params = copy_type("SINGLE");
    if (phase() == 1) return two_datasets_then_crash(params);
    init(params);
    int flag = 0;
    char name[SCR_MAX_FILENAME];
    ASSERT_EQ(SCR_Have_restart(&flag, name), SCR_SUCCESS);
    ASSERT_EQ(flag, 1);
    ASSERT_EQ(SCR_Start_restart(name), SCR_SUCCESS);
    EXPECT_NE(SCR_Complete_restart(world_rank() == 0 ? 0 : 1), SCR_SUCCESS);
    restart_from(1);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// The rest of the API in one run: parameters, SCR_Need_checkpoint,
// output that reaches the prefix and stays there, SCR_Drop, SCR_Delete,
// SCR_Current, routing outside a phase, and the errors of misuse.
TEST(ScrFiles, ApiFlow) {
    ASSERT_EQ(SCR_Config("SCR_CHECKPOINT_INTERVAL=3"), nullptr);
    std::map<std::string, std::string> params = copy_type("PARTNER");
    params["SCR_CACHE_SIZE"] = "4";
    init(params);
    const char* interval = SCR_Config("SCR_CHECKPOINT_INTERVAL");
    ASSERT_NE(interval, nullptr);
    EXPECT_EQ(std::string(interval), "3");
    std::free(const_cast<char*>(interval));
    EXPECT_EQ(SCR_Config("SCR_NOT_SET_ANYWHERE"), nullptr);
    EXPECT_EQ(SCR_Config("SCR_FLUSH=5"), nullptr);  // too late: refused with a message
    EXPECT_NE(std::string(SCR_Get_version()).find("v3"), std::string::npos);

    std::vector<int> needed;
    for (int i = 0; i < 6; ++i) {
        int flag = -1;
        ASSERT_EQ(SCR_Need_checkpoint(&flag), SCR_SUCCESS);
        needed.push_back(flag);
    }
    EXPECT_EQ(needed, (std::vector<int>{0, 0, 1, 0, 0, 1}));

    char path[SCR_MAX_FILENAME];
    ASSERT_EQ(SCR_Route_file("outside/a/phase.dat", path), SCR_SUCCESS);
    EXPECT_EQ(std::string(path), "outside/a/phase.dat");

    write_dataset(1);
    write_dataset(2, SCR_FLAG_OUTPUT);
    for (int f = 0; f < files_of(world_rank()); ++f) {
        EXPECT_EQ(slurp(file_name(2, world_rank(), f)), content(2, world_rank(), f));
    }
    write_dataset(3, SCR_FLAG_CHECKPOINT | SCR_FLAG_OUTPUT);
    EXPECT_TRUE(fs::exists(file_name(3, 0, 0)));

    // Misuse: one clear error, the state unchanged.
    EXPECT_NE(SCR_Start_output("bad.flags", 8), SCR_SUCCESS);
    EXPECT_NE(SCR_Complete_output(1), SCR_SUCCESS);      // no output phase
    EXPECT_NE(SCR_Start_restart(nullptr), SCR_SUCCESS);  // no SCR_Have_restart
    ASSERT_EQ(SCR_Start_output("misplaced", SCR_FLAG_CHECKPOINT), SCR_SUCCESS);
    EXPECT_NE(SCR_Route_file((workdir() / "elsewhere.dat").c_str(), path), SCR_SUCCESS);
    EXPECT_NE(SCR_Start_output("nested", SCR_FLAG_CHECKPOINT), SCR_SUCCESS);
    ASSERT_EQ(SCR_Complete_output(1), SCR_SUCCESS);
    ASSERT_EQ(SCR_Delete("misplaced"), SCR_SUCCESS);

    // The newest checkpoint is 3; dropped, 1 is next; SCR_Current picks 1 too.
    int flag = 0;
    char name[SCR_MAX_FILENAME];
    ASSERT_EQ(SCR_Have_restart(&flag, name), SCR_SUCCESS);
    ASSERT_EQ(flag, 1);
    EXPECT_EQ(std::string(name), name_of(3));
    ASSERT_EQ(SCR_Drop(name_of(3).c_str()), SCR_SUCCESS);
    EXPECT_TRUE(fs::exists(file_name(3, 0, 0))) << "SCR_Drop keeps the files";
    ASSERT_EQ(SCR_Current(name_of(1).c_str()), SCR_SUCCESS);
    restart_from(1);
    // Written again under its name, the new dataset replaces the old one.
    write_dataset(1);
    if (world_rank() == 0) {
        int named = 0;
        for (const fs::path& m : paths_matching(".*/prefix/\\.scr/ckpt[0-9]+\\.l[1-4]\\.meta")) {
            const std::vector<char> bytes = slurp(m);
            if (std::string(bytes.begin(), bytes.end()).find("\nNAME ckpt.1\n") != std::string::npos) ++named;
        }
        EXPECT_EQ(named, 1);
    }

    ASSERT_EQ(SCR_Delete(name_of(2).c_str()), SCR_SUCCESS);
    world_barrier();
    EXPECT_FALSE(fs::exists(file_name(2, world_rank(), 0)));
    int exit_flag = -1;
    ASSERT_EQ(SCR_Should_exit(&exit_flag), SCR_SUCCESS);
    EXPECT_EQ(exit_flag, 0);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
    EXPECT_NE(SCR_Finalize(), SCR_SUCCESS);
}

// SCR_FLUSH counts by SCR's checkpoint id, which runs on across the runs
// of a job (id % SCR_FLUSH == 0), not by the checkpoints of one run: a job
// of short runs killed before SCR_Finalize still reaches the prefix. Run 1
// writes checkpoints 1 and 2, run 2 restarts from 2 and writes 3, both end
// as a crash would; checkpoint 3 is in the prefix, 1 and 2 are not.
TEST(ScrFiles, FlushCountsCheckpointIdsAcrossRuns) {
    std::map<std::string, std::string> params = copy_type("SINGLE");
    params["SCR_FLUSH"] = "3";
    if (phase() == 1) return two_datasets_then_crash(params);
    init(params);
    restart_from(2);
    write_dataset(3);
    for (int f = 0; f < files_of(world_rank()); ++f) {
        EXPECT_EQ(slurp(file_name(3, world_rank(), f)), content(3, world_rank(), f)) << "checkpoint 3 not flushed";
        EXPECT_FALSE(fs::exists(file_name(2, world_rank(), f)));
        EXPECT_FALSE(fs::exists(file_name(1, world_rank(), f)));
    }
    world_barrier();  // no SCR_Finalize: killed
}

// SCR_CURRENT naming no dataset: a warning, and the restart goes on from
// the newest checkpoint, as in SCR.
TEST(ScrFiles, UnknownCurrentRestartsFromTheNewest) {
    std::map<std::string, std::string> params = copy_type("SINGLE");
    if (phase() == 1) return two_datasets_then_crash(params);
    params["SCR_CURRENT"] = "ckpt.99";
    init(params);
    restart_from(2);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// A job that removed the prefix's .scr directory starts afresh, as SCR's
// users (and SCR's own test script) expect: nothing the cache still holds
// of it is restarted from, and SCR_Init removes it.
TEST(ScrFiles, RemovedScrDirectoryStartsAfresh) {
    std::map<std::string, std::string> params = copy_type("PARTNER");
    if (phase() == 1) return two_datasets_then_crash(params);
    ASSERT_FALSE(paths_matching(".*/cache/.*/ckpt2/.*").empty());
    if (world_rank() == 0) fs::remove_all(prefix() / ".scr");
    world_barrier();
    init(params);
    int flag = -1;
    ASSERT_EQ(SCR_Have_restart(&flag, nullptr), SCR_SUCCESS);
    EXPECT_EQ(flag, 0);
    world_barrier();
    EXPECT_TRUE(paths_matching(".*/cache/.*/ckpt[0-9]+/.*").empty());
    write_dataset(1);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// SCR 3's defaults: the cache is bypassed, so each dataset is written at
// its names in the prefix and committed there, and nothing goes to the
// cache directory; a relaunch restarts from the prefix.
TEST(ScrFiles, DefaultsBypassTheCache) {
    const std::map<std::string, std::string> params = {{"SCR_CACHE_BYPASS", ""}, {"SCR_FLUSH", ""}};
    init(params);
    if (phase() == 1) {
        write_dataset(1);
        for (int f = 0; f < files_of(world_rank()); ++f) {
            EXPECT_EQ(slurp(file_name(1, world_rank(), f)), content(1, world_rank(), f));
        }
        world_barrier();
        EXPECT_TRUE(paths_matching(".*/cache/.*/ckpt[0-9]+/.*").empty());
        return;
    }
    restart_from(1);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// Metadata files in the prefix that name dataset `name` (rank 0 only).
int prefix_copies_named(const std::string& name) {
    int named = 0;
    for (const fs::path& m : paths_matching(".*/prefix/\\.scr/ckpt[0-9]+\\.l4\\.meta")) {
        const std::vector<char> bytes = slurp(m);
        if (std::string(bytes.begin(), bytes.end()).find("\nNAME " + name + "\n") != std::string::npos) ++named;
    }
    return named;
}

// A file of the prefix that a newer dataset writes again, through another
// rank than the one that wrote it before: the older dataset's prefix copy
// no longer holds what its metadata says, and goes (its metadata; the
// files are the application's). Each rank knows only its own files of a
// dataset: rank 0 compares the whole metadata.
TEST(ScrFiles, FileWrittenAgainByAnotherRankRetiresTheOlderCopy) {
    init(copy_type("SINGLE"));
    auto output = [](const std::string& name, int writer, const std::string& file) {
        ASSERT_EQ(SCR_Start_output(name.c_str(), SCR_FLAG_OUTPUT), SCR_SUCCESS);
        if (world_rank() == writer) {
            char path[SCR_MAX_FILENAME];
            ASSERT_EQ(SCR_Route_file((prefix() / file).c_str(), path), SCR_SUCCESS);
            std::ofstream(path) << name;
        }
        ASSERT_EQ(SCR_Complete_output(1), SCR_SUCCESS);
    };
    output("first", 1, "shared.dat");
    output("second", 2, "other.dat");
    if (world_rank() == 0) {
        EXPECT_EQ(prefix_copies_named("first"), 1);
    }
    output("third", 3, "shared.dat");
    if (world_rank() == 0) {
        EXPECT_EQ(prefix_copies_named("first"), 0) << "rank 3 wrote rank 1's file of 'first' again";
        EXPECT_EQ(prefix_copies_named("second"), 1) << "'third' wrote no file of 'second'";
        EXPECT_EQ(prefix_copies_named("third"), 1);
        const std::vector<char> bytes = slurp(prefix() / "shared.dat");
        EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "third");
    }
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

// SCR_Config with SCR's descriptors and SCR_CONF_FILE, through the C API:
// a query of STORE after one descriptor answers its value, after two
// answers NULL; SCR_CONF_FILE set with SCR_Config is the file read.
TEST(ScrFiles, ConfigDescriptorsAndConfFile) {
    auto query = [](const char* text) -> std::string {
        const char* v = SCR_Config(text);
        const std::string out = v == nullptr ? "(null)" : v;
        std::free(const_cast<char*>(v));
        return out;
    };
    EXPECT_EQ(SCR_Config("STORE=/dev/shm/foo GROUP=NODE COUNT=1"), nullptr);
    EXPECT_EQ(query("STORE"), "/dev/shm/foo");
    EXPECT_EQ(query("STORE=/dev/shm/foo GROUP"), "NODE");
    EXPECT_EQ(SCR_Config("STORE=/dev/shm GROUP=NODE COUNT=1"), nullptr);
    EXPECT_EQ(query("STORE"), "(null)");
    EXPECT_EQ(query("STORE=/dev/shm COUNT"), "1");
    EXPECT_EQ(SCR_Config("STORE="), nullptr);
    EXPECT_EQ(query("STORE"), "(null)");
    EXPECT_EQ(SCR_Config("CKPT=0 TYPE=XOR SET_SIZE=16"), nullptr);  // accepted; SCR_Init warns it has no effect
    const fs::path conf = workdir() / "user.conf";
    if (world_rank() == 0) std::ofstream(conf) << "SCR_CACHE_SIZE=3\nSCR_CHECKPOINT_INTERVAL=2\n";
    world_barrier();
    EXPECT_EQ(SCR_Config(("SCR_CONF_FILE=" + conf.string()).c_str()), nullptr);
    EXPECT_EQ(query("SCR_CHECKPOINT_INTERVAL"), "2");
    init({});
    std::vector<int> needed;
    for (int i = 0; i < 4; ++i) {
        int flag = -1;
        ASSERT_EQ(SCR_Need_checkpoint(&flag), SCR_SUCCESS);
        needed.push_back(flag);
    }
    EXPECT_EQ(needed, (std::vector<int>{0, 1, 0, 1}));
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

}  // namespace
}  // namespace mlckpt::test
