// `mlckpt verify` on checkpoints written here by hand with core's own
// metadata and CRC functions (no MPI): what it reports for intact, damaged,
// missing and unseen files, hostile metadata, and unusable configurations.
// The MPI scenarios Verify.* run it on checkpoints the library wrote.
#include "verify.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "format/checkpoint_meta.hpp"
#include "format/dcp/redo_journal.hpp"
#include "format/ftiff/ftiff_file.hpp"
#include "hash/crc32.hpp"
#include "io/file.hpp"
#include "storage/layout.hpp"
#include "temp_dir.hpp"
#include "tool_output.hpp"

namespace mlckpt::tools {
namespace {

namespace fs = std::filesystem;
using namespace mlckpt::core;

using Result = test::ToolOutput;
using test::contains;

Result run_verify(const std::vector<std::string>& args) {
    return test::run_captured(verify, args);
}

// Output a terminal and a JSON parser can take: printable ASCII and newlines.
void expect_printable(const std::string& text) {
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        EXPECT_TRUE(c == '\n' || (byte >= 0x20 && byte < 0x7f)) << "byte " << static_cast<int>(byte);
    }
}

// Whether python3's JSON parser takes `text`.
bool parses_as_json(const test::TempDir& dir, const std::string& text) {
    const std::string path = dir.write("out.json", text);
    return std::system(("python3 -m json.tool '" + path + "' > /dev/null").c_str()) == 0;
}

// An execution of `ranks` ranks, two per simulated node, with its
// checkpoints (POSIX files) written file by file.
class Execution {
  public:
    explicit Execution(bool local_test = true, int failure = 1, const std::string& exec_id = "exec-1")
        : exec_id_(exec_id) {
        for (const char* d : {"local", "global", "meta"}) fs::create_directories(dir.path() / d);
        std::ofstream(config_path()) << "[basic]\nnode_size = 2\ngroup_size = 1\nckpt_dir = " << local().string()
                                     << "\nglbl_dir = " << (dir.path() / "global").string()
                                     << "\nmeta_dir = " << (dir.path() / "meta").string()
                                     << "\n\n[restart]\nfailure = " << failure << "\nexec_id = " << exec_id
                                     << "\n\n[advanced]\nlocal_test = " << (local_test ? 1 : 0) << "\n";
    }

    std::string config_path() const { return (dir.path() / "config.fti").string(); }
    fs::path local() const { return dir.path() / "local"; }
    StorageLayout layout() const {
        Config c;
        c.ckpt_dir = local().string();
        c.glbl_dir = (dir.path() / "global").string();
        c.meta_dir = (dir.path() / "meta").string();
        return StorageLayout(c, exec_id_);
    }

    // Checkpoint `ckpt_id` at `level` (1 or 4) with sequence number `seq`:
    // data files, metadata and its copy. `edit` may change the metadata.
    CheckpointMeta checkpoint(std::uint64_t seq, int level, int ckpt_id, int ranks,
                              const std::function<void(CheckpointMeta&)>& edit = nullptr) {
        const StorageLayout l = layout();
        CheckpointMeta meta;
        meta.exec_id = exec_id_;
        meta.ckpt_id = ckpt_id;
        meta.seq = seq;
        meta.level = level;
        meta.ranks = ranks;
        meta.node_size = 2;
        meta.group_size = 1;
        meta.complete = true;
        for (int r = 0; r < ranks; ++r) {
            std::string bytes(1000 + 10 * static_cast<std::size_t>(r), static_cast<char>('a' + r));
            FileRecord rec;
            rec.rank = rec.holder = r;
            rec.node = r / 2;
            rec.file = data_file_name(ckpt_id, r, IoMode::posix);
            rec.complete = true;
            rec.size = bytes.size();
            rec.crc32 = crc32_of(std::as_bytes(std::span(bytes.data(), bytes.size())));
            rec.vars.push_back({1, 0, rec.size, rec.crc32, "", ""});
            const fs::path at = l.ckpt_dir({seq, level, ckpt_id}, rec.node);
            fs::create_directories(at);
            std::ofstream(at / rec.file, std::ios::binary) << bytes;
            meta.files.push_back(rec);
        }
        if (edit) edit(meta);
        const std::string text = serialize_meta(meta);
        fs::create_directories(l.meta_exec_dir());
        std::ofstream(l.meta_file(level, seq), std::ios::binary) << text;
        fs::create_directories(l.meta_copy(level, seq, 0).parent_path());
        std::ofstream(l.meta_copy(level, seq, 0), std::ios::binary) << text;
        return meta;
    }

