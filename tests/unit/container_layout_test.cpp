// The container layout of the core (format/shared/container_layout): the worked
// example of docs/formats.md, the split of ranks over files, reading back
// with every check, and the inspect and extract tools on a real file.
#include "format/shared/container_layout.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <sstream>

#include "cli.hpp"
#include "expect_error.hpp"
#include "extract.hpp"
#include "inspect.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core::container {
namespace {

using mlckpt::test::error_message;
using mlckpt::test::TempDir;

std::vector<std::byte> pattern(std::size_t n, int seed) {
    std::vector<std::byte> out(n);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = static_cast<std::byte>((i * 7 + static_cast<std::size_t>(seed)) & 0xff);
    return out;
}

// Writes physical file `file` of a container whose ranks hold `sizes`
// bytes, the way the engine does: META1, each task's chunk, META2 (+ the
// mapping in file 0 of a multi-file container).
fs::path write_container(const TempDir& dir, const std::vector<std::uint64_t>& sizes, int file, int files,
                         std::int32_t block) {
    const std::string prefix = "Ckpt5-sionlib.fti";
    Header h = plan_file(file, files, sizes, block, prefix);
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, ".%06d", file);
    fs::path path = dir.path() / (file == 0 ? prefix : prefix + suffix);
    File out = File::create(path);
    out.write_all_at(encode_header(h), 0);
    Geometry geo = geometry(h);
    std::vector<std::uint64_t> written;
    for (std::size_t t = 0; t < h.ntasks(); ++t) {
        auto rank = static_cast<int>(h.global_ranks[t]);
        out.write_all_at(pattern(sizes[static_cast<std::size_t>(rank)], rank), geo.chunk_offset(t, 0));
        written.push_back(sizes[static_cast<std::size_t>(rank)]);
    }
    std::vector<std::byte> tail = encode_tail(tail_for(h, written));
    if (file == 0 && files > 1) {
        std::vector<std::byte> mapping = encode_mapping(static_cast<int>(sizes.size()), files);
        tail.insert(tail.end(), mapping.begin(), mapping.end());
    }
    out.write_all_at(tail, static_cast<std::uint64_t>(h.start_of_varheader));
    out.close();
    return path;
}

TEST(ContainerLayout, WorkedExampleOfTheDocumentation) {
    Header h = plan_file(0, 1, {5000, 0, 9000}, 4096, "Ckpt7-sionlib.fti");
    EXPECT_EQ(meta1_bytes(h.ntasks()), 1136u);
    Geometry g = geometry(h);
    EXPECT_EQ(g.data_start, 4096u);
    EXPECT_EQ(g.globalskip, 20480u);
    EXPECT_EQ(g.chunk_offset(0, 0), 4096u);
    EXPECT_EQ(g.chunk_offset(1, 0), 12288u);
    EXPECT_EQ(g.chunk_offset(2, 0), 12288u);
    EXPECT_EQ(h.start_of_varheader, 24576);
    EXPECT_EQ(h.maxchunks, 1);
    Tail t = tail_for(h, {5000, 0, 9000});
    EXPECT_EQ(t.chunks, (std::vector<std::int64_t>{1, 0, 1}));
    EXPECT_EQ(t.chunk_bytes.at(0), (std::vector<std::int64_t>{5000, -1, 9000}));
    EXPECT_EQ(encode_tail(t).size(), 48u);
    std::vector<std::byte> m1 = encode_header(h);
    ASSERT_EQ(m1.size(), 1136u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(m1.data()), 4), "sion");
    EXPECT_EQ(static_cast<int>(m1[4]), 1);  // little-endian 1
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(m1.data() + 52)), "Ckpt7-sionlib.fti");
}

TEST(ContainerLayout, RanksAreSplitIntoContiguousFiles) {
    for (int ranks : {1, 2, 7, 8, 100}) {
        for (int files = 1; files <= std::min(ranks, 9); ++files) {
            int expected_file = 0;
            for (int r = 0; r < ranks; ++r) {
                while (expected_file + 1 < files && first_rank_of_file(expected_file + 1, ranks, files) <= r) {
                    ++expected_file;
                }
                EXPECT_EQ(file_of_rank(r, ranks, files), expected_file) << r << " of " << ranks << " in " << files;
            }
            EXPECT_EQ(first_rank_of_file(files, ranks, files), ranks);
            for (int f = 0; f < files; ++f)
                EXPECT_LT(first_rank_of_file(f, ranks, files), first_rank_of_file(f + 1, ranks, files));
        }
    }
}

