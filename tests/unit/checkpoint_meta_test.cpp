#include "format/checkpoint_meta.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "expect_error.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {
namespace {

CheckpointMeta sample() {
    CheckpointMeta m;
    m.exec_id = "2026-11-22_10-00-00";
    m.ckpt_id = 6;
    m.seq = 12;
    m.level = 4;
    m.ranks = 2;
    m.time_ns = 1234567890123;
    m.complete = true;
    for (int r = 0; r < 2; ++r) {
        FileRecord f;
        f.rank = r;
        f.node = r / 2;
        f.file = "Ckpt6-Rank" + std::to_string(r) + ".fti";
        f.complete = true;
        f.size = 524294;
        f.crc32 = 0x1b39e4e4;
        f.vars.push_back({0, 0, 524288, 0xdeadbeef, "temperature field", "/fields/temperature field"});
        f.vars.push_back({5, 524288, 6, 0x00000001, "", ""});
        m.files.push_back(f);
    }
    return m;
}

// Restarts build paths from the FILE names: metadata whose checksum is
// right but whose names reach other directories is refused.
TEST(CheckpointMeta, FileNamesThatAreNotNamesAreRefused) {
    for (const char* name : {"../../outside/Ckpt6-Rank0.fti", "/etc/passwd", "..", ".", "a\x1b[2Jb"}) {
        CheckpointMeta m = sample();
        m.files[0].file = name;
        const std::string text = serialize_meta(m);
        try {
            parse_meta(text, "m");
            ADD_FAILURE() << "accepted FILE '" << name << "'";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("is not a file name"), std::string::npos) << e.what();
        }
    }
}

TEST(CheckpointMeta, RoundTripsEveryField) {
    CheckpointMeta m = sample();
    std::string text = serialize_meta(m);
    // The seed's fields appear as self-describing keys.
    for (const char* key :
         {"FILE Ckpt6-Rank0.fti", "TYPE FULL", "COMPLETE 1", "SIZE 524294", "CRC 0x1b39e4e4", "CKPT 6", "RANKS 2"}) {
        EXPECT_NE(text.find(key), std::string::npos) << key;
    }
    CheckpointMeta back = parse_meta(text, "m");
    EXPECT_EQ(back.exec_id, m.exec_id);
    EXPECT_EQ(back.ckpt_id, 6);
    EXPECT_EQ(back.seq, 12u);
    EXPECT_EQ(back.level, 4);
    EXPECT_EQ(back.ranks, 2);
    EXPECT_EQ(back.time_ns, m.time_ns);
    EXPECT_TRUE(back.complete);
    ASSERT_EQ(back.files.size(), 2u);
    EXPECT_EQ(back.files[1].file, "Ckpt6-Rank1.fti");
    EXPECT_EQ(back.files[1].crc32, 0x1b39e4e4u);
    ASSERT_EQ(back.files[1].vars.size(), 2u);
    EXPECT_EQ(back.files[1].vars[0].name, "temperature field");
    EXPECT_EQ(back.files[1].vars[1].offset, 524288u);
    EXPECT_EQ(back.files[1].find_var(5)->size, 6u);
    EXPECT_EQ(back.files[1].find_var(9), nullptr);
}

// `text` with its CHECKSUM line made right again after an edit.
std::string resealed(std::string text) {
    text = text.substr(0, text.rfind("CHECKSUM "));
    return text + "CHECKSUM " + crc32_hex(crc32_of(std::as_bytes(std::span(text.data(), text.size())))) + "\n";
}

// DIR says where the files are: in the level's directory (FTI's layout) or
// in a directory of the checkpoint's own. Version 2, which had no DIR, kept
// every checkpoint in its own; another DIR is refused.
TEST(CheckpointMeta, DirectoryOfTheFiles) {
    CheckpointMeta m = sample();
    const std::string text = serialize_meta(m);
    EXPECT_EQ(text.rfind("MLCKPT_META 3\n", 0), 0u) << text;
    EXPECT_NE(text.find("\nDIR level\n"), std::string::npos) << text;
    EXPECT_FALSE(parse_meta(text, "m").own_dir);
    m.own_dir = true;
    EXPECT_TRUE(parse_meta(serialize_meta(m), "m").own_dir);

    std::string v2 = text;
    v2.replace(0, 13, "MLCKPT_META 2");
    v2.erase(v2.find("DIR level\n"), 10);
    const CheckpointMeta old = parse_meta(resealed(v2), "v2");
    EXPECT_TRUE(old.own_dir);
    EXPECT_EQ(old.files.size(), 2u);

    std::string other = text;
    other.replace(other.find("DIR level"), 9, "DIR other");
    const std::string why = test::error_message(ErrorKind::corrupt, [&] { parse_meta(resealed(other), "m"); });
    EXPECT_NE(why.find("DIR must be 'own' or 'level'"), std::string::npos) << why;
    std::string v4 = text;
    v4.replace(0, 13, "MLCKPT_META 4");
    const std::string why4 = test::error_message(ErrorKind::corrupt, [&] { parse_meta(resealed(v4), "m"); });
    EXPECT_NE(why4.find("not an mlckpt metadata file of version 2 or 3"), std::string::npos) << why4;
}