    fs::path data(std::uint64_t seq, int level, int ckpt_id, int rank) const {
        return layout().data_file({seq, level, ckpt_id}, rank, rank / 2);
    }

    test::TempDir dir;

  private:
    std::string exec_id_;
};

void flip_byte(const fs::path& path, std::uint64_t offset) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset));
    char c = 0;
    f.get(c);
    f.seekp(static_cast<std::streamoff>(offset));
    f.put(static_cast<char>(~c));
}

TEST(Verify, IntactCheckpointsVerify) {
    Execution e;
    e.checkpoint(1, 4, 1, 4);
    e.checkpoint(2, 1, 2, 4);
    Result r = run_verify({e.config_path()});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(r.err, "");
    for (const char* expected :
         {"execution 'exec-1' of ", "checkpoint 2 (L1, seq 2, POSIX, 4 ranks): intact; a restart can use it\n",
          "checkpoint 1 (L4, seq 1, POSIX, 4 ranks): intact; a restart can use it\n",
          "  ok                  metadata: ", "  ok                  metadata copy: ",
          "  ok                  data of rank 3: ",
          "summary: 2 checkpoints, 12 files: 12 ok, 0 damaged, 0 not visible here\n",
          "restart: checkpoint 2 (L1, seq 2)\n"}) {
        EXPECT_TRUE(contains(r.out, expected)) << expected << "\n" << r.out;
    }
    // The newest first, as a restart tries them.
    EXPECT_LT(r.out.find("checkpoint 2 (L1"), r.out.find("checkpoint 1 (L4"));
    Result j = run_verify({"--json", e.config_path()});
    EXPECT_EQ(j.code, 0);
    EXPECT_TRUE(parses_as_json(e.dir, j.out)) << j.out;
    EXPECT_TRUE(contains(j.out, "\"restart\": {\"checkpoint\": {\"id\": 2, \"level\": 1, \"seq\": 2}")) << j.out;
    EXPECT_TRUE(contains(j.out, "\"summary\": {\"checkpoints\": 2, \"files\": 12, \"ok\": 12, \"damaged\": 0"));
}

// keep_l4_ckpt keeps every L4 checkpoint in an archive, which a restart
// does not use; its files are checked all the same.
TEST(Verify, ArchivedL4CheckpointsAreVerifiedToo) {
    Execution e;
    e.checkpoint(1, 4, 1, 2);
    const StorageLayout l = e.layout();
    // The archive is flat, as FTI's: every checkpoint's files side by side.
    fs::create_directories(l.archive_dir());
    fs::create_directories(l.archive_meta_file(1).parent_path());
    for (const auto& entry : fs::directory_iterator(l.ckpt_dir({1, 4, 1}, 0))) {
        fs::rename(entry.path(), l.archive_dir() / entry.path().filename());
    }
    fs::rename(l.meta_copy(4, 1, 0), l.archive_dir() / "ckpt1.l4.meta");
    fs::rename(l.meta_file(4, 1), l.archive_meta_file(1));
    fs::resize_file(l.archive_dir() / "Ckpt1-Rank1.fti", 3);
    Result r = run_verify({e.config_path()});
    EXPECT_EQ(r.code, 1) << r.out;
    for (const std::string& expected : std::vector<std::string>{
             "checkpoint 1 (L4, archived, seq 1, POSIX, 2 ranks): damaged; archived (keep_l4_ckpt), a restart does "
             "not use it\n",
             "  ok                  metadata: " + l.archive_meta_file(1).string() + "\n",
             "  ok                  metadata copy: " + (l.archive_dir() / "ckpt1.l4.meta").string() + "\n",
             "  damaged (size)      data of rank 1: " + (l.archive_dir() / "Ckpt1-Rank1.fti").string(),
             "restart: no checkpoint\n"}) {
        EXPECT_TRUE(contains(r.out, expected)) << expected << "\n" << r.out;
    }
}

