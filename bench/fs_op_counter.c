// LD_PRELOAD library for the scaling bench (run_bench.py --scaling) and the
// scaling tests: counts a process's file-system metadata operations, which a
// parallel file system serialises on its metadata servers however few bytes
// they move. Counted: directories made and removed, files created (open with
// O_CREAT, creat, fopen for writing), renames, unlinks (unlink, unlinkat,
// remove), stats (stat, lstat, fstatat, statx, access), directory opens
// (opendir and open of a directory) and fsync of a directory. Each is counted
// under "shared" when its path lies below a directory of $MLCKPT_COUNT_SHARED,
// under "local" below one of $MLCKPT_COUNT_LOCAL (lists separated by ':'),
// else not at all. Paths and those directories are compared once resolved
// (symbolic links, "..": a temporary folder reached through a link counts).
//
// A program splits its counts into phases by calling
// mlckpt_count_phase("name"), which it finds with dlsym (a program run
// without this library finds nothing, and must say so when asked to count).
// The phase is also published in $MLCKPT_COUNT_DIR/phase, a page shared by
// the processes of the run. Every operation is counted twice: under the
// process's own phase, and under the phase last published by any process.
// A process that marked one phase at most (a head: it marks "init" and
// never leaves FTI_Init) is a follower, and reports the second count: its
// work lands in the phase the application is in; any other process reports
// its own. mlckpt_count_sample() (after each checkpoint) asks the processes
// that have marked one phase at most to record what they hold (heap in use,
// resident set, open descriptors) at their next operation.
//
// At exit every process writes $MLCKPT_COUNT_DIR/<pid>.counts: a first line
// "loaded <pid> <role>" (app or follower, above), a line
// "phase <name>" per phase it counted in or entered, "<phase> <where>
// <operation> <count>" lines, its "peak_rss_bytes <n>", and a follower's
// "sample <n> <heap bytes> <resident bytes> <descriptors>" lines. A run whose
// processes left no such file did not load the counter: its counts are none.
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

enum op { MKDIR, RMDIR, CREATE, RENAME, UNLINK, STAT, OPENDIR, FSYNC_DIR, OPS };
static const char* const op_names[OPS] = {"mkdir",  "rmdir", "create",  "rename",
                                          "unlink", "stat",  "opendir", "fsync_dir"};
enum where { SHARED, LOCAL, PLACES };
static const char* const place_names[PLACES] = {"shared", "local"};

#define MAX_PHASES 16
#define MAX_SAMPLES 4096

// The page the processes of a run share: the phases by index (the first,
// "start", before any mark), the application's current one, and the number
// of samples asked for.
struct shared_phases {
    atomic_flag lock;
    atomic_int count;
    atomic_int current;
    atomic_int samples;
    char names[MAX_PHASES][32];
};
static struct shared_phases local_phases = {ATOMIC_FLAG_INIT, 1, 0, 0, {"start"}};
static struct shared_phases* phases = &local_phases;

static atomic_int marks;      // the phases this process marked
static atomic_int own_phase;  // the phase this process marked last
// By own phase [0] and by the published phase [1]: whether the process
// entered the phase (marked it, or counted in it), and its counts.
static atomic_int entered[2][MAX_PHASES];
static atomic_long counts[2][MAX_PHASES][PLACES][OPS];

struct sample {
    long heap, rss, descriptors;
};
static struct sample samples[MAX_SAMPLES];
static atomic_int samples_taken;

#define MAX_ROOTS 8
static char roots[PLACES][MAX_ROOTS][PATH_MAX];
static int root_count[PLACES];

static int find_or_add_phase(const char* name) {
    while (atomic_flag_test_and_set(&phases->lock)) {
    }
    int n = atomic_load(&phases->count);
    int found = -1;
    for (int i = 0; i < n && found < 0; ++i) {
        if (strncmp(phases->names[i], name, sizeof phases->names[i] - 1) == 0) found = i;
    }
    if (found < 0 && n < MAX_PHASES) {
        snprintf(phases->names[n], sizeof phases->names[n], "%s", name);
        atomic_store(&phases->count, n + 1);
        found = n;
    }
    atomic_flag_clear(&phases->lock);
    return found;
}

void mlckpt_count_phase(const char* name) {
    int index = find_or_add_phase(name);
    if (index < 0) return;
    atomic_fetch_add(&marks, 1);
    atomic_store(&own_phase, index);
    atomic_store(&entered[0][index], 1);
    atomic_store(&phases->current, index);
}

void mlckpt_count_sample(void) {
    atomic_fetch_add(&phases->samples, 1);
}

