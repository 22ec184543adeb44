// LD_PRELOAD library for the scaling bench (run_bench.py --scaling): counts
// a process's file-system metadata operations, which a parallel file system
// serialises on its metadata servers however few bytes they move. Counted:
// directories made and removed, files created (open with O_CREAT, creat,
// fopen for writing), renames, unlinks (unlink, unlinkat, remove), stats
// (stat, lstat, fstatat, statx, access), directory opens (opendir and open
// of a directory) and fsync of a directory. Each is counted under "shared"
// when its path lies below a directory of $MLCKPT_COUNT_SHARED, under
// "local" below one of $MLCKPT_COUNT_LOCAL (lists separated by ':'), else
// not at all.
//
// A program may split its counts into phases by calling
// mlckpt_count_phase("name"), which it finds with dlsym (a program run
// without this library just finds nothing). At exit every process writes
// "<phase> <where> <operation> <count>" lines to
// $MLCKPT_COUNT_DIR/<pid>.counts.
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum op { MKDIR, RMDIR, CREATE, RENAME, UNLINK, STAT, OPENDIR, FSYNC_DIR, OPS };
static const char* const op_names[OPS] = {"mkdir",  "rmdir", "create",  "rename",
                                          "unlink", "stat",  "opendir", "fsync_dir"};
enum where { SHARED, LOCAL, PLACES };
static const char* const place_names[PLACES] = {"shared", "local"};

#define MAX_PHASES 16
static char phase_names[MAX_PHASES][32] = {"start"};
static atomic_int phases = 1;
static atomic_int current;
static atomic_long counts[MAX_PHASES][PLACES][OPS];

void mlckpt_count_phase(const char* name) {
    int n = atomic_load(&phases);
    if (n == MAX_PHASES) return;
    snprintf(phase_names[n], sizeof phase_names[n], "%s", name);
    atomic_store(&phases, n + 1);
    atomic_store(&current, n);
}

// Whether `path` lies below one of the directories in `roots` (absolute,
// separated by ':').
static int below(const char* path, const char* roots) {
    while (roots != NULL && *roots != '\0') {
        const char* end = strchr(roots, ':');
        size_t n = end ? (size_t)(end - roots) : strlen(roots);
        size_t len = n;
        while (len > 1 && roots[len - 1] == '/') --len;
        if (len > 0 && strncmp(path, roots, len) == 0 && (path[len] == '/' || path[len] == '\0')) return 1;
        roots = end ? end + 1 : NULL;
    }
    return 0;
}

// The absolute form of `path` relative to directory descriptor `dirfd`.
static void absolute(int dirfd, const char* path, char* out, size_t size) {
    if (path == NULL) {
        out[0] = '\0';
        return;
    }
    if (path[0] == '/') {
        snprintf(out, size, "%s", path);
        return;
    }
    char base[PATH_MAX] = ".";
    if (dirfd == AT_FDCWD) {
        if (getcwd(base, sizeof base) == NULL) base[0] = '\0';
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t len = readlink(link, base, sizeof base - 1);
        base[len > 0 ? len : 0] = '\0';
    }
    snprintf(out, size, "%s/%s", base, path);
}

static void count_at(int dirfd, const char* path, enum op op) {
    char full[PATH_MAX + 256];
    absolute(dirfd, path, full, sizeof full);
    int place = below(full, getenv("MLCKPT_COUNT_SHARED"))  ? SHARED
                : below(full, getenv("MLCKPT_COUNT_LOCAL")) ? LOCAL
                                                            : -1;
    if (place >= 0) atomic_fetch_add(&counts[atomic_load(&current)][place][op], 1);
}

static void count_fd(int fd, enum op op) {
    char link[64];
    char path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(link, path, sizeof path - 1);
    if (len <= 0) return;
    path[len] = '\0';
    count_at(AT_FDCWD, path, op);
}