// Each file names its damage; a restart then skips the damaged L1
// checkpoint for the intact L4 one.
TEST(Verify, DamageIsNamedFileByFile) {
    Execution e;
    e.checkpoint(1, 4, 1, 4);
    e.checkpoint(2, 1, 2, 4);
    const fs::path missing = e.data(2, 1, 2, 1);
    const fs::path truncated = e.data(2, 1, 2, 2);
    const fs::path flipped = e.data(2, 1, 2, 3);
    fs::remove(missing);
    fs::resize_file(truncated, 10);
    flip_byte(flipped, 500);
    Result r = run_verify({e.config_path()});
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    for (const std::string& expected : std::vector<std::string>{
             "  damaged (missing)   data of rank 1: " + missing.string() + "\n",
             "  damaged (size)      data of rank 2: " + truncated.string() + ": checkpoint file '" +
                 truncated.string() + "' has 10 bytes, its metadata says 1020 (truncated)\n",
             "  damaged (checksum)  data of rank 3: " + flipped.string() + ": checkpoint file '" + flipped.string() +
                 "' fails its checksum",
             std::string("checkpoint 2 (L1, seq 2, POSIX, 4 ranks): damaged; a restart cannot use it: the data of rank "
                         "1 is damaged\n"),
             std::string("summary: 2 checkpoints, 12 files: 9 ok, 3 damaged, 0 not visible here\n"),
             std::string("restart: checkpoint 1 (L4, seq 1)\n")}) {
        EXPECT_TRUE(contains(r.out, expected)) << expected << "\n" << r.out;
    }
    Result j = run_verify({"--json", e.config_path()});
    EXPECT_EQ(j.code, 1);
    EXPECT_TRUE(parses_as_json(e.dir, j.out)) << j.out;
    EXPECT_TRUE(contains(j.out, "\"state\": \"damaged\", \"damage\": \"missing\"")) << j.out;
    EXPECT_TRUE(contains(j.out, "\"damage\": \"size\", \"detail\": \"checkpoint file ")) << j.out;
}

// Damaged metadata is restored from its copy at restart; a missing copy is
// damage, not a reason to pass over the checkpoint.
TEST(Verify, MetadataAndItsCopy) {
    Execution e;
    e.checkpoint(1, 4, 1, 2);
    e.checkpoint(2, 1, 2, 2);
    const StorageLayout l = e.layout();
    flip_byte(l.meta_file(1, 2), 20);
    fs::remove(l.meta_copy(4, 1, 0));
    Result r = run_verify({e.config_path()});
    EXPECT_EQ(r.code, 1) << r.out;
    for (const std::string& expected : std::vector<std::string>{
             "  damaged (checksum)  metadata: " + l.meta_file(1, 2).string() + ": checkpoint metadata '" +
                 l.meta_file(1, 2).string() + "' fails its checksum",
             "checkpoint 2 (L1, seq 2, POSIX, 2 ranks): damaged; a restart can use it; it restores the metadata from "
             "its copy\n"
             "  damaged (checksum)  metadata: ",
             "  damaged (missing)   metadata copy: " + l.meta_copy(4, 1, 0).string() + "\n",
             std::string("checkpoint 1 (L4, seq 1, POSIX, 2 ranks): damaged; a restart can use it\n"),
             std::string("restart: checkpoint 2 (L1, seq 2)\n")}) {
        EXPECT_TRUE(contains(r.out, expected)) << expected << "\n" << r.out;
    }
    // A copy that no longer matches its metadata is stale.
    std::ofstream(l.meta_copy(4, 1, 0)) << read_text_file(l.meta_copy(1, 2, 0));
    EXPECT_TRUE(contains(run_verify({e.config_path()}).out, "damaged (inconsistent) metadata copy: "));
}