TEST(ContainerLayout, ReadsBackWhatWasWritten) {
    TempDir dir;
    std::vector<std::uint64_t> sizes = {5000, 0, 9000, 1, 4096};
    for (int f = 0; f < 2; ++f) {
        fs::path path = write_container(dir, sizes, f, 2, 4096);
        File file = File::open_read(path);
        ASSERT_TRUE(is_container(file));
        ContainerFile c = read_container(file);
        EXPECT_EQ(c.header.filenumber, f);
        EXPECT_EQ(c.header.nfiles, 2);
        EXPECT_EQ(c.mapping.has_value(), f == 0);
        for (std::size_t t = 0; t < c.header.ntasks(); ++t) {
            auto rank = static_cast<int>(c.header.global_ranks[t]);
            EXPECT_EQ(c.task_of(rank), static_cast<int>(t));
            Extents e = c.extents_of(t);
            EXPECT_EQ(total_length(e), sizes[static_cast<std::size_t>(rank)]);
            std::vector<std::byte> data(static_cast<std::size_t>(total_length(e)));
            if (!e.empty()) file.read_exact_at(data, e[0].offset);
            EXPECT_EQ(data, pattern(sizes[static_cast<std::size_t>(rank)], rank));
        }
    }
}

// A restart reads only its own task's entries: the same extents as the
// whole file's read, for every task of every file.
TEST(ContainerLayout, EachTaskReadsItsOwnEntriesOnly) {
    TempDir dir;
    std::vector<std::uint64_t> sizes = {5000, 0, 9000, 1, 4096};
    for (int f = 0; f < 2; ++f) {
        File file = File::open_read(write_container(dir, sizes, f, 2, 4096));
        ContainerFile c = read_container(file);
        for (std::size_t t = 0; t < c.header.ntasks(); ++t) {
            const std::int64_t rank = c.header.global_ranks[t];
            const std::uint64_t size = sizes[static_cast<std::size_t>(rank)];
            const std::optional<Extents> mine = read_task_extents(file, rank, c.geo.chunk_offset(t, 0), size);
            ASSERT_TRUE(mine.has_value()) << rank;
            EXPECT_EQ(*mine, c.extents_of(t)) << rank;
        }
        // A rank of the other file is no task of this one: the whole read decides.
        EXPECT_FALSE(read_task_extents(file, f == 0 ? 4 : 0, 4096, 1).has_value());
    }
}

// What a task reads is checked against its record; damage to another
// task's entries is not its concern (the whole read still refuses it).
TEST(ContainerLayout, TaskEntriesDisagreeingWithTheRecordAreRefused) {
    TempDir dir;
    fs::path path = write_container(dir, {5000, 0, 9000}, 0, 1, 4096);
    File file = File::open_read(path);
    const ContainerFile c = read_container(file);
    const std::uint64_t at2 = c.geo.chunk_offset(2, 0);
    std::string message = error_message(ErrorKind::corrupt, [&] { read_task_extents(file, 2, at2, 9001); });
    EXPECT_NE(message.find("holds 9000 bytes in 1 chunks of rank 2"), std::string::npos) << message;
    message = error_message(ErrorKind::corrupt, [&] { read_task_extents(file, 2, at2 + 1, 9000); });
    EXPECT_NE(message.find("its metadata says 9000 bytes at " + std::to_string(at2 + 1)), std::string::npos) << message;
    message = error_message(ErrorKind::corrupt, [&] { read_task_extents(file, 1, at2, 10); });
    EXPECT_NE(message.find("in 0 chunks of rank 1"), std::string::npos) << message;

    // Task 0's requested size damaged: task 2 reads on, the whole read refuses.
    fs::path copy = dir.path() / "damaged";
    fs::copy_file(path, copy);
    File damaged = File::open_update(copy);
    const std::int64_t huge = std::int64_t{1} << 60;
    damaged.write_all_at(std::as_bytes(std::span(&huge, 1)), meta1_bytes(0) - 12 + 8 * 3);
    damaged.close();
    File reread = File::open_read(copy);
    EXPECT_EQ(read_task_extents(reread, 2, at2, 9000), (Extents{{at2, 9000}}));
    message = error_message(ErrorKind::corrupt, [&] { read_container(reread); });
    EXPECT_NE(message.find("requested chunk size of task 0"), std::string::npos) << message;
    message = error_message(ErrorKind::corrupt, [&] { read_task_extents(reread, 0, c.geo.chunk_offset(0, 0), 5000); });
    EXPECT_NE(message.find("requested chunk size of task 0"), std::string::npos) << message;

    // Cut into META2: every task is told so.
    fs::path cut = dir.path() / "cut";
    fs::copy_file(path, cut);
    fs::resize_file(cut, fs::file_size(cut) - 8);
    message = error_message(ErrorKind::corrupt, [&] { read_task_extents(File::open_read(cut), 0, 4096, 5000); });
    EXPECT_NE(message.find("(truncated)"), std::string::npos) << message;
}