// HDF5 files: each variable's dataset path on a DATASET line after its VAR
// record; metadata written before it (no DATASET line) still reads, with
// an empty path; a path that is not an absolute HDF5 path is refused.
TEST(CheckpointMeta, Hdf5DatasetPaths) {
    const FileRecord f = sample().files[0];
    const std::string text = serialize_file_record(f);
    EXPECT_NE(text.find("NAME temperature field\nDATASET /fields/temperature field\n"), std::string::npos) << text;
    FileRecord back = parse_file_record(text, "r");
    EXPECT_EQ(back.vars[0].dataset, "/fields/temperature field");
    EXPECT_EQ(back.vars[1].dataset, "");

    std::string older = text;
    older.erase(older.find("DATASET "), std::string("DATASET /fields/temperature field\n").size());
    back = parse_file_record(older, "r");
    EXPECT_EQ(back.vars[0].dataset, "");
    EXPECT_EQ(back.vars[0].name, "temperature field");

    for (const char* bad : {"DATASET fields/t", "DATASET /", "DATASET /a\x1b", "DATASET /a/"}) {
        std::string wrong = text;
        wrong.replace(wrong.find("DATASET /fields/temperature field"),
                      std::string("DATASET /fields/temperature field").size(), bad);
        const std::string message = test::error_message(ErrorKind::corrupt, [&] { parse_file_record(wrong, "r"); });
        EXPECT_NE(message.find("is not an absolute HDF5 path"), std::string::npos) << bad << ": " << message;
    }
    std::string twice = text;
    twice.insert(twice.find("DATASET "), "DATASET /x\n");
    EXPECT_NE(test::error_message(ErrorKind::corrupt, [&] { parse_file_record(twice, "r"); })
                  .find("DATASET without its VAR record"),
              std::string::npos);
}

TEST(CheckpointMeta, FileRecordRoundTrip) {
    FileRecord f = sample().files[0];
    FileRecord back = parse_file_record(serialize_file_record(f), "r");
    EXPECT_EQ(back.file, f.file);
    EXPECT_EQ(back.vars.size(), 2u);
}

// A layered L4 differential file's record keeps its layers (LAYER lines),
// oldest first; layers out of order are refused.
TEST(CheckpointMeta, DcpLayersRoundTrip) {
    FileRecord f = sample().files[0];
    f.file = "dcp-id1-rank0.fti";
    f.layers = {{3, 1, 0, 1000, 0xabcdef01}, {4, 2, 1000, 200, 0x12345678}};
    f.size = 1200;
    f.crc32 = 0x12345678;
    const std::string text = serialize_file_record(f);
    EXPECT_NE(text.find("LAYER 4 ID 2 OFFSET 1000 SIZE 200 CRC 0x12345678\n"), std::string::npos) << text;
    FileRecord back = parse_file_record(text, "r");
    EXPECT_EQ(back.layers, f.layers);
    EXPECT_EQ(back.vars.size(), 2u);
    std::string swapped = text;
    swapped.replace(swapped.find("LAYER 4 ID 2 OFFSET 1000"), 24, "LAYER 2 ID 2 OFFSET 1000");
    EXPECT_NE(test::error_message(ErrorKind::corrupt, [&] { parse_file_record(swapped, "r"); })
                  .find("LAYER records out of order"),
              std::string::npos);
}

std::string corrupt_error(const std::string& text) {
    return test::error_message(ErrorKind::corrupt, [&] { parse_meta(text, "meta.file"); });
}

TEST(CheckpointMeta, DamageIsDetected) {
    std::string text = serialize_meta(sample());
    // A changed byte.
    std::string flipped = text;
    flipped[text.find("SIZE 524294") + 5] = '9';
    EXPECT_NE(corrupt_error(flipped).find("'meta.file' fails its checksum"), std::string::npos);
    // Truncation.
    EXPECT_NE(corrupt_error(text.substr(0, text.size() / 2)).find("has no CHECKSUM line"), std::string::npos);
    EXPECT_NE(corrupt_error("").find("has no CHECKSUM line"), std::string::npos);
    EXPECT_NE(corrupt_error("garbage").find("has no CHECKSUM line"), std::string::npos);
}

// A dataset of application files (scr.h): its name, flags and validity,
// several files per rank with the seed-004 ORIG fields, and XOR redundancy,
// all kept through a round trip; FTI metadata carries none of it.
TEST(CheckpointMeta, DatasetFieldsRoundTrip) {
    CheckpointMeta m = sample();
    m.name = "ckpt.6 with spaces";
    m.flags = 3;
    m.valid = false;
    FileRecord second = m.files[0];
    second.file = "rank_0.ckpt";
    second.vars.clear();
    second.orig = "ckpt.6/rank_0.ckpt";
    second.origpath = "/p/lscratchb/user3/simulation123/ckpt.6";
    second.origname = "rank_0.ckpt";
    m.files.insert(m.files.begin() + 1, second);
    FileRecord parity = m.files[2];
    parity.type = "XOR";
    parity.vars.clear();
    m.redundancy.push_back(parity);
    const std::string text = serialize_meta(m);
    EXPECT_NE(text.find("ORIGPATH /p/lscratchb/user3/simulation123/ckpt.6\n"), std::string::npos) << text;
    CheckpointMeta back = parse_meta(text, "meta.file");
    EXPECT_EQ(back.name, m.name);
    EXPECT_EQ(back.flags, 3);
    EXPECT_FALSE(back.valid);
    ASSERT_EQ(back.files.size(), 3u);
    EXPECT_EQ(back.files[1].orig, second.orig);
    EXPECT_EQ(back.files[1].origpath, second.origpath);
    EXPECT_EQ(back.files[1].origname, second.origname);
    EXPECT_EQ(back.redundancy.at(0).type, "XOR");
    EXPECT_EQ(serialize_meta(back), text);

    const std::string fti = serialize_meta(sample());
    EXPECT_EQ(fti.find("\nNAME "), std::string::npos);
    EXPECT_FALSE(parse_meta(fti, "meta.file").is_dataset());
}

}  // namespace
}  // namespace mlckpt::core
