// `mlckpt index` on datasets written through scr.h. Phase 1 (4 ranks,
// simulated nodes of 2, sets of 2 nodes) writes checkpoints ckpt.1 and
// ckpt.2 and the output ckpt.3, and ends as a crash would. Phase 2, one
// process, runs the tool as an operator would: the listing marks the
// dataset a restart uses; node 1's cache directory is deleted and a file of
// ckpt.1 overwritten, and --verify tells the rebuildable ckpt.2 from ckpt.1
// (beyond repair) by its exit code, naming every damaged file; --rebuild
// makes ckpt.2 byte for byte what it was. Phase 3 (4 ranks) restarts from
// ckpt.2 and finds nothing left to repair.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "scr.h"
#include "tool_run.hpp"

namespace mlckpt::test {
namespace {

// SCR_PREFIX and SCR_CACHE_BASE of the runs.
const fs::path& prefix_dir() {
    static const fs::path dir = workdir() / "prefix";
    return dir;
}
const fs::path& cache_dir() {
    static const fs::path dir = workdir() / "cache";
    return dir;
}

// Two files a rank; rank 3 routes none: its stream is empty, the shortest of its set.
constexpr int file_count(int rank) {
    return 2 * static_cast<int>(rank != 3);
}

fs::path app_file(int dataset, int rank, int file) {
    return prefix_dir() / ("ckpt." + std::to_string(dataset)) /
           ("rank_" + std::to_string(rank) + "." + std::to_string(file) + ".dat");
}

std::string bytes_of(int dataset, int rank, int file) {
    std::string out(20000 + static_cast<std::size_t>(rank) * 7001 + static_cast<std::size_t>(file) * 313, '\0');
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = static_cast<char>((i * 7 + static_cast<std::size_t>(dataset * 61 + rank * 13 + file)) % 251);
    }
    return out;
}

int level_of(const std::string& copy_type) {
    return copy_type == "PARTNER" ? 2 : 3;
}

// A node's directory of dataset `seq` in the cache.
fs::path cached_dataset(int node, int seq, const std::string& copy_type) {
    return cache_dir() / ("node" + std::to_string(node)) / ".scr" / ("l" + std::to_string(level_of(copy_type))) /
           ("ckpt" + std::to_string(seq));
}

fs::path saved(int node) {
    return workdir() / ("ckpt2-node" + std::to_string(node));
}

void start_scr(const std::string& copy_type) {
    const std::vector<std::string> settings = {"SCR_PREFIX=" + prefix_dir().string(),
                                               "SCR_CACHE_BASE=" + cache_dir().string(),
                                               "MLCKPT_NODE_SIZE=2",
                                               "SCR_FLUSH=0",
                                               "SCR_CACHE_BYPASS=0",
                                               "SCR_CACHE_SIZE=3",
                                               "SCR_SET_SIZE=2",
                                               "SCR_COPY_TYPE=" + copy_type};
    for (const std::string& s : settings) ASSERT_EQ(SCR_Config(s.c_str()), nullptr) << s;
    ASSERT_EQ(SCR_Init(), SCR_SUCCESS);
}

void output(int dataset, int flags) {
    ASSERT_EQ(SCR_Start_output(("ckpt." + std::to_string(dataset)).c_str(), flags), SCR_SUCCESS);
    for (int f = 0; f < file_count(world_rank()); ++f) {
        char routed[SCR_MAX_FILENAME];
        ASSERT_EQ(SCR_Route_file(app_file(dataset, world_rank(), f).c_str(), routed), SCR_SUCCESS);
        std::ofstream(routed, std::ios::binary) << bytes_of(dataset, world_rank(), f);
    }
    ASSERT_EQ(SCR_Complete_output(1), SCR_SUCCESS);
}

ToolRun index_tool(std::vector<std::string> args) {
    args.insert(args.begin(), {"index", "--prefix", prefix_dir().string(), "--cache", cache_dir().string()});
    return run_tool(args);
}

// The line of `text` that contains `part`.
std::string line_with(const std::string& text, const std::string& part) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.find(part) != std::string::npos) return line;
    }
    return "(no line has '" + part + "')";
}

