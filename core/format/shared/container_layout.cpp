#include "format/shared/container_layout.hpp"

#include <algorithm>
#include <cstring>

#include "common/byte_order.hpp"
#include "common/error.hpp"
#include "common/file_name.hpp"

namespace mlckpt::core::container {

namespace {

constexpr char kId[4] = {'s', 'i', 'o', 'n'};
constexpr std::uint64_t kFixedMeta1 = 1076;  // up to the task arrays
constexpr std::uint64_t kMappingHeader = 4;
constexpr std::uint64_t kMappingEntry = 8;
// No size field may come near overflowing the offset arithmetic.
constexpr std::int64_t kLargestSize = std::int64_t{1} << 56;

class Writer {
  public:
    explicit Writer(std::uint64_t size) : out_(static_cast<std::size_t>(size)) {}
    template <typename T>
    void put(T v) {
        store_le<T>(out_.data() + pos_, v);
        pos_ += sizeof(T);
    }
    void put_bytes(const void* p, std::size_t n) {
        std::memcpy(out_.data() + pos_, p, n);
        pos_ += n;
    }
    void skip(std::size_t n) { pos_ += n; }
    std::vector<std::byte> done() { return std::move(out_); }

  private:
    std::vector<std::byte> out_;
    std::size_t pos_ = 0;
};

class Reader {
  public:
    Reader(std::vector<std::byte> bytes, bool big_endian) : in_(std::move(bytes)), big_(big_endian) {}
    template <typename T>
    T get() {
        T v = load<T>(in_.data() + pos_, big_);
        pos_ += sizeof(T);
        return v;
    }
    const std::byte* at() const { return in_.data() + pos_; }
    void skip(std::size_t n) { pos_ += n; }

