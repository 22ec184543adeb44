// `mlckpt index` on datasets written here by hand, as scr.h lays them out
// (files in the cache below rank<r>/, partner copies and Reed-Solomon
// parity over each rank's files taken as one stream, metadata in
// <prefix>/.scr/), with core's metadata, CRC and Reed-Solomon code: the
// listing and its mark, --verify's exit codes, --rebuild byte for byte,
// and `mlckpt verify` pointed at such a prefix. The MPI scenarios
// ScrIndex.* run it on datasets the library wrote.
#include "scr_index.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <span>
#include <sstream>

#include "format/checkpoint_meta.hpp"
#include "hash/crc32.hpp"
#include "io/file.hpp"
#include "levels/reed_solomon.hpp"
#include "storage/layout.hpp"
#include "temp_dir.hpp"
#include "tool_output.hpp"
#include "verify.hpp"

namespace mlckpt::tools {
namespace {

namespace fs = std::filesystem;
using namespace mlckpt::core;

using IndexRun = test::ToolOutput;

bool has(const std::string& text, const std::string& part) {
    return test::contains(text, part);
}

std::string bytes(std::size_t size, int seed) {
    std::string out(size, '\0');
    for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<char>((i * 31 + static_cast<std::size_t>(seed)) % 253);
    return out;
}

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::uint32_t crc_of(const std::string& s) {
    return crc32_of(std::as_bytes(std::span(s.data(), s.size())));
}

// A prefix and a cache with datasets of `ranks` ranks, one per node, in
// one group of all the nodes.
class Prefix {
  public:
    Prefix() : layout_(config(), ".scr") { fs::create_directories(prefix() / ".scr"); }

    fs::path prefix() const { return dir.path() / "prefix"; }
    fs::path cache() const { return dir.path() / "cache"; }

    IndexRun index(std::vector<std::string> args) const {
        args.insert(args.begin(), {"--prefix", prefix().string(), "--cache", cache().string()});
        return test::run_captured(scr_index, args);
    }

    // Dataset `seq` at `level`; sizes[r] are the sizes of rank r's files.
    void write(std::uint64_t seq, int level, const std::string& name, int flags,
               const std::vector<std::vector<std::size_t>>& sizes, bool valid = true) {
        const int ranks = static_cast<int>(sizes.size());
        const CheckpointRef ref{seq, level, static_cast<int>(seq), true};
        CheckpointMeta m;
        m.exec_id = ".scr";
        m.ckpt_id = ref.ckpt_id;
        m.seq = seq;
        m.level = level;
        m.own_dir = true;  // as every dataset's
        m.ranks = ranks;
        m.node_size = 1;
        m.group_size = level == 2 || level == 3 ? ranks : 1;
        m.complete = true;
        m.name = name;
        m.flags = flags;
        m.valid = valid;
        std::vector<std::string> streams;
        for (int r = 0; r < ranks; ++r) {
            std::string stream;
            for (std::size_t f = 0; f < sizes[static_cast<std::size_t>(r)].size(); ++f) {
                const std::string content = bytes(sizes[static_cast<std::size_t>(r)][f],
                                                  static_cast<int>(seq) * 100 + r * 10 + static_cast<int>(f));
                const std::string file = "r" + std::to_string(r) + "f" + std::to_string(f) + ".dat";
                const fs::path origpath = prefix() / name;
                const fs::path at = level == 4 ? origpath / file : layout_.routed_dir(ref, r, r) / file;
                put(at, content);
                FileRecord rec;
                rec.rank = rec.holder = rec.node = r;
                rec.file = file;
                rec.complete = true;
                rec.size = content.size();
                rec.crc32 = crc_of(content);
                rec.orig = (origpath / file).string();
                rec.origpath = origpath.string();
                rec.origname = file;
                m.files.push_back(rec);
                stream += content;
            }
            streams.push_back(stream);
        }
        if (level == 2) {
            for (int r = 0; r < ranks; ++r) {
                const int left = (r + ranks - 1) % ranks;
                const std::string& copy = streams[static_cast<std::size_t>(left)];
                const fs::path at = layout_.redundancy_file(ref, r, r);
                put(at, copy);
                m.redundancy.push_back(redundancy(left, r, at, "PARTNER", copy));
            }
        } else if (level == 3) {
            std::size_t longest = 0;
            for (std::string& s : streams) longest = std::max(longest, s.size());
            std::vector<std::string> padded = streams;
            for (std::string& s : padded) s.resize(longest, '\0');
            std::vector<std::string> parity(static_cast<std::size_t>(ranks), std::string(longest, '\0'));
            std::vector<int> sources, targets;
            std::vector<const unsigned char*> in;
            std::vector<unsigned char*> out;
            for (int r = 0; r < ranks; ++r) {
                sources.push_back(r);
                targets.push_back(ranks + r);
                in.push_back(reinterpret_cast<const unsigned char*>(padded[static_cast<std::size_t>(r)].data()));
                out.push_back(reinterpret_cast<unsigned char*>(parity[static_cast<std::size_t>(r)].data()));
            }
            const ReedSolomon rs(ranks);
            ReedSolomon::apply(rs.plan(sources, targets), longest, in, out);
            for (int r = 0; r < ranks; ++r) {
                const fs::path at = layout_.redundancy_file(ref, r, r);
                put(at, parity[static_cast<std::size_t>(r)]);
                m.redundancy.push_back(redundancy(r, r, at, "XOR", parity[static_cast<std::size_t>(r)]));
            }
        }
        std::ofstream(layout_.meta_file(level, seq), std::ios::binary) << serialize_meta(m);
    }