std::size_t lines_starting(const std::string& text, const std::string& start) {
    std::istringstream in(text);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) n += line.find(start) == 0 ? 1 : 0;
    return n;
}

// Each file below `dir` and its inode: whether a restart rewrote any.
std::map<std::string, ino_t> inodes_below(const fs::path& dir) {
    std::map<std::string, ino_t> out;
    for (const fs::path& f : files_below(dir, [](const fs::path&) { return true; })) {
        struct stat st {};
        EXPECT_EQ(::stat(f.c_str(), &st), 0) << f;
        out[f.string()] = st.st_ino;
    }
    return out;
}

void write_inodes(const std::map<std::string, ino_t>& inodes, const fs::path& to) {
    std::ofstream out(to);
    for (const auto& [path, inode] : inodes) out << inode << " " << path << "\n";
}

std::map<std::string, ino_t> read_inodes(const fs::path& from) {
    std::map<std::string, ino_t> out;
    std::ifstream in(from);
    ino_t inode = 0;
    std::string path;
    while (in >> inode && std::getline(in >> std::ws, path)) out[path] = inode;
    return out;
}

void operator_runs_the_tool(const std::string& copy_type) {
    const std::string level = "L" + std::to_string(level_of(copy_type));
    ToolRun listed = index_tool({});
    EXPECT_EQ(listed.code, 0) << listed.err;
    EXPECT_EQ(line_with(listed.out, "ckpt.2").rfind("*", 0), 0u) << listed.out;
    EXPECT_NE(line_with(listed.out, "ckpt.1").rfind("*", 0), 0u) << listed.out;
    EXPECT_NE(line_with(listed.out, "ckpt.3").find("OUTPUT"), std::string::npos) << listed.out;
    EXPECT_NE(line_with(listed.out, "ckpt.3").find("L4"), std::string::npos) << listed.out;
    EXPECT_NE(line_with(listed.out, "ckpt.2").find(level), std::string::npos) << listed.out;
    ToolRun json = index_tool({"--json"});
    EXPECT_EQ(json.code, 0);
    EXPECT_TRUE(parses_as_json(json.out)) << json.out;
    EXPECT_NE(json.out.find("\"restart\": {\"id\": 2, \"name\": \"ckpt.2\""), std::string::npos) << json.out;

    for (const char* id : {"2", "ckpt.1", "3"}) {
        ToolRun intact = index_tool({"--verify", id});
        EXPECT_EQ(intact.code, 0) << id << "\n" << intact.out << intact.err;
    }

    // Node 1 lost; a file of ckpt.1 on node 0 overwritten as well.
    for (int node : {0, 1}) copy_tree(cached_dataset(node, 2, copy_type), saved(node));
    fs::remove_all(cache_dir() / "node1");
    overwrite_in_place(cached_dataset(0, 1, copy_type) / "rank0" / "rank_0.0.dat", 100, 16);

    ToolRun rebuildable = index_tool({"--verify", "ckpt.2"});
    EXPECT_EQ(rebuildable.code, 1) << rebuildable.out << rebuildable.err;
    const fs::path lost = cached_dataset(1, 2, copy_type) / "rank2" / "rank_2.1.dat";
    EXPECT_NE(line_with(rebuildable.out, lost.string()).find("is missing"), std::string::npos) << rebuildable.out;
    // Rank 2's two files, and the redundancy kept by ranks 2 and 3.
    EXPECT_EQ(lines_starting(rebuildable.out, "    damaged: "), 4u) << rebuildable.out;

    ToolRun beyond = index_tool({"--verify", "1"});
    EXPECT_EQ(beyond.code, 3) << beyond.out << beyond.err;
    EXPECT_NE(line_with(beyond.out, "rank_0.0.dat").find("fails its CRC-32"), std::string::npos) << beyond.out;
    ToolRun beyond_json = index_tool({"--json", "--verify", "1"});
    EXPECT_EQ(beyond_json.code, 3);
    EXPECT_TRUE(parses_as_json(beyond_json.out)) << beyond_json.out;

    listed = index_tool({});
    EXPECT_EQ(line_with(listed.out, "ckpt.2").rfind("*", 0), 0u) << listed.out;
    EXPECT_NE(line_with(listed.out, "restart:").find("rebuilt"), std::string::npos) << listed.out;

    ToolRun refused = index_tool({"--rebuild", "ckpt.1"});
    EXPECT_EQ(refused.code, 3) << refused.out;
    ToolRun rebuilt = index_tool({"--rebuild", "2"});
    EXPECT_EQ(rebuilt.code, 0) << rebuilt.out << rebuilt.err;
    EXPECT_NE(rebuilt.out.find("    rebuilt: '" + lost.string() + "'\n"), std::string::npos) << rebuilt.out;
    for (int node : {0, 1}) EXPECT_TRUE(same_files(cached_dataset(node, 2, copy_type), saved(node))) << node;
    ToolRun after = index_tool({"--verify", "2"});
    EXPECT_EQ(after.code, 0) << after.out;
    for (int node : {0, 1}) {
        write_inodes(inodes_below(cached_dataset(node, 2, copy_type)),
                     workdir() / ("inodes" + std::to_string(node) + ".txt"));
    }

    // The output in the prefix has no redundancy: a lost file there is beyond repair.
    fs::remove(app_file(3, 1, 0));
    ToolRun prefix_lost = index_tool({"--verify", "ckpt.3"});
    EXPECT_EQ(prefix_lost.code, 3) << prefix_lost.out;
    EXPECT_NE(line_with(prefix_lost.out, app_file(3, 1, 0).string()).find("is missing"), std::string::npos)
        << prefix_lost.out;

    // Usage errors.
    EXPECT_EQ(index_tool({"--verify", "no.such.dataset"}).code, 2);
    EXPECT_EQ(run_tool({"index"}).code, 2);
    EXPECT_EQ(index_tool({"--verify", "1", "--rebuild", "1"}).code, 2);
}