// Every corruption below is refused with a message naming the field.
TEST(ContainerLayout, DamagedFilesAreRefusedNamingTheDefect) {
    TempDir dir;
    fs::path path = write_container(dir, {5000, 0, 9000}, 0, 1, 4096);
    auto damage = [&](std::uint64_t offset, std::vector<std::uint8_t> bytes) {
        fs::path copy = dir.path() / "damaged";
        fs::copy_file(path, copy, fs::copy_options::overwrite_existing);
        File f = File::open_update(copy);
        f.write_all_at(std::as_bytes(std::span(bytes)), offset);
        f.close();
        return error_message(ErrorKind::corrupt, [&] { read_container(File::open_read(copy)); });
    };
    EXPECT_NE(damage(0, {'x'}).find("does not start with 'sion'"), std::string::npos);
    EXPECT_NE(damage(4, {2, 0, 0, 0}).find("endianness"), std::string::npos);
    EXPECT_NE(damage(20, {0, 0, 0, 0}).find("blocksize 0 is not positive"), std::string::npos);
    EXPECT_NE(damage(32, {5, 0, 0, 0}).find("filenumber 5 is not below nfiles 1"), std::string::npos);
    // The prefix names the container's other files: a name, never a path.
    EXPECT_NE(damage(52, {'.', '.', '/', 'x'}).find("its file name prefix is not a file name"), std::string::npos);
    EXPECT_NE(damage(52, {0x1b, '['}).find("its file name prefix is not a file name"), std::string::npos);
    EXPECT_NE(damage(1076 + 48 + 4, {0, 0x61, 0, 0, 0, 0, 0, 0}).find("start_of_varheader is 24832"),
              std::string::npos);
    EXPECT_NE(damage(24576 + 24 + 8, {0, 0, 0, 0, 0, 0, 0, 0}).find("chunk 0 of task 1 is unused but its size is 0"),
              std::string::npos);
    EXPECT_NE(damage(24576 + 24, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}).find("holds -1 bytes"),
              std::string::npos);
    EXPECT_NE(damage(24576 + 8, {3, 0, 0, 0, 0, 0, 0, 0}).find("task 1 has 3 chunks"), std::string::npos);

    fs::path cut = dir.path() / "cut";
    fs::copy_file(path, cut);
    fs::resize_file(cut, fs::file_size(path) - 1);
    std::string message = error_message(ErrorKind::corrupt, [&] { read_container(File::open_read(cut)); });
    EXPECT_NE(message.find("(truncated)"), std::string::npos) << message;
    EXPECT_NE(message.find("cut"), std::string::npos) << message;
    fs::resize_file(cut, 100);
    message = error_message(ErrorKind::corrupt, [&] { read_container(File::open_read(cut)); });
    EXPECT_NE(message.find("(truncated)"), std::string::npos) << message;
}

// A crafted file of no task and 2^31 - 1 chunks: refused before anything is
// allocated for the chunks (it exhausted memory), and the tool says so.
TEST(ContainerLayout, ChunksWithoutTasksAreRefused) {
    TempDir dir;
    fs::path path = write_container(dir, {5000}, 0, 1, 4096);
    {
        File f = File::open_update(path);
        const std::uint8_t no_tasks[4] = {0, 0, 0, 0};
        const std::uint8_t chunks[4] = {0xff, 0xff, 0xff, 0x7f};  // maxchunks, where the task list was
        f.write_all_at(std::as_bytes(std::span(no_tasks)), 24);
        f.write_all_at(std::as_bytes(std::span(chunks)), 1076);
        f.close();
    }
    std::string message = error_message(ErrorKind::corrupt, [&] { read_container(File::open_read(path)); });
    EXPECT_NE(message.find("maxchunks 2147483647 with no task"), std::string::npos) << message;
    std::ostringstream out, err;
    EXPECT_EQ(mlckpt::tools::run_command_line({"inspect", path.string()}, out, err), 1) << err.str();
    EXPECT_NE(err.str().find("maxchunks 2147483647 with no task"), std::string::npos) << err.str();
}

