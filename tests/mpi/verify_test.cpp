// `mlckpt verify` on checkpoints the library wrote: phase 1 checkpoints and
// crashes; phase 2, one process that never calls FTI_Init, runs the tool as
// an operator would (its own process, no MPI launcher in its environment),
// damages files for real and runs it again.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "scenario.hpp"
#include "tool_run.hpp"

namespace mlckpt::test {
namespace {

// The line of the tool's output that names `path`.
std::string line_naming(const std::string& out, const fs::path& path) {
    const std::string needle = ": " + path.string();
    auto at = out.find(needle);
    if (at == std::string::npos) return "(no line names " + path.string() + ")";
    auto begin = out.rfind('\n', at);
    begin = begin == std::string::npos ? 0 : begin + 1;
    return out.substr(begin, out.find('\n', at) - begin);
}

bool starts_with(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// One of the files named by `pattern` kept on `node`.
fs::path one_on_node(const std::string& pattern, int node) {
    auto found = files_matching(pattern);
    const std::string dir = "/node" + std::to_string(node) + "/";
    std::erase_if(found, [&](const fs::path& f) { return !contains(f.string(), dir); });
    EXPECT_FALSE(found.empty()) << pattern << " on node " << node;
    return found.empty() ? fs::path() : found.front();
}

ConfigOptions groups_of_four() {
    ConfigOptions o;
    o.node_size = 2;
    o.group_size = 4;
    return o;
}

// Phase 1: a checkpoint at every level (L4, then L3, L2 and L1, each
// keeping the ones before it). Phase 2: the tool on them, intact, with
// three nodes out of sight, then damaged.
TEST(Verify, EveryLevel) {
    const std::string cfg = config(groups_of_four());
    if (phase() == 1) {
        if (!start(cfg)) return;
        static Dataset d(app_rank());  // the session points at it until the process ends
        d.protect();
        int id = 1;
        for (int level : {FTI_L4, FTI_L3, FTI_L2, FTI_L1}) {
            d.fill(id);
            ASSERT_FTI(FTI_DONE, FTI_Checkpoint(id, level));
            ++id;
        }
        return crash();
    }

    ToolRun intact = run_tool({"verify", cfg});
    EXPECT_EQ(intact.code, 0) << intact.out << intact.err;
    for (const char* expected :
         {"checkpoint 4 (L1, seq 4, ", "checkpoint 3 (L2, seq 3, ", "checkpoint 2 (L3, seq 2, ",
          "checkpoint 1 (L4, seq 1, ", " 0 damaged, 0 not visible here\n", "restart: checkpoint 4 (L1, seq 4)\n"}) {
        EXPECT_TRUE(contains(intact.out, expected)) << expected << "\n" << intact.out;
    }
    EXPECT_FALSE(contains(intact.out, "damaged (")) << intact.out;
    ToolRun intact_json = run_tool({"verify", "--json", cfg});
    EXPECT_EQ(intact_json.code, 0);
    EXPECT_TRUE(parses_as_json(intact_json.out)) << intact_json.out;

    // On a cluster, another node's local storage is not seen from here.
    {
        std::string text = slurp_text(cfg);
        text.replace(text.find("local_test = 1"), 14, "local_test = 0");
        const fs::path cluster_cfg = workdir() / "cluster.fti";
        std::ofstream(cluster_cfg) << text;
        fs::create_directories(workdir() / "away");
        for (int node = 1; node <= 3; ++node) {
            fs::rename(local_dir() / ("node" + std::to_string(node)), workdir() / "away" / std::to_string(node));
        }
        ToolRun seen = run_tool({"verify", cluster_cfg.string()});
        EXPECT_EQ(seen.code, 0) << seen.out << seen.err;
        EXPECT_TRUE(contains(seen.out, "  not visible here    data of rank 2: ")) << seen.out;
        EXPECT_TRUE(contains(seen.out, "restart: checkpoint 4 (L1, seq 4) if its files not visible here verify, else "))
            << seen.out;
        EXPECT_TRUE(contains(seen.out, "else checkpoint 1 (L4, seq 1)\n")) << seen.out;
        for (int node = 1; node <= 3; ++node) {
            fs::rename(workdir() / "away" / std::to_string(node), local_dir() / ("node" + std::to_string(node)));
        }
    }

    // A byte flipped in a partner copy, a parity file zeroed, an L4 file
    // cut in half, an L1 data file deleted.
    const fs::path copy = one_on_node("Ckpt3-Pcof[0-9]+" + ckpt_ext_regex(), 2);
    const fs::path parity = one_on_node("Ckpt2-RSed[0-9]+" + ckpt_ext_regex(), 1);
    const fs::path l4 = the_file(l4_file(1, 0));
    const int last = heads_mode() ? 3 : 5;  // the last application rank (8 ranks; with heads, 4 of them)
    const fs::path l1 = the_file(data_file(4, last));
    overwrite_in_place(copy, fs::file_size(copy) / 2, 1);
    const std::string zeros(fs::file_size(parity), '\0');
    std::ofstream(parity, std::ios::binary | std::ios::trunc) << zeros;
    truncate_file(l4, fs::file_size(l4) / 2);
    fs::remove(l1);

    ToolRun damaged = run_tool({"verify", cfg});
    EXPECT_EQ(damaged.code, 1) << damaged.out << damaged.err;
    EXPECT_EQ(damaged.err, "");
    EXPECT_TRUE(starts_with(line_naming(damaged.out, copy), "  damaged (checksum)  partner copy of rank "))
        << line_naming(damaged.out, copy);
    EXPECT_TRUE(starts_with(line_naming(damaged.out, parity), "  damaged (checksum)  parity kept by rank "))
        << line_naming(damaged.out, parity);
    EXPECT_TRUE(starts_with(line_naming(damaged.out, l4), "  damaged (size)      data of rank"))
        << line_naming(damaged.out, l4);
    EXPECT_EQ(line_naming(damaged.out, l1),
              "  damaged (missing)   data of rank " + std::to_string(last) + ": " + l1.string());
    for (const std::string& expected : std::vector<std::string>{
             "): damaged; a restart cannot use it: the data of rank " + std::to_string(last) + " is damaged\n",
             "): damaged; a restart can use it; the damaged files are rebuilt from the others\n",
             " 4 damaged, 0 not visible here\n", "restart: checkpoint 3 (L2, seq 3)\n"}) {
        EXPECT_TRUE(contains(damaged.out, expected)) << expected << "\n" << damaged.out;
    }
    ToolRun damaged_json = run_tool({"verify", "--json", cfg});
    EXPECT_EQ(damaged_json.code, 1);
    EXPECT_TRUE(parses_as_json(damaged_json.out)) << damaged_json.out;
    EXPECT_TRUE(contains(damaged_json.out, "\"damage\": \"missing\"")) << damaged_json.out;
    EXPECT_TRUE(contains(damaged_json.out, "\"restart\": {\"checkpoint\": {\"id\": 3, \"level\": 2, \"seq\": 3}"))
        << damaged_json.out;
}

// L4 differential files are checked by their own hashes against the
// metadata of the newest update.
TEST(Verify, L4Differential) {
    ConfigOptions o;
    o.basic["enable_dcp"] = "1";
    const std::string cfg = config(o);
    if (phase() == 1) {
        if (!start(cfg)) return;
        static Dataset d(app_rank());
        d.protect();
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4_DCP));
        d.fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4_DCP));
        // Applies the update's journal first.
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(3, FTI_L1));
        return crash();
    }
    EXPECT_TRUE(files_matching(".*\\.journal").empty());
    ToolRun intact = run_tool({"verify", cfg});
    EXPECT_EQ(intact.code, 0) << intact.out << intact.err;
    EXPECT_TRUE(contains(intact.out,
                         "checkpoint 2 (L4 differential, seq 2, POSIX dCP layers, 4 ranks): intact; a restart "
                         "can use it\n"))
        << intact.out;
    const fs::path file = the_file("dcp-id0-rank1.fti");  // FTI's POSIX dCP name (ckpt_io = 1)
    overwrite_in_place(file, fs::file_size(file) / 2, 1);
    ToolRun damaged = run_tool({"verify", cfg});
    EXPECT_EQ(damaged.code, 1) << damaged.out << damaged.err;
    EXPECT_TRUE(starts_with(line_naming(damaged.out, file), "  damaged (checksum)  data of rank 1: ")) << damaged.out;
    EXPECT_TRUE(contains(damaged.out, "restart: checkpoint 3 (L1, seq 3)\n")) << damaged.out;
}

}  // namespace
}  // namespace mlckpt::test