    fs::path cached(std::uint64_t seq, int level, int rank, int file) const {
        return layout_.routed_dir({seq, level, static_cast<int>(seq), true}, rank, rank) /
               ("r" + std::to_string(rank) + "f" + std::to_string(file) + ".dat");
    }
    fs::path kept(std::uint64_t seq, int level, int holder) const {
        return layout_.redundancy_file({seq, level, static_cast<int>(seq), true}, holder, holder);
    }
    fs::path node(int n) const { return cache() / ("node" + std::to_string(n)); }

    // Every file below the cache and its content.
    std::map<std::string, std::string> snapshot() const {
        std::map<std::string, std::string> out;
        for (const auto& e : fs::recursive_directory_iterator(cache())) {
            if (e.is_regular_file()) out[e.path().string()] = read_all(e.path());
        }
        return out;
    }

    test::TempDir dir;

  private:
    Config config() const {
        Config c;
        c.ckpt_dir = cache().string();
        c.glbl_dir = prefix().string();
        c.meta_dir = prefix().string();
        return c;
    }
    static void put(const fs::path& at, const std::string& content) {
        fs::create_directories(at.parent_path());
        std::ofstream(at, std::ios::binary) << content;
    }
    static FileRecord redundancy(int rank, int holder, const fs::path& at, const char* type,
                                 const std::string& content) {
        FileRecord rec;
        rec.rank = rank;
        rec.holder = holder;
        rec.node = holder;
        rec.file = at.filename().string();
        rec.type = type;
        rec.complete = true;
        rec.size = content.size();
        rec.crc32 = crc_of(content);
        return rec;
    }

    StorageLayout layout_;
};

std::string line_with(const std::string& text, const std::string& part) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (has(line, part)) return line;
    }
    return "";
}

TEST(ScrIndex, Usage) {
    Prefix p;
    std::ostringstream out, err;
    EXPECT_EQ(scr_index({}, out, err), kIndexUsage);
    EXPECT_TRUE(has(err.str(), "--prefix DIR is required")) << err.str();
    EXPECT_EQ(scr_index({"--help"}, out, err), kIndexOk);
    EXPECT_TRUE(has(out.str(), "exit codes")) << out.str();
    EXPECT_EQ(scr_index({"--prefix", (p.dir.path() / "none").string()}, out, err), kIndexUsage);
    EXPECT_EQ(p.index({"--verify", "1", "--rebuild", "1"}).code, kIndexUsage);
    EXPECT_EQ(p.index({"--bogus"}).code, kIndexUsage);
    const IndexRun missing = p.index({"--verify", "7"});
    EXPECT_EQ(missing.code, kIndexUsage);
    EXPECT_TRUE(has(missing.err, "no dataset with id or name '7'")) << missing.err;
    const IndexRun empty = p.index({});
    EXPECT_EQ(empty.code, kIndexOk);
    EXPECT_TRUE(has(empty.out, "no dataset")) << empty.out;
}

