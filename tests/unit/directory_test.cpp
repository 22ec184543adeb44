// Directories the library creates and the files it creates in them: the
// explicit mode whatever the umask, no symbolic link followed below a
// configured directory, and a directory opened once that a swap for a link
// cannot redirect (io/file.hpp: Directory, make_dirs, File::create).
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <string>

#include "common/error.hpp"
#include "io/file.hpp"
#include "temp_dir.hpp"
#include "tree_snapshot.hpp"

namespace mlckpt::core {
namespace {

namespace fs = std::filesystem;

unsigned mode_of(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
}

void write_text(File f, const std::string& text) {
    f.write_all(std::as_bytes(std::span(text.data(), text.size())));
    f.close();
}

// An outside directory holding files with the names the library writes.
struct Outside {
    test::TempDir dir;
    Outside() {
        dir.write("Ckpt1-Rank0.fti", "outside data\n");
        dir.write("Ckpt1-Rank0.fti.tmp", "outside tmp\n");
        dir.write("ckpt1.l1.meta", "outside meta\n");
    }
    const fs::path& path() const { return dir.path(); }
};

class Umask {
  public:
    explicit Umask(mode_t mask) : old_(::umask(mask)) {}
    ~Umask() { ::umask(old_); }

  private:
    mode_t old_;
};

TEST(Directory, CreatedWithTheDocumentedModeWhateverTheUmask) {
    test::TempDir tmp;
    for (mode_t mask : {mode_t{0}, mode_t{002}, mode_t{022}}) {
        Umask umask(mask);
        const fs::path base = tmp.path() / ("base" + std::to_string(mask)) / "ckpt";  // missing: created too
        const fs::path dir = base / "node0" / "exec" / "l1" / "ckpt1";
        make_dirs(base, dir);
        for (const fs::path& p :
             {base.parent_path(), base, base / "node0", base / "node0" / "exec", base / "node0" / "exec" / "l1", dir}) {
            EXPECT_EQ(mode_of(p), kDirectoryMode) << p << " with umask " << mask;
        }
    }
    // A umask may narrow the mode, never widen it.
    Umask umask(077);
    const fs::path narrow = tmp.path() / "narrow";
    make_dirs(tmp.path(), narrow);
    EXPECT_EQ(mode_of(narrow), 0700u);
}

TEST(Directory, LinkBelowTheBaseIsRefusedAndNothingOutsideIsTouched) {
    test::TempDir tmp;
    Outside outside;
    const auto before = test::tree_snapshot(outside.path());
    const fs::path base = tmp.path() / "ckpt";
    fs::create_directories(base);
    fs::create_directory_symlink(outside.path(), base / "node0");
    try {
        make_dirs(base, base / "node0" / "exec" / "l1");
        FAIL() << "a link below the base was followed";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find((base / "node0").string()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
    }
    // Deeper down, after components that are fine, the same.
    fs::create_directories(base / "node1" / "exec");
    fs::create_directory_symlink(outside.path(), base / "node1" / "exec" / "l1");
    EXPECT_THROW(make_dirs(base, base / "node1" / "exec" / "l1" / "ckpt1"), Error);
    // Not a directory: refused, naming it.
    { std::ofstream(base / "node2") << "a file"; }
    try {
        make_dirs(base, base / "node2" / "exec");
        FAIL() << "a file was taken for a directory";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not a directory"), std::string::npos) << e.what();
    }
    EXPECT_EQ(test::tree_snapshot(outside.path()), before);
}

TEST(Directory, TheConfiguredBaseMayBeALink) {
    test::TempDir tmp;
    const fs::path real = tmp.path() / "lustre" / "user";
    fs::create_directories(real);
    const fs::path scratch = tmp.path() / "scratch";
    fs::create_directory_symlink(real, scratch);
    Directory d = make_dirs(scratch, scratch / "node0" / "exec");
    write_text(File::create(d, "f"), "data");
    EXPECT_EQ(test::slurp(real / "node0" / "exec" / "f"), "data");
    // A link above the base is followed as well.
    Directory below = make_dirs(scratch / "sub", scratch / "sub" / "x");
    EXPECT_TRUE(fs::is_directory(real / "sub" / "x"));
    EXPECT_EQ(below.path(), scratch / "sub" / "x");
}

// The directory is swapped for a link to the outside after it was opened:
// creating, replacing, renaming and removing files through the handle all
// happen in the directory that was opened.
TEST(Directory, SwappedForALinkAfterOpeningRedirectsNothing) {
    test::TempDir tmp;
    Outside outside;
    fs::create_directories(outside.path() / "l1" / "ckpt1");
    outside.dir.write("l1/ckpt1/Ckpt1-Rank0.fti", "outside checkpoint\n");
    const auto before = test::tree_snapshot(outside.path());
    const fs::path base = tmp.path() / "ckpt";
    Directory d = make_dirs(base, base / "exec" / "l1" / "ckpt1");
    Directory meta = make_dirs(base, base / "exec");

    fs::rename(base / "exec", base / "moved");
    fs::create_directory_symlink(outside.path(), base / "exec");

    write_text(File::create(d, "Ckpt1-Rank0.fti.tmp"), "checkpoint");
    d.rename("Ckpt1-Rank0.fti.tmp", "Ckpt1-Rank0.fti");
    d.sync();
    atomic_write_file(meta, "ckpt1.l1.meta", "metadata");
    write_text(File::open_update(d, "dCP-Rank0.fti"), "in place");
    write_text(File::create(d, "Ckpt2-Rank0.fti.tmp"), "discarded");
    EXPECT_TRUE(d.remove("Ckpt2-Rank0.fti.tmp"));
    EXPECT_TRUE(d.remove("Ckpt1-Rank0.fti.tmp"));  // gone already: fine

    EXPECT_EQ(test::tree_snapshot(outside.path()), before);
    const fs::path moved = base / "moved" / "l1" / "ckpt1";
    EXPECT_EQ(test::slurp(moved / "Ckpt1-Rank0.fti"), "checkpoint");
    EXPECT_EQ(test::slurp(moved / "dCP-Rank0.fti"), "in place");
    EXPECT_FALSE(fs::exists(moved / "Ckpt2-Rank0.fti.tmp"));
    EXPECT_EQ(test::slurp(base / "moved" / "ckpt1.l1.meta"), "metadata");

    // Opened again by name, the swapped directory is refused.
    EXPECT_THROW(make_dirs(base, base / "exec" / "l1" / "ckpt1"), Error);
    EXPECT_EQ(test::tree_snapshot(outside.path()), before);

    // The control: by name, the same writes would have gone outside.
    write_text(File::create(base / "exec" / "l1" / "ckpt1" / "Ckpt1-Rank0.fti"), "checkpoint");
    atomic_write_file(base / "exec" / "ckpt1.l1.meta", "metadata");
    EXPECT_EQ(test::slurp(outside.path() / "l1" / "ckpt1" / "Ckpt1-Rank0.fti"), "checkpoint");
    EXPECT_EQ(test::slurp(outside.path() / "ckpt1.l1.meta"), "metadata");
}

TEST(Directory, LinksAtFileNamesInTheDirectoryAreNotFollowed) {
    test::TempDir tmp;
    Outside outside;
    const auto before = test::tree_snapshot(outside.path());
    Directory d = make_dirs(tmp.path(), tmp.path() / "ckpt1");
    fs::create_symlink(outside.path() / "Ckpt1-Rank0.fti.tmp", d.path_of("Ckpt1-Rank0.fti.tmp"));
    fs::create_symlink(outside.path() / "Ckpt1-Rank0.fti", d.path_of("dCP-Rank0.fti"));
    fs::create_symlink(outside.path() / "ckpt1.l1.meta", d.path_of("ckpt1.l1.meta"));
    write_text(File::create(d, "Ckpt1-Rank0.fti.tmp"), "new");
    EXPECT_FALSE(fs::is_symlink(d.path_of("Ckpt1-Rank0.fti.tmp")));
    EXPECT_THROW(File::open_update(d, "dCP-Rank0.fti"), Error);
    EXPECT_THROW(File::open_read(d, "dCP-Rank0.fti"), Error);
    atomic_write_file(d, "ckpt1.l1.meta", "metadata");  // the link is renamed over
    EXPECT_FALSE(fs::is_symlink(d.path_of("ckpt1.l1.meta")));
    EXPECT_EQ(test::tree_snapshot(outside.path()), before);
}

// The cleanup after a failed FTI_Init or checkpoint removes the library's
// empty directories, never a directory a link below the base leads to.
TEST(Directory, RemovingEmptyDirectoriesFollowsNoLink) {
    test::TempDir tmp;
    Outside outside;
    fs::create_directories(outside.path() / "exec" / "l1");
    const auto before = test::tree_snapshot(outside.path());
    const fs::path base = tmp.path() / "ckpt";
    fs::create_directories(base);
    fs::create_directory_symlink(outside.path(), base / "node0");
    remove_empty_dir(base, base / "node0" / "exec" / "l1");
    remove_empty_dir(base, base / "node0" / "exec");
    EXPECT_EQ(test::tree_snapshot(outside.path()), before);
    remove_empty_dir(base, base / "node0");  // a link is no directory: it stays
    EXPECT_TRUE(fs::is_symlink(base / "node0"));

    make_dirs(base, base / "node1" / "exec" / "l1");
    { std::ofstream(base / "node1" / "exec" / "kept") << "x"; }
    remove_empty_dir(base, base / "node1" / "exec" / "l1");
    remove_empty_dir(base, base / "node1" / "exec");  // not empty
    EXPECT_FALSE(fs::exists(base / "node1" / "exec" / "l1"));
    EXPECT_TRUE(fs::exists(base / "node1" / "exec" / "kept"));
    remove_empty_dir(base, base);  // never the base itself
    EXPECT_TRUE(fs::is_directory(base));
}

TEST(Directory, NamesArePlainFileNames) {
    test::TempDir tmp;
    Directory d = Directory::open(tmp.path());
    for (const char* name : {"", ".", "..", "a/b", "/etc/passwd"}) {
        EXPECT_THROW(File::create(d, name), Error) << name;
        EXPECT_THROW(d.make_child(name), Error) << name;
    }
    EXPECT_FALSE(d.remove("../x"));
    EXPECT_THROW(make_dirs(tmp.path() / "a", tmp.path() / "b"), Error);  // not below the base
}

}  // namespace
}  // namespace mlckpt::core