TEST(ContainerLayout, BigEndianFilesAreRead) {
    // One task of 10 bytes, block 512, written big-endian by hand: META1 of
    // 1104 bytes, data from 1536, one block of 512, META2 at 2048.
    std::vector<std::byte> m(2048 + 16);
    auto be = [&](std::size_t at, std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i)
            m[at + static_cast<std::size_t>(i)] = static_cast<std::byte>(v >> (8 * (n - 1 - i)));
    };
    std::memcpy(m.data(), "sion", 4);
    be(4, 1, 4);
    be(20, 512, 4);
    be(24, 1, 4);
    be(28, 1, 4);
    be(1076, 0, 8);     // globalrank
    be(1084, 10, 8);    // size
    be(1092, 1, 4);     // maxchunks
    be(1096, 2048, 8);  // start_of_varheader
    be(2048, 1, 8);     // chunks
    be(2056, 10, 8);    // chunksize
    TempDir dir;
    fs::path path = dir.path() / "be.sion";
    File out = File::create(path);
    out.write_all_at(m, 0);
    out.close();
    ContainerFile c = read_container(File::open_read(path));
    EXPECT_TRUE(c.header.big_endian);
    EXPECT_EQ(c.header.blocksize, 512);
    ASSERT_EQ(c.extents_of(0).size(), 1u);
    EXPECT_EQ(c.extents_of(0)[0].offset, 1536u);
    EXPECT_EQ(c.extents_of(0)[0].length, 10u);
}

TEST(ContainerTools, InspectPrintsBothMetadataBlocksAndTheTasks) {
    TempDir dir;
    fs::path path = write_container(dir, {5000, 0, 9000}, 0, 1, 4096);
    std::ostringstream out, err;
    ASSERT_EQ(tools::inspect({path.string()}, out, err), 0) << err.str();
    for (const char* expected : {"blocksize:          4096", "ntasks:             3", "start_of_varheader: 24576",
                                 "filenameprefix:     Ckpt5-sionlib.fti", "chunks:            1 0 1",
                                 "chunksize[0]:      5000 -1 9000", "META2 (at 24576, 48 bytes)"}) {
        EXPECT_NE(out.str().find(expected), std::string::npos) << expected << "\n" << out.str();
    }
    std::ostringstream json, err2;
    ASSERT_EQ(tools::inspect({"--json", path.string()}, json, err2), 0);
    EXPECT_NE(json.str().find("\"chunksize\": [[5000, -1, 9000]]"), std::string::npos) << json.str();
    EXPECT_NE(json.str().find("{\"offset\": 12288, \"written\": 9000}"), std::string::npos) << json.str();
}

TEST(ContainerTools, ExtractFindsTheRankThroughTheMapping) {
    TempDir dir;
    std::vector<std::uint64_t> sizes = {300, 0, 7000, 20};
    fs::path file0 = write_container(dir, sizes, 0, 2, 512);
    write_container(dir, sizes, 1, 2, 512);
    for (int rank = 0; rank < 4; ++rank) {
        fs::path output = dir.path() / ("out" + std::to_string(rank));
        std::ostringstream out, err;
        ASSERT_EQ(
            tools::extract({file0.string(), "--rank", std::to_string(rank), "--output", output.string()}, out, err), 0)
            << err.str();
        std::string text = mlckpt::test::slurp(output);
        std::vector<std::byte> expected = pattern(sizes[static_cast<std::size_t>(rank)], rank);
        ASSERT_EQ(text.size(), expected.size());
        EXPECT_TRUE(expected.empty() || std::memcmp(text.data(), expected.data(), expected.size()) == 0)
            << "rank " << rank;
    }
    std::ostringstream out, err;
    EXPECT_EQ(tools::extract({file0.string(), "--rank", "9"}, out, err), 1);
    EXPECT_NE(err.str().find("rank 9 is not in the container; its ranks are 0 to 3"), std::string::npos) << err.str();
    std::ostringstream out2, err2;
    EXPECT_EQ(tools::extract({file0.string(), "--rank", "x"}, out2, err2), 2);
    EXPECT_NE(err2.str().find("--rank 'x' is not a rank"), std::string::npos) << err2.str();
    std::ostringstream out3, err3;
    EXPECT_EQ(tools::extract({(dir.path() / "Ckpt5-sionlib.fti.000001").string(), "--rank", "0"}, out3, err3), 1);
    EXPECT_NE(err3.str().find("give file 0 ('Ckpt5-sionlib.fti') to find it"), std::string::npos) << err3.str();
}

}  // namespace
}  // namespace mlckpt::core::container