TEST(ScrIndex, ListMarksTheNewestValidCheckpoint) {
    Prefix p;
    p.write(1, 1, "a", 1, {{100}, {200, 300}});
    p.write(2, 4, "b", 2, {{100}, {50}});                    // output only
    p.write(3, 1, "c", 1, {{100}, {200}}, /*valid=*/false);  // never restarted from
    p.write(4, 1, "d", 3, {{100}, {}});                      // checkpoint and output
    IndexRun listed = p.index({});
    EXPECT_EQ(listed.code, kIndexOk);
    EXPECT_EQ(line_with(listed.out, " d ").rfind("*", 0), 0u) << listed.out;
    EXPECT_TRUE(has(line_with(listed.out, " d "), "CHECKPOINT,OUTPUT")) << listed.out;
    EXPECT_TRUE(has(line_with(listed.out, " c "), " no ")) << listed.out;
    EXPECT_TRUE(has(line_with(listed.out, " a "), "600")) << listed.out;  // total size

    // Its L1 file damaged: the restart skips it and takes 'a'.
    std::ofstream(p.cached(4, 1, 0, 0), std::ios::binary) << "short";
    listed = p.index({});
    EXPECT_EQ(line_with(listed.out, " a ").rfind("*", 0), 0u) << listed.out;
    EXPECT_TRUE(has(line_with(listed.out, "skipped:"), "'d' (id 4)")) << listed.out;
    const IndexRun json = p.index({"--json"});
    EXPECT_TRUE(has(json.out, "\"restart\": {\"id\": 1, \"name\": \"a\", \"level\": 1")) << json.out;

    const IndexRun damaged = p.index({"--verify", "d"});
    EXPECT_EQ(damaged.code, kIndexBeyondRepair) << damaged.out;
    EXPECT_TRUE(has(damaged.out, p.cached(4, 1, 0, 0).string() + "' has 5 bytes")) << damaged.out;
    EXPECT_EQ(p.index({"--rebuild", "4"}).code, kIndexBeyondRepair);
    EXPECT_EQ(p.index({"--verify", "b"}).code, kIndexOk);
    fs::remove(p.prefix() / "b" / "r1f0.dat");
    EXPECT_EQ(p.index({"--verify", "2"}).code, kIndexBeyondRepair);

    // Unreadable metadata is listed as such.
    std::ofstream(p.prefix() / ".scr" / "ckpt9.l1.meta") << "MLCKPT_META 2\nCHECKSUM 0x00000000\n";
    EXPECT_TRUE(has(p.index({}).out, "unreadable metadata: ")) << p.index({}).out;
}

TEST(ScrIndex, PartnerCopiesRebuildANode) {
    Prefix p;
    p.write(1, 2, "ckpt", 1, {{1000, 10}, {5000}, {}, {7, 3000, 1}});
    EXPECT_EQ(p.index({"--verify", "ckpt"}).code, kIndexOk);
    const auto before = p.snapshot();
    fs::remove_all(p.node(1));                                      // rank 1's file, the copy of rank 0
    std::ofstream(p.kept(1, 2, 0), std::ios::binary) << "garbage";  // the copy of rank 3
    const IndexRun damaged = p.index({"--verify", "1"});
    EXPECT_EQ(damaged.code, kIndexRebuildable) << damaged.out;
    EXPECT_TRUE(has(line_with(damaged.out, p.cached(1, 2, 1, 0).string()), "is missing")) << damaged.out;
    EXPECT_TRUE(has(line_with(damaged.out, p.kept(1, 2, 0).string()), "partner copy of rank 3")) << damaged.out;
    const IndexRun rebuilt = p.index({"--rebuild", "1"});
    EXPECT_EQ(rebuilt.code, kIndexOk) << rebuilt.out << rebuilt.err;
    EXPECT_TRUE(has(rebuilt.out, "rebuilt: '" + p.cached(1, 2, 1, 0).string() + "'")) << rebuilt.out;
    EXPECT_EQ(p.snapshot(), before);

    // Rank 0's file and its partner copy (on node 1) both gone.
    fs::remove_all(p.node(1));
    fs::remove(p.cached(1, 2, 0, 1));
    const IndexRun beyond = p.index({"--verify", "1"});
    EXPECT_EQ(beyond.code, kIndexBeyondRepair) << beyond.out;
    EXPECT_TRUE(has(beyond.out, "the file of rank 0 on node 0 and its partner copy on node 1 are both lost"))
        << beyond.out;
    const IndexRun refused = p.index({"--json", "--rebuild", "1"});
    EXPECT_EQ(refused.code, kIndexBeyondRepair) << refused.out;
    EXPECT_TRUE(has(refused.out, "\"exit\": 3")) << refused.out;
    EXPECT_FALSE(fs::exists(p.node(1)));  // nothing written
}