  private:
    std::vector<std::byte> in_;
    bool big_;
    std::size_t pos_ = 0;
};

std::vector<std::byte> read_bytes(const File& file, std::uint64_t offset, std::uint64_t n) {
    std::vector<std::byte> out(static_cast<std::size_t>(n));
    file.read_exact_at(out, offset);
    return out;
}

[[noreturn]] void bad(const File& file, const std::string& what, Damage damage = Damage::structure) {
    fail(damage, "container '" + file.path().string() + "': " + what);
}

void check_size(const File& file, std::uint64_t needed, std::uint64_t size, const std::string& what) {
    if (size < needed) {
        bad(file,
            "has " + std::to_string(size) + " bytes, " + what + " needs " + std::to_string(needed) + " (truncated)",
            Damage::size);
    }
}

// META1 up to the task arrays, checked; the arrays are left empty and their
// length is returned in `ntasks`, the first metadata block's size checked.
Header read_fixed_header(const File& file, std::uint64_t file_size, std::size_t& ntasks_out) {
    check_size(file, meta1_bytes(0), file_size, "the first metadata block");
    std::vector<std::byte> fixed = read_bytes(file, 0, kFixedMeta1);
    if (std::memcmp(fixed.data(), kId, 4) != 0) bad(file, "does not start with 'sion'");
    Header h;
    if (load<std::int32_t>(fixed.data() + 4) == 1) {
        h.big_endian = false;
    } else if (load<std::int32_t>(fixed.data() + 4, true) == 1) {
        h.big_endian = true;
    } else {
        bad(file, "its endianness field is neither 1 little-endian nor 1 big-endian");
    }
    Reader r(std::move(fixed), h.big_endian);
    r.skip(8);
    h.version = r.get<std::int32_t>();
    h.patchlevel = r.get<std::int32_t>();
    h.fileformat_version = r.get<std::int32_t>();
    h.blocksize = r.get<std::int32_t>();
    auto ntasks = r.get<std::int32_t>();
    h.nfiles = r.get<std::int32_t>();
    h.filenumber = r.get<std::int32_t>();
    h.flag1 = r.get<std::int64_t>();
    h.flag2 = r.get<std::int64_t>();
    const char* prefix = reinterpret_cast<const char*>(r.at());
    h.prefix.assign(prefix, strnlen(prefix, kPrefixBytes));
    // A name, never a path: the other files of the container are found
    // beside this one by it.
    if (!h.prefix.empty() && !is_file_name(h.prefix)) {
        bad(file,
            "its file name prefix is not a file name ('.', '..', a '/' or a control byte); "
            "allowed: a name of printable characters");
    }
    if (h.blocksize <= 0) bad(file, "blocksize " + std::to_string(h.blocksize) + " is not positive");
    if (h.nfiles <= 0) bad(file, "nfiles " + std::to_string(h.nfiles) + " is not positive");
    if (h.filenumber < 0 || h.filenumber >= h.nfiles) {
        bad(file, "filenumber " + std::to_string(h.filenumber) + " is not below nfiles " + std::to_string(h.nfiles));
    }
    if (ntasks < 0) bad(file, "ntasks " + std::to_string(ntasks) + " is negative");
    ntasks_out = static_cast<std::size_t>(ntasks);
    check_size(file, meta1_bytes(ntasks_out), file_size,
               "a first metadata block of " + std::to_string(ntasks) + " tasks");
    return h;
}

void check_requested_size(const File& file, std::size_t task, std::int64_t size) {
    if (size < 0 || size > kLargestSize) {
        bad(file, "the requested chunk size of task " + std::to_string(task) + " (" + std::to_string(size) +
                      ") is out of range");
    }
}

void check_maxchunks(const File& file, std::int32_t maxchunks) {
    if (maxchunks < 0) bad(file, "maxchunks " + std::to_string(maxchunks) + " is negative");
}

Header read_header(const File& file, std::uint64_t file_size) {
    std::size_t n = 0;
    Header h = read_fixed_header(file, file_size, n);
    Reader tasks(read_bytes(file, kFixedMeta1, meta1_bytes(n) - kFixedMeta1), h.big_endian);
    for (std::size_t i = 0; i < n; ++i) h.global_ranks.push_back(tasks.get<std::int64_t>());
    for (std::size_t i = 0; i < n; ++i) {
        h.sizes.push_back(tasks.get<std::int64_t>());
        check_requested_size(file, i, h.sizes.back());
    }
    h.maxchunks = tasks.get<std::int32_t>();
    h.start_of_varheader = tasks.get<std::int64_t>();
    check_maxchunks(file, h.maxchunks);
    return h;
}

Tail read_tail(const File& file, const Header& h, const Geometry& geo) {
    const std::size_t n = h.ntasks();
    Reader r(read_bytes(file, geo.meta2_start, meta2_bytes(n, h.maxchunks)), h.big_endian);
    Tail t;
    for (std::size_t i = 0; i < n; ++i) {
        t.chunks.push_back(r.get<std::int64_t>());
        if (t.chunks.back() < 0 || t.chunks.back() > h.maxchunks) {
            bad(file, "task " + std::to_string(i) + " has " + std::to_string(t.chunks.back()) +
                          " chunks; allowed 0 to maxchunks (" + std::to_string(h.maxchunks) + ")");
        }
    }
    for (std::int32_t c = 0; c < h.maxchunks; ++c) {
        std::vector<std::int64_t> row;
        for (std::size_t i = 0; i < n; ++i) {
            auto bytes = r.get<std::int64_t>();
            bool used = c < t.chunks[i];
            std::string where = "chunk " + std::to_string(c) + " of task " + std::to_string(i);
            if (!used && bytes != -1) bad(file, where + " is unused but its size is " + std::to_string(bytes));
            if (used && (bytes < 0 || static_cast<std::uint64_t>(bytes) > geo.space[i])) {
                bad(file, where + " holds " + std::to_string(bytes) + " bytes; allowed 0 to its space of " +
                              std::to_string(geo.space[i]));
            }
            row.push_back(bytes);
        }
        t.chunk_bytes.push_back(std::move(row));
    }
    return t;
}

std::vector<MapEntry> read_mapping(const File& file, const Header& h, std::uint64_t at, std::uint64_t file_size) {
    check_size(file, at + kMappingHeader, file_size, "the task mapping");
    auto size = load<std::int32_t>(read_bytes(file, at, kMappingHeader).data(), h.big_endian);
    if (size < 0) bad(file, "the task mapping has a negative size");
    auto entries = static_cast<std::uint64_t>(size);
    check_size(file, at + kMappingHeader + kMappingEntry * entries, file_size,
               "a task mapping of " + std::to_string(size) + " ranks");
    Reader r(read_bytes(file, at + kMappingHeader, kMappingEntry * entries), h.big_endian);
    std::vector<MapEntry> map;
    for (std::uint64_t g = 0; g < entries; ++g) {
        MapEntry e{r.get<std::int32_t>(), r.get<std::int32_t>()};
        if (e.file < 0 || e.file >= h.nfiles || e.local_rank < 0) {
            bad(file, "the task mapping of rank " + std::to_string(g) + " (file " + std::to_string(e.file) +
                          ", local rank " + std::to_string(e.local_rank) + ") is out of range");
        }
        bool local_ok =
            e.file != 0 || (static_cast<std::size_t>(e.local_rank) < h.ntasks() &&
                            h.global_ranks[static_cast<std::size_t>(e.local_rank)] == static_cast<std::int64_t>(g));
        if (!local_ok) bad(file, "the task mapping of rank " + std::to_string(g) + " disagrees with the task list");
        map.push_back(e);
    }
    return map;
}

}  // namespace

std::uint64_t align_up(std::uint64_t value, std::uint64_t block) {
    return (value + block - 1) / block * block;
}

std::uint64_t meta1_bytes(std::size_t ntasks) {
    return kFixedMeta1 + 16 * static_cast<std::uint64_t>(ntasks) + 12;
}

std::uint64_t meta2_bytes(std::size_t ntasks, std::int64_t maxchunks) {
    return 8 * static_cast<std::uint64_t>(ntasks) * (1 + static_cast<std::uint64_t>(maxchunks));
}

Geometry geometry(const Header& h) {
    Geometry g;
    const auto block = static_cast<std::uint64_t>(h.blocksize);
    g.data_start = align_up(meta1_bytes(h.ntasks()), block);
    for (std::int64_t size : h.sizes) {
        g.in_block.push_back(g.globalskip);
        g.space.push_back(align_up(static_cast<std::uint64_t>(size), block));
        g.globalskip += g.space.back();
    }
    g.meta2_start = g.data_start + static_cast<std::uint64_t>(h.maxchunks) * g.globalskip;
    return g;
}

int first_rank_of_file(int file, int ranks, int files) {
    return static_cast<int>(static_cast<std::int64_t>(file) * ranks / files);
}

int file_of_rank(int rank, int ranks, int files) {
    int f = static_cast<int>((static_cast<std::int64_t>(rank) * files + files - 1) / ranks);
    while (first_rank_of_file(f, ranks, files) > rank) --f;
    while (f + 1 < files && first_rank_of_file(f + 1, ranks, files) <= rank) ++f;
    return f;
}

Header plan_file(int file, int files, const std::vector<std::uint64_t>& sizes, std::int32_t blocksize,
                 const std::string& prefix) {
    const int ranks = static_cast<int>(sizes.size());
    const int first = first_rank_of_file(file, ranks, files);
    const int end = first_rank_of_file(file + 1, ranks, files);
    return plan_file_of_tasks(file, files, first,
                              std::span<const std::uint64_t>(sizes).subspan(static_cast<std::size_t>(first),
                                                                            static_cast<std::size_t>(end - first)),
                              blocksize, prefix);
}

Header plan_file_of_tasks(int file, int files, int first_rank, std::span<const std::uint64_t> task_sizes,
                          std::int32_t blocksize, const std::string& prefix) {
    Header h;
    h.blocksize = blocksize;
    h.nfiles = files;
    h.filenumber = file;
    h.prefix = prefix;
    for (std::size_t i = 0; i < task_sizes.size(); ++i) {
        h.global_ranks.push_back(first_rank + static_cast<std::int64_t>(i));
        h.sizes.push_back(static_cast<std::int64_t>(task_sizes[i]));
        if (h.sizes.back() > 0) h.maxchunks = 1;
    }
    h.start_of_varheader = static_cast<std::int64_t>(geometry(h).meta2_start);
    return h;
}

Tail tail_for(const Header& h, const std::vector<std::uint64_t>& written) {
    Tail t;
    std::vector<std::int64_t> row;
    for (std::size_t i = 0; i < h.ntasks(); ++i) {
        bool has_chunk = h.sizes[i] > 0;
        t.chunks.push_back(has_chunk ? 1 : 0);
        row.push_back(has_chunk ? static_cast<std::int64_t>(written[i]) : -1);
    }
    if (h.maxchunks > 0) t.chunk_bytes.push_back(std::move(row));
    return t;
}

std::vector<std::byte> encode_header(const Header& h) {
    if (h.prefix.size() >= kPrefixBytes) fail(ErrorKind::usage, "container file name prefix is too long");
    Writer w(meta1_bytes(h.ntasks()));
    w.put_bytes(kId, 4);
    w.put<std::int32_t>(1);
    w.put<std::int32_t>(h.version);
    w.put<std::int32_t>(h.patchlevel);
    w.put<std::int32_t>(h.fileformat_version);
    w.put<std::int32_t>(h.blocksize);
    w.put<std::int32_t>(static_cast<std::int32_t>(h.ntasks()));
    w.put<std::int32_t>(h.nfiles);
    w.put<std::int32_t>(h.filenumber);
    w.put<std::int64_t>(h.flag1);
    w.put<std::int64_t>(h.flag2);
    w.put_bytes(h.prefix.data(), h.prefix.size());
    w.skip(kPrefixBytes - h.prefix.size());  // NUL padding
    for (std::int64_t r : h.global_ranks) w.put<std::int64_t>(r);
    for (std::int64_t s : h.sizes) w.put<std::int64_t>(s);
    w.put<std::int32_t>(h.maxchunks);
    w.put<std::int64_t>(h.start_of_varheader);
    return w.done();
}

std::vector<std::byte> encode_tail(const Tail& t) {
    Writer w(meta2_bytes(t.chunks.size(), static_cast<std::int64_t>(t.chunk_bytes.size())));
    for (std::int64_t c : t.chunks) w.put<std::int64_t>(c);
    for (const auto& row : t.chunk_bytes) {
        for (std::int64_t b : row) w.put<std::int64_t>(b);
    }
    return w.done();
}

std::vector<std::byte> encode_mapping(int ranks, int files) {
    Writer w(kMappingHeader + kMappingEntry * static_cast<std::uint64_t>(ranks));
    w.put<std::int32_t>(ranks);
    for (int r = 0; r < ranks; ++r) {
        int f = file_of_rank(r, ranks, files);
        w.put<std::int32_t>(f);
        w.put<std::int32_t>(r - first_rank_of_file(f, ranks, files));
    }
    return w.done();
}

int ContainerFile::task_of(std::int64_t rank) const {
    auto it = std::find(header.global_ranks.begin(), header.global_ranks.end(), rank);
    return it == header.global_ranks.end() ? -1 : static_cast<int>(it - header.global_ranks.begin());
}

Extents ContainerFile::extents_of(std::size_t task) const {
    Extents out;
    for (std::int64_t c = 0; c < tail.chunks[task]; ++c) {
        auto bytes = static_cast<std::uint64_t>(tail.chunk_bytes[static_cast<std::size_t>(c)][task]);
        out.push_back({geo.chunk_offset(task, static_cast<std::uint64_t>(c)), bytes});
    }
    return out;
}

bool is_container(const File& file) {
    if (file.size() < 4) return false;
    return std::memcmp(read_bytes(file, 0, 4).data(), kId, 4) == 0;
}

std::optional<Extents> read_task_extents(const File& file, std::int64_t rank, std::uint64_t offset,
                                         std::uint64_t size) {
    const std::uint64_t file_size = file.size();
    std::size_t n = 0;
    const Header h = read_fixed_header(file, file_size, n);
    const bool big = h.big_endian;
    const auto int64_at = [&](std::uint64_t pos) { return load<std::int64_t>(read_bytes(file, pos, 8).data(), big); };
    if (n == 0) return std::nullopt;
    // The tasks of an mlckpt container are consecutive ranks. A first rank
    // that is negative or above this one is not such a container (and the
    // subtraction below must not overflow): read_container decides.
    const std::int64_t first = int64_at(kFixedMeta1);
    if (first < 0 || first > rank) return std::nullopt;
    const std::int64_t task = rank - first;
    if (static_cast<std::uint64_t>(task) >= n) return std::nullopt;
    const auto i = static_cast<std::uint64_t>(task);
    if (int64_at(kFixedMeta1 + 8 * i) != rank) return std::nullopt;
    const std::int64_t requested = int64_at(kFixedMeta1 + 8 * (n + i));
    check_requested_size(file, static_cast<std::size_t>(i), requested);
    Reader tail(read_bytes(file, kFixedMeta1 + 16 * n, 12), big);
    const auto maxchunks = tail.get<std::int32_t>();
    const auto meta2_start = tail.get<std::int64_t>();
    check_maxchunks(file, maxchunks);
    if (maxchunks > 1) return std::nullopt;  // not written by mlckpt: read_container decides
    const std::uint64_t data_start = align_up(meta1_bytes(n), static_cast<std::uint64_t>(h.blocksize));
    if (meta2_start < 0 || static_cast<std::uint64_t>(meta2_start) < data_start) {
        bad(file, "start_of_varheader " + std::to_string(meta2_start) + " lies before the data, which starts at " +
                      std::to_string(data_start));
    }
    const auto meta2 = static_cast<std::uint64_t>(meta2_start);
    check_size(file, meta2 + meta2_bytes(n, maxchunks), file_size,
               "the second metadata block at " + std::to_string(meta2));
    const std::int64_t chunks = int64_at(meta2 + 8 * i);
    const std::int64_t written = chunks == 1 && maxchunks == 1 ? int64_at(meta2 + 8 * (n + i)) : 0;
    const bool placed = offset >= data_start && (offset - data_start) % static_cast<std::uint64_t>(h.blocksize) == 0 &&
                        offset <= meta2 && size <= meta2 - offset;
    if (chunks != (size > 0 ? 1 : 0) || static_cast<std::uint64_t>(written) != size ||
        static_cast<std::uint64_t>(requested) < size || !placed) {
        bad(file, "holds " + std::to_string(written) + " bytes in " + std::to_string(chunks) + " chunks of rank " +
                      std::to_string(rank) + " (" + std::to_string(requested) + " requested); its metadata says " +
                      std::to_string(size) + " bytes at " + std::to_string(offset));
    }
    return size > 0 ? Extents{{offset, size}} : Extents{};
}

ContainerFile read_container(const File& file) {
    ContainerFile c;
    c.file_size = file.size();
    c.header = read_header(file, c.file_size);
    const Header& h = c.header;
    // Chunk rows are read for every task: without a task, none can exist.
    if (h.ntasks() == 0 && h.maxchunks > 0) {
        bad(file, "maxchunks " + std::to_string(h.maxchunks) + " with no task; allowed: 0 without tasks");
    }
    // Every block lies before META2: bounding the sizes by the file first
    // keeps a corrupt field from overflowing the offset arithmetic.
    if (h.maxchunks > 0) {
        std::uint64_t globalskip = 0;
        for (std::int64_t size : h.sizes) {
            globalskip += align_up(static_cast<std::uint64_t>(size), static_cast<std::uint64_t>(h.blocksize));
            if (globalskip > c.file_size) {
                bad(file,
                    "its requested chunk sizes do not fit in its " + std::to_string(c.file_size) +
                        " bytes (truncated or corrupt)",
                    Damage::size);
            }
        }
        if (globalskip > 0 && static_cast<std::uint64_t>(h.maxchunks) > c.file_size / globalskip) {
            bad(file,
                "maxchunks " + std::to_string(h.maxchunks) + " blocks of " + std::to_string(globalskip) +
                    " bytes do not fit in its " + std::to_string(c.file_size) + " bytes (truncated or corrupt)",
                Damage::size);
        }
    }
    c.geo = geometry(h);
    if (h.start_of_varheader < 0 || static_cast<std::uint64_t>(h.start_of_varheader) != c.geo.meta2_start) {
        bad(file, "start_of_varheader is " + std::to_string(h.start_of_varheader) + ", the layout puts META2 at " +
                      std::to_string(c.geo.meta2_start) + " (data from " + std::to_string(c.geo.data_start) + ", " +
                      std::to_string(h.maxchunks) + " blocks of " + std::to_string(c.geo.globalskip) + " bytes)");
    }
    std::uint64_t end = c.geo.meta2_start + meta2_bytes(h.ntasks(), h.maxchunks);
    check_size(file, end, c.file_size, "the second metadata block at " + std::to_string(c.geo.meta2_start));
    c.tail = read_tail(file, h, c.geo);
    if (h.nfiles > 1 && h.filenumber == 0) c.mapping = read_mapping(file, h, end, c.file_size);
    return c;
}

}  // namespace mlckpt::core::container