static int follower(void) {
    return atomic_load(&marks) <= 1;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static long open_descriptors(void) {
    DIR* d = REAL(opendir)("/proc/self/fd");
    if (d == NULL) return -1;
    long n = 0;
    while (readdir(d) != NULL) ++n;
    closedir(d);
    return n - 3;  // ".", ".." and the directory's own descriptor
}

static long resident_bytes(void) {
    long pages[2] = {0, 0};
    FILE* f = REAL(fopen)("/proc/self/statm", "r");
    if (f == NULL) return -1;
    if (fscanf(f, "%ld %ld", &pages[0], &pages[1]) != 2) pages[1] = -1;
    fclose(f);
    return pages[1] * sysconf(_SC_PAGESIZE);
}

// A process that may be a follower records what it holds once per sample
// the application asked for since its last.
static void sample_if_asked(void) {
    if (!follower()) return;
    int asked = atomic_load(&phases->samples);
    int taken = atomic_load(&samples_taken);
    if (asked <= taken || taken >= MAX_SAMPLES) return;
    if (!atomic_compare_exchange_strong(&samples_taken, &taken, taken + 1)) return;
    const struct mallinfo2 info = mallinfo2();
    samples[taken].heap = (long)(info.uordblks + info.hblkhd);
    samples[taken].rss = resident_bytes();
    samples[taken].descriptors = open_descriptors();
}

// `path` resolved: the whole of it when it exists, else its directory (a
// file about to be created, a name about to be removed).
static void resolve(const char* path, char* out, size_t size) {
    char buf[PATH_MAX];
    if (realpath(path, buf) != NULL) {
        snprintf(out, size, "%s", buf);
        return;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char* slash = strrchr(dir, '/');
    if (slash == NULL) {
        snprintf(out, size, "%s", path);
        return;
    }
    const char* name = path + (slash - dir) + 1;
    *slash = '\0';
    if (realpath(dir[0] ? dir : "/", buf) != NULL) {
        snprintf(out, size, "%s/%s", strcmp(buf, "/") == 0 ? "" : buf, name);
    } else {
        snprintf(out, size, "%s", path);
    }
}

// The resolved directories of `list` (separated by ':') as the roots of `place`.
static void load_roots(int place, const char* list) {
    while (list != NULL && *list != '\0' && root_count[place] < MAX_ROOTS) {
        const char* end = strchr(list, ':');
        size_t n = end ? (size_t)(end - list) : strlen(list);
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", (int)n, list);
        if (n > 0) resolve(dir, roots[place][root_count[place]++], PATH_MAX);
        list = end ? end + 1 : NULL;
    }
}

// Whether resolved `path` lies below one of the roots of `place`.
static int below(const char* path, int place) {
    for (int i = 0; i < root_count[place]; ++i) {
        const char* root = roots[place][i];
        size_t len = strlen(root);
        while (len > 1 && root[len - 1] == '/') --len;
        if (strncmp(path, root, len) == 0 && (path[len] == '/' || path[len] == '\0')) return 1;
    }
    return 0;
}

// The shared page, made by the first process of the run to get there.
static void map_shared_phases(const char* dir) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/phase", dir);
    int fd = REAL(open)(path, O_RDWR | O_CREAT, 0644);
    if (fd < 0) return;
    // Only the creator's ftruncate grows the file; the page of zeros is a
    // valid table once its "start" is written, which everyone may do.
    if (ftruncate(fd, sizeof(struct shared_phases)) == 0) {
        void* page = mmap(NULL, sizeof(struct shared_phases), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (page != MAP_FAILED) {
            phases = page;
            while (atomic_flag_test_and_set(&phases->lock)) {
            }
            if (atomic_load(&phases->count) == 0) {
                snprintf(phases->names[0], sizeof phases->names[0], "start");
                atomic_store(&phases->count, 1);
            }
            atomic_flag_clear(&phases->lock);
        }
    }
    close(fd);
}

__attribute__((constructor)) static void start_counting(void) {
    load_roots(SHARED, getenv("MLCKPT_COUNT_SHARED"));
    load_roots(LOCAL, getenv("MLCKPT_COUNT_LOCAL"));
    const char* dir = getenv("MLCKPT_COUNT_DIR");
    if (dir != NULL) map_shared_phases(dir);
}

// The absolute form of `path` relative to directory descriptor `dirfd`.
static void absolute(int dirfd, const char* path, char* out, size_t size) {
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
    sample_if_asked();
    if (path == NULL) return;
    char full[PATH_MAX + 256];
    char resolved[PATH_MAX + 256];
    absolute(dirfd, path, full, sizeof full);
    resolve(full, resolved, sizeof resolved);
    int place = below(resolved, SHARED) ? SHARED : below(resolved, LOCAL) ? LOCAL : -1;
    if (place < 0) return;
    const int by[2] = {atomic_load(&own_phase), atomic_load(&phases->current)};
    for (int k = 0; k < 2; ++k) {
        atomic_store(&entered[k][by[k]], 1);
        atomic_fetch_add(&counts[k][by[k]][place][op], 1);
    }
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
    const int k = follower() ? 1 : 0;
    fprintf(out, "loaded %ld %s\n", (long)getpid(), k ? "follower" : "app");
    int n = atomic_load(&phases->count);
    for (int ph = 0; ph < n; ++ph) {
        if (atomic_load(&entered[k][ph])) fprintf(out, "phase %s\n", phases->names[ph]);
    }
    for (int ph = 0; ph < n; ++ph) {
        for (int w = 0; w < PLACES; ++w) {
            for (int o = 0; o < OPS; ++o) {
                long c = atomic_load(&counts[k][ph][w][o]);
                if (c != 0) fprintf(out, "%s %s %s %ld\n", phases->names[ph], place_names[w], op_names[o], c);
            }
        }
    }
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) == 0) fprintf(out, "peak_rss_bytes %ld\n", usage.ru_maxrss * 1024L);
    int taken = k ? atomic_load(&samples_taken) : 0;
    for (int i = 0; i < taken; ++i) {
        fprintf(out, "sample %d %ld %ld %ld\n", i + 1, samples[i].heap, samples[i].rss, samples[i].descriptors);
    }
    fclose(out);
}