// A rebuilt file is checked against its record before it takes its name:
// metadata whose record of a file disagrees with the partner copy of its
// rank's stream leaves the file as it was, and no temporary file behind.
TEST(ScrIndex, RebuiltFileThatFailsItsRecordIsNotRenamed) {
    Prefix p;
    p.write(1, 2, "ckpt", 1, {{1000, 10}, {5000}});
    const fs::path meta_path = p.prefix() / ".scr" / "ckpt1.l2.meta";
    CheckpointMeta m = parse_meta(read_all(meta_path), meta_path.string());
    m.files.at(1).crc32 ^= 1;  // rank 0's second file
    std::ofstream(meta_path, std::ios::binary) << serialize_meta(m);
    const std::string before = read_all(p.cached(1, 2, 0, 1));
    const IndexRun damaged = p.index({"--verify", "1"});
    EXPECT_EQ(damaged.code, kIndexRebuildable) << damaged.out;
    const IndexRun failed = p.index({"--rebuild", "1"});
    EXPECT_EQ(failed.code, kIndexBeyondRepair) << failed.out;
    EXPECT_TRUE(has(failed.out, "rebuild failed: the files of rank 0: the rebuilt '")) << failed.out;
    EXPECT_EQ(read_all(p.cached(1, 2, 0, 1)), before);
    for (const auto& [path, content] : p.snapshot()) EXPECT_FALSE(has(path, ".tmp")) << path;
}

TEST(ScrIndex, ParityRebuildsHalfTheFragments) {
    Prefix p;
    // Four ranks of unequal streams (rank 2 routed nothing): k = 4.
    p.write(1, 3, "ckpt", 1, {{70000, 5}, {123}, {}, {1, 2, 140001}});
    EXPECT_EQ(p.index({"--verify", "1"}).code, kIndexOk);
    const auto before = p.snapshot();
    // Four of eight fragments: the streams of ranks 0 and 3, the parity of 1 and 2.
    fs::remove(p.cached(1, 3, 0, 1));
    std::string shorter = read_all(p.cached(1, 3, 3, 2)).substr(0, 100);
    std::ofstream(p.cached(1, 3, 3, 2), std::ios::binary) << shorter;
    fs::remove(p.kept(1, 3, 1));
    std::string flipped = read_all(p.kept(1, 3, 2));
    flipped[77] = static_cast<char>(flipped[77] ^ 1);
    std::ofstream(p.kept(1, 3, 2), std::ios::binary) << flipped;
    const IndexRun damaged = p.index({"--verify", "1"});
    EXPECT_EQ(damaged.code, kIndexRebuildable) << damaged.out;
    EXPECT_EQ(std::count(damaged.out.begin(), damaged.out.end(), '\n'), 7) << damaged.out;  // 4 problems
    const IndexRun rebuilt = p.index({"--rebuild", "ckpt"});
    EXPECT_EQ(rebuilt.code, kIndexOk) << rebuilt.out << rebuilt.err;
    EXPECT_EQ(p.snapshot(), before);
    EXPECT_EQ(p.index({"--verify", "1"}).code, kIndexOk);

    // Five of eight: beyond Reed-Solomon with k = 4.
    fs::remove_all(p.node(0));
    fs::remove_all(p.node(1));
    fs::remove(p.kept(1, 3, 3));
    const IndexRun beyond = p.index({"--verify", "1"});
    EXPECT_EQ(beyond.code, kIndexBeyondRepair) << beyond.out;
    EXPECT_TRUE(has(beyond.out, "lost 5 of its 8")) << beyond.out;
    EXPECT_EQ(p.index({"--rebuild", "1"}).code, kIndexBeyondRepair);
}

TEST(ScrIndex, FtiVerifyPointsAtIndex) {
    Prefix p;
    p.write(1, 2, "ckpt", 1, {{10, 20}, {30}});
    const std::string cfg =
        p.dir.write("config.fti", "[basic]\nnode_size = 1\ngroup_size = 2\nckpt_dir = " + p.cache().string() +
                                      "\nglbl_dir = " + p.prefix().string() + "\nmeta_dir = " + p.prefix().string() +
                                      "\n\n[restart]\nfailure = 0\nexec_id = .scr\n\n[advanced]\nlocal_test = 1\n");
    std::ostringstream out, err;
    EXPECT_EQ(verify({cfg}, out, err), 0) << out.str() << err.str();
    EXPECT_TRUE(has(out.str(), "this is an SCR dataset ('ckpt'")) << out.str();
    EXPECT_TRUE(has(out.str(), "use mlckpt index --prefix")) << out.str();
}

}  // namespace
}  // namespace mlckpt::tools