void restart_without_repair(const std::string& copy_type) {
    start_scr(copy_type);
    int flag = 0;
    char name[SCR_MAX_FILENAME];
    ASSERT_EQ(SCR_Have_restart(&flag, name), SCR_SUCCESS);
    ASSERT_EQ(flag, 1);
    EXPECT_EQ(std::string(name), "ckpt.2");
    const int node = world_rank() / 2;
    if (world_rank() % 2 == 0) {
        // Nothing was rewritten: the files are those the tool left.
        const fs::path recorded = workdir() / ("inodes" + std::to_string(node) + ".txt");
        EXPECT_EQ(inodes_below(cached_dataset(node, 2, copy_type)), read_inodes(recorded));
    }
    ASSERT_EQ(SCR_Start_restart(name), SCR_SUCCESS);
    bool all = true;
    for (int f = 0; f < file_count(world_rank()); ++f) {
        char routed[SCR_MAX_FILENAME];
        ASSERT_EQ(SCR_Route_file(app_file(2, world_rank(), f).c_str(), routed), SCR_SUCCESS);
        const bool same = slurp_text(routed) == bytes_of(2, world_rank(), f);
        EXPECT_TRUE(same) << routed;
        all = all && same;
    }
    ASSERT_EQ(SCR_Complete_restart(all ? 1 : 0), SCR_SUCCESS);
    ASSERT_EQ(SCR_Finalize(), SCR_SUCCESS);
}

void scenario(const std::string& copy_type) {
    if (phase() == 1) {
        start_scr(copy_type);
        output(1, SCR_FLAG_CHECKPOINT);
        output(2, SCR_FLAG_CHECKPOINT);
        output(3, SCR_FLAG_OUTPUT);
        return;  // no SCR_Finalize: a crash
    }
    if (phase() == 2) return operator_runs_the_tool(copy_type);
    restart_without_repair(copy_type);
}

TEST(ScrIndex, Partner) {
    scenario("PARTNER");
}

TEST(ScrIndex, Xor) {
    scenario("XOR");
}

}  // namespace
}  // namespace mlckpt::test