static int is_directory_fd(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

int mkdir(const char* p, mode_t m) {
    count_at(AT_FDCWD, p, MKDIR);
    return REAL(mkdir)(p, m);
}
int mkdirat(int d, const char* p, mode_t m) {
    count_at(d, p, MKDIR);
    return REAL(mkdirat)(d, p, m);
}
int rmdir(const char* p) {
    count_at(AT_FDCWD, p, RMDIR);
    return REAL(rmdir)(p);
}
int rename(const char* a, const char* b) {
    count_at(AT_FDCWD, b, RENAME);
    return REAL(rename)(a, b);
}
int renameat(int da, const char* a, int db, const char* b) {
    count_at(db, b, RENAME);
    return REAL(renameat)(da, a, db, b);
}
int renameat2(int da, const char* a, int db, const char* b, unsigned f) {
    count_at(db, b, RENAME);
    return REAL(renameat2)(da, a, db, b, f);
}
int unlink(const char* p) {
    count_at(AT_FDCWD, p, UNLINK);
    return REAL(unlink)(p);
}
int unlinkat(int d, const char* p, int f) {
    count_at(d, p, (f & AT_REMOVEDIR) ? RMDIR : UNLINK);
    return REAL(unlinkat)(d, p, f);
}
int stat(const char* p, struct stat* s) {
    count_at(AT_FDCWD, p, STAT);
    return REAL(stat)(p, s);
}
int lstat(const char* p, struct stat* s) {
    count_at(AT_FDCWD, p, STAT);
    return REAL(lstat)(p, s);
}
int fstatat(int d, const char* p, struct stat* s, int f) {
    if (*p != '\0') count_at(d, p, STAT);  // "" with AT_EMPTY_PATH: an fstat
    return REAL(fstatat)(d, p, s, f);
}
int statx(int d, const char* p, int f, unsigned m, struct statx* s) {
    if (*p != '\0') count_at(d, p, STAT);  // "" with AT_EMPTY_PATH: an fstat
    return REAL(statx)(d, p, f, m, s);
}
int access(const char* p, int m) {
    count_at(AT_FDCWD, p, STAT);
    return REAL(access)(p, m);
}
DIR* opendir(const char* p) {
    count_at(AT_FDCWD, p, OPENDIR);
    return REAL(opendir)(p);
}

// open and its relatives: a creation with O_CREAT, a directory open with O_DIRECTORY.
static void count_open(int dirfd, const char* p, int flags) {
    if (flags & O_CREAT) count_at(dirfd, p, CREATE);
    if (flags & O_DIRECTORY) count_at(dirfd, p, OPENDIR);
}
#define MODE_ARG(flags, mode)                  \
    do {                                       \
        if ((flags) & (O_CREAT | O_TMPFILE)) { \
            va_list ap;                        \
            va_start(ap, flags);               \
            mode = va_arg(ap, mode_t);         \
            va_end(ap);                        \
        }                                      \
    } while (0)
int open(const char* p, int flags, ...) {
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    count_open(AT_FDCWD, p, flags);
    return REAL(open)(p, flags, mode);
}
int open64(const char* p, int flags, ...) {
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    count_open(AT_FDCWD, p, flags);
    return REAL(open64)(p, flags, mode);
}
int openat(int d, const char* p, int flags, ...) {
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    count_open(d, p, flags);
    return REAL(openat)(d, p, flags, mode);
}
int openat64(int d, const char* p, int flags, ...) {
    mode_t mode = 0;
    MODE_ARG(flags, mode);
    count_open(d, p, flags);
    return REAL(openat64)(d, p, flags, mode);
}
int creat(const char* p, mode_t m) {
    count_at(AT_FDCWD, p, CREATE);
    return REAL(creat)(p, m);
}
// stdio's and remove's own calls of open and unlink stay inside libc.
FILE* fopen(const char* p, const char* mode) {
    if (strpbrk(mode, "wa") != NULL) count_at(AT_FDCWD, p, CREATE);
    return REAL(fopen)(p, mode);
}
FILE* fopen64(const char* p, const char* mode) {
    if (strpbrk(mode, "wa") != NULL) count_at(AT_FDCWD, p, CREATE);
    return REAL(fopen64)(p, mode);
}
int remove(const char* p) {
    struct stat st;
    int directory = REAL(lstat)(p, &st) == 0 && S_ISDIR(st.st_mode);
    count_at(AT_FDCWD, p, directory ? RMDIR : UNLINK);
    return REAL(remove)(p);
}
int fsync(int fd) {
    if (is_directory_fd(fd)) count_fd(fd, FSYNC_DIR);
    return REAL(fsync)(fd);
}
int fdatasync(int fd) {
    if (is_directory_fd(fd)) count_fd(fd, FSYNC_DIR);
    return REAL(fdatasync)(fd);
}

__attribute__((destructor)) static void write_counts(void) {
    const char* dir = getenv("MLCKPT_COUNT_DIR");
    if (dir == NULL) return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%ld.counts", dir, (long)getpid());
    int fd = REAL(open)(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    FILE* out = fdopen(fd, "w");
    int n = atomic_load(&phases);
    for (int ph = 0; ph < n; ++ph) {
        for (int w = 0; w < PLACES; ++w) {
            for (int o = 0; o < OPS; ++o) {
                long c = atomic_load(&counts[ph][w][o]);
                if (c != 0) fprintf(out, "%s %s %s %ld\n", phase_names[ph], place_names[w], op_names[o], c);
            }
        }
    }
    fclose(out);
}