// A checkpoint known only by the copy of its metadata: a restart restores
// the metadata when none of the execution is left, and otherwise takes the
// checkpoint for one that never committed.
TEST(Verify, MetadataKnownOnlyByItsCopy) {
    Execution e;
    e.checkpoint(1, 4, 1, 2);
    e.checkpoint(2, 1, 2, 2);
    const StorageLayout l = e.layout();
    fs::remove(l.meta_file(1, 2));
    Result one_lost = run_verify({e.config_path()});
    EXPECT_EQ(one_lost.code, 1) << one_lost.out;
    EXPECT_TRUE(contains(one_lost.out, "  damaged (missing)   metadata: " + l.meta_file(1, 2).string() + "\n"))
        << one_lost.out;
    EXPECT_TRUE(contains(one_lost.out,
                         "checkpoint 2 (L1, seq 2, POSIX, 2 ranks): damaged; a restart cannot use it: "
                         "its metadata is missing"))
        << one_lost.out;
    EXPECT_TRUE(contains(one_lost.out, "restart: checkpoint 1 (L4, seq 1)\n")) << one_lost.out;
    fs::remove(l.meta_file(4, 1));
    Result all_lost = run_verify({e.config_path()});
    EXPECT_EQ(all_lost.code, 1) << all_lost.out;
    EXPECT_TRUE(contains(all_lost.out,
                         "checkpoint 2 (L1, seq 2, POSIX, 2 ranks): damaged; a restart can use it; it "
                         "restores the metadata from its copy\n"))
        << all_lost.out;
    EXPECT_TRUE(contains(all_lost.out, "restart: checkpoint 2 (L1, seq 2)\n")) << all_lost.out;
    // meta_dir itself lost: the restart makes it again from the copies.
    fs::remove_all(e.dir.path() / "meta");
    Result dir_lost = run_verify({e.config_path()});
    EXPECT_EQ(dir_lost.code, 1) << dir_lost.err;
    EXPECT_TRUE(contains(dir_lost.out, "restart: checkpoint 2 (L1, seq 2)\n")) << dir_lost.out;
}

// On a real cluster (local_test = 0), a node's local storage is seen only
// there: its files are not damage, and exit code 0 says what is visible
// verifies; the restart line says what the verdict depends on.
TEST(Verify, FilesOfOtherNodesAreNotVisibleHere) {
    Execution e(false);
    e.checkpoint(1, 4, 1, 4);
    e.checkpoint(2, 1, 2, 4);
    fs::remove_all(e.local() / "node1");
    Result r = run_verify({e.config_path()});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    for (const std::string& expected : std::vector<std::string>{
             "  not visible here    data of rank 2: " + e.data(2, 1, 2, 2).string() + " (on node 1's local storage)\n",
             std::string("checkpoint 2 (L1, seq 2, POSIX, 4 ranks): intact where visible; a restart can use it if the "
                         "files not visible here verify\n"),
             std::string("summary: 2 checkpoints, 12 files: 10 ok, 0 damaged, 2 not visible here\n"),
             std::string("restart: checkpoint 2 (L1, seq 2) if its files not visible here verify, else checkpoint 1 "
                         "(L4, seq 1)\n")}) {
        EXPECT_TRUE(contains(r.out, expected)) << expected << "\n" << r.out;
    }
    // Simulated nodes are all on this machine: the same loss is damage.
    std::string text = read_text_file(e.config_path());
    text.replace(text.find("local_test = 0"), 14, "local_test = 1");
    std::ofstream(e.config_path()) << text;
    Result simulated = run_verify({e.config_path()});
    EXPECT_EQ(simulated.code, 1);
    EXPECT_TRUE(contains(simulated.out, "  damaged (missing)   data of rank 2: ")) << simulated.out;
}

// Names in the metadata are names: metadata naming a path is refused as
// damaged, never followed, and whatever bytes it holds, the output is
// printable ASCII.
TEST(Verify, HostileMetadataIsReportedNotFollowed) {
    Execution e;
    std::ofstream(e.dir.path() / "outside") << "not a checkpoint";
    e.checkpoint(1, 4, 1, 3, [](CheckpointMeta& m) {
        m.files[0].file = "../../../outside";
        m.files[2].file = "..";
    });
    e.checkpoint(2, 4, 2, 3, [](CheckpointMeta& m) { m.files[1].file = "Ckpt2-\x1b[2J\xff-Rank1.fti"; });
    for (const char* flag : {"", "--json"}) {
        std::vector<std::string> args = {e.config_path()};
        if (*flag != '\0') args.insert(args.begin(), flag);
        Result r = run_verify(args);
        EXPECT_EQ(r.code, 1) << r.out;
        expect_printable(r.out + r.err);
        if (*flag == '\0') {
            EXPECT_TRUE(contains(r.out, "FILE '../../../outside' is not a file name")) << r.out;
            EXPECT_TRUE(contains(r.out, "FILE 'Ckpt2-\\x1b[2J\\xff-Rank1.fti' is not a file name")) << r.out;
        } else {
            EXPECT_TRUE(parses_as_json(e.dir, r.out)) << r.out;
            EXPECT_TRUE(contains(r.out, "Ckpt2-\\u001b[2J\\u00ff-Rank1.fti")) << r.out;
        }
    }
}

// An L4 differential file whose committed update still waits in its
// journal (a crash while it was applied) is completed by a restart: the
// journal is checked, not the file half updated.
TEST(Verify, L4DifferentialUpdateWaitingInItsJournal) {
    Execution e;
    const StorageLayout l = e.layout();
    const fs::path file = l.data_file({2, kDcpLevel, 5}, 0, 0);
    const fs::path journal = fs::path(file) += ".journal";
    fs::create_directories(file.parent_path());
    std::vector<std::int32_t> values(5000, 7);
    ftiff::Layout layout;
    layout.update({{1, static_cast<std::int64_t>(values.size() * 4)}});
    ftiff::write_file(file, layout, {{1, std::as_bytes(std::span(values))}}, 0, 0, 1);
    CheckpointMeta meta;
    meta.exec_id = "exec-1";
    meta.ckpt_id = 5;
    meta.seq = 2;
    meta.level = kDcpLevel;
    meta.io = IoMode::ftiff;
    meta.ranks = 1;
    meta.complete = true;
    FileRecord rec;
    rec.file = file.filename().string();
    rec.complete = true;
    rec.size = fs::file_size(file);
    meta.files.push_back(rec);
    fs::create_directories(l.meta_exec_dir());
    std::ofstream(l.meta_file(kDcpLevel, 2)) << serialize_meta(meta);
    fs::create_directories(l.meta_copy_dir(kDcpLevel, 0));
    std::ofstream(l.meta_copy(kDcpLevel, 2, 0)) << serialize_meta(meta);
    Result intact = run_verify({e.config_path()});
    EXPECT_EQ(intact.code, 0) << intact.out;
    EXPECT_TRUE(contains(intact.out,
                         "checkpoint 5 (L4 differential, seq 2, FTI-FF, 1 rank): intact; a restart can "
                         "use it\n"))
        << intact.out;

    const std::vector<std::byte> update(300, std::byte{9});
    auto journal_update = [&](std::uint64_t seq) {
        RedoJournal j(journal, seq);
        j.write_at(update, 500);
        j.resize(rec.size);
        j.sync();
    };
    journal_update(2);
    flip_byte(file, 600);  // the update half applied
    Result pending = run_verify({e.config_path()});
    EXPECT_EQ(pending.code, 0) << pending.out;
    EXPECT_TRUE(contains(pending.out, "  ok                  data of rank 0: " + file.string() +
                                          " (its committed update waits in its journal '" + journal.string() +
                                          "', which verifies; a restart applies it)\n"))
        << pending.out;
    flip_byte(journal, 20 + 20 + 100);  // inside the record's bytes
    Result damaged = run_verify({e.config_path()});
    EXPECT_EQ(damaged.code, 1) << damaged.out;
    EXPECT_TRUE(contains(damaged.out, "  damaged (journal)   data of rank 0: " + file.string() +
                                          ": the L4 differential journal '" + journal.string() +
                                          "' has a record at offset 20 that fails its CRC-32\n"))
        << damaged.out;
    // The journal of an update never committed is removed by a restart; the
    // file is what counts.
    journal_update(3);
    Result stale = run_verify({e.config_path()});
    EXPECT_EQ(stale.code, 1) << stale.out;
    EXPECT_TRUE(contains(stale.out, "  damaged (checksum)  data of rank 0: " + file.string())) << stale.out;
    EXPECT_TRUE(contains(stale.out, "(beside it, the journal of an update never committed, which a restart removes)"))
        << stale.out;
}

TEST(Verify, UsageAndConfigurationErrorsExitTwo) {
    Execution e;
    Result none = run_verify({});
    EXPECT_EQ(none.code, 2);
    EXPECT_TRUE(contains(none.err, "usage: mlckpt verify [--json] [--exec-id ID] [--] CONFIG"));
    EXPECT_EQ(run_verify({"--bogus", e.config_path()}).code, 2);
    EXPECT_EQ(run_verify({e.config_path(), e.config_path()}).code, 2);
    EXPECT_EQ(run_verify({"--json", "--json", e.config_path()}).code, 2);

    Result missing = run_verify({(e.dir.path() / "no-such.fti").string()});
    EXPECT_EQ(missing.code, 2);
    EXPECT_TRUE(contains(missing.err, "cannot read configuration file")) << missing.err;

    // A checkpoint file, or any file that is not a configuration.
    const std::string binary = e.dir.write("data.bin", std::string("\x7f"
                                                                   "ELF\x01\x00\xff[basic",
                                                                   12));
    Result not_config = run_verify({binary});
    EXPECT_EQ(not_config.code, 2);
    EXPECT_TRUE(contains(not_config.err, "mlckpt verify: ")) << not_config.err;
    expect_printable(not_config.err);

    fs::remove_all(e.dir.path() / "global");
    Result no_global = run_verify({e.config_path()});
    EXPECT_EQ(no_global.code, 2);
    EXPECT_TRUE(contains(no_global.err,
                         "[basic] glbl_dir = '" + (e.dir.path() / "global").string() + "' is not a directory here"))
        << no_global.err;

    Execution other;
    EXPECT_EQ(run_verify({"--exec-id", "..", other.config_path()}).code, 2);
    EXPECT_EQ(run_verify({"--exec-id", "a/b", other.config_path()}).code, 2);
}

// The execution comes from the configuration, or from --exec-id when the
// configuration names none.
TEST(Verify, WhichExecution) {
    Execution e(true, 0, "");
    Result nothing = run_verify({e.config_path()});
    EXPECT_EQ(nothing.code, 0) << nothing.err;
    EXPECT_TRUE(contains(nothing.out, "nothing to verify")) << nothing.out;
    Result nothing_json = run_verify({"--json", e.config_path()});
    EXPECT_TRUE(parses_as_json(e.dir, nothing_json.out)) << nothing_json.out;

    // Metadata of an execution the configuration does not name (a crash
    // before the restart state was written back, another run): a relaunch
    // starts a new execution, and the tool says so, naming what is there.
    fs::create_directories(e.dir.path() / "meta" / "run-7");
    Result unnamed = run_verify({e.config_path()});
    EXPECT_EQ(unnamed.code, 0) << unnamed.err;
    EXPECT_TRUE(contains(unnamed.out, "a relaunch starts a new execution")) << unnamed.out;
    EXPECT_TRUE(contains(unnamed.out, "holds the metadata of 'run-7': verify one with --exec-id")) << unnamed.out;
    EXPECT_TRUE(contains(unnamed.out, "restart: no checkpoint\n")) << unnamed.out;
    Result unnamed_json = run_verify({"--json", e.config_path()});
    EXPECT_TRUE(parses_as_json(e.dir, unnamed_json.out)) << unnamed_json.out;
    EXPECT_TRUE(contains(unnamed_json.out, "\"restart\": {\"checkpoint\": null")) << unnamed_json.out;
    Result chosen = run_verify({"--exec-id", "run-7", e.config_path()});
    EXPECT_EQ(chosen.code, 0) << chosen.err;
    EXPECT_TRUE(contains(chosen.out, "execution 'run-7'")) << chosen.out;
    EXPECT_TRUE(contains(chosen.out, "restart: no checkpoint\n")) << chosen.out;

    // A restart is asked for, and nothing is there to restart from.
    Execution lost(true, 1);
    Result r = run_verify({lost.config_path()});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(contains(r.out, "no checkpoint of execution 'exec-1' is recorded in")) << r.out;
    EXPECT_TRUE(contains(r.out, "but the configuration asks for a restart ([restart] failure = 1)")) << r.out;
}

}  // namespace
}  // namespace mlckpt::tools
