// Compression of checkpoint data (issue: compressed checkpoints): for each
// data set, the ratio and the speed per core of every codec, beside memcpy
// and the raw durable write and read of the same bytes to --dir, measured in
// the same run; then a rank's real POSIX checkpoint file written and read
// back through the library's writer and reader, compressed or not, and its
// HDF5 file (ckpt_io = 5) with and without HDF5's filters. Prints
// one JSON object (run_bench.py --compression keeps it in bench/results).
//
//   compression_bench --dir DIR [--mib 64] [--repeat 3]
//
// Data sets (each --mib MiB of one variable):
//   heat-<i>   the heat-distribution example's field (1024 x 1024 doubles,
//              hot top boundary, Jacobi steps) after i iterations, repeated;
//   turbulence a turbulence-like field: Fourier modes with a k^(-5/3)
//              energy spectrum and random phases;
//   integers   int32 cell indices in increasing order with small gaps;
//   random     random bytes.
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "baselines.hpp"
#include "command_line.hpp"
#include "compress/block_codec.hpp"
#include "compress/packed_frame.hpp"
#include "format/hdf5/hdf5_format.hpp"
#include "format/hdf5/hdf5_library.hpp"
#include "format/posix/posix_format.hpp"
#include "io/file.hpp"

namespace {

using namespace mlckpt;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

struct DataSet {
    std::string name;
    std::uint8_t unit;  // element size
    std::vector<std::byte> bytes;
};

// `field` repeated to `bytes`.
std::vector<std::byte> repeated(const std::vector<double>& field, std::size_t bytes) {
    std::vector<std::byte> out(bytes);
    const std::size_t piece = field.size() * sizeof(double);
    for (std::size_t at = 0; at < bytes; at += piece) {
        std::memcpy(out.data() + at, field.data(), std::min(piece, bytes - at));
    }
    return out;
}

std::vector<DataSet> data_sets(std::size_t bytes) {
    std::vector<DataSet> sets;
    constexpr int n = 1024;
    std::vector<double> h(static_cast<std::size_t>(n) * n, 0.0);
    std::vector<double> g(h.size(), 0.0);
    int done = 0;
    for (int iterations : {100, 1000, 10000}) {
        for (; done < iterations; ++done) {
            for (int j = 0; j < n; ++j) h[static_cast<std::size_t>(j)] = 100.0;  // the hot boundary
            for (int i = 1; i < n - 1; ++i) {
                for (int j = 1; j < n - 1; ++j) {
                    const std::size_t c = static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j);
                    g[c] = 0.25 * (h[c - n] + h[c + n] + h[c - 1] + h[c + 1]);
                }
            }
            std::swap(h, g);
        }
        sets.push_back({"heat-" + std::to_string(iterations), 8, repeated(h, bytes)});
    }
    {
        constexpr int m = 512;
        std::vector<double> f(static_cast<std::size_t>(m) * m, 0.0);
        std::mt19937_64 rng(1);
        std::uniform_real_distribution<double> phase(0, 2 * M_PI);
        for (int kx = 1; kx <= 32; ++kx) {
            for (int ky = 1; ky <= 32; ++ky) {
                const double k = std::sqrt(kx * kx + ky * ky);
                const double amplitude = std::pow(k, -11.0 / 6.0);  // energy ~ k^(-5/3)
                const double p = phase(rng);
                for (int i = 0; i < m; ++i) {
                    for (int j = 0; j < m; ++j) {
                        f[static_cast<std::size_t>(i) * m + static_cast<std::size_t>(j)] +=
                            amplitude * std::cos(2 * M_PI * (kx * i + ky * j) / m + p);
                    }
                }
            }
        }
        sets.push_back({"turbulence", 8, repeated(f, bytes)});
    }
    {
        std::vector<std::int32_t> v(bytes / 4);
        std::mt19937 rng(2);
        std::int32_t x = 0;
        for (auto& e : v) e = x += static_cast<std::int32_t>(rng() % 8);
        DataSet d{"integers", 4, std::vector<std::byte>(bytes)};
        std::memcpy(d.bytes.data(), v.data(), bytes);
        sets.push_back(std::move(d));
    }
    {
        DataSet d{"random", 1, std::vector<std::byte>(bytes)};
        std::mt19937_64 rng(3);
        for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
            const std::uint64_t r = rng();
            std::memcpy(d.bytes.data() + i, &r, 8);
        }
        sets.push_back(std::move(d));
    }
    return sets;
}

// The best of `repeat` runs of `f`, in seconds.
double best_of(int repeat, const std::function<void()>& f) {
    double best = 1e30;
    for (int r = 0; r < repeat; ++r) {
        const auto t = Clock::now();
        f();
        best = std::min(best, seconds_since(t));
    }
    return best;
}

struct CodecRun {
    std::string codec;
    double bound = 0;
    double ratio = 0;
    double compress_gbs_per_core = 0;
    double compress_gbs_all = 0;
    double decompress_gbs_per_core = 0;
    double decompress_gbs_all = 0;
};

CodecRun run_codec(const DataSet& d, core::Codec codec, double bound, int repeat, std::size_t cores) {
    constexpr std::size_t kBlock = std::size_t{1} << 20;
    std::vector<std::byte> frame;
    auto encode = [&](std::size_t threads) {
        frame.clear();
        core::PackedEncoder enc(
            codec, codec == core::Codec::zfp ? d.unit : core::shuffle_unit(d.unit), kBlock, threads,
            [&](std::span<const std::byte> p) { frame.insert(frame.end(), p.begin(), p.end()); }, bound);
        enc.feed(d.bytes);
        enc.finish();
    };
    frame.reserve(d.bytes.size() + (1 << 20));
    const double gb = static_cast<double>(d.bytes.size()) / 1e9;
    CodecRun run;
    run.codec = std::string(core::codec_name(codec));
    run.bound = bound;
    run.compress_gbs_per_core = gb / best_of(repeat, [&] { encode(1); });
    run.compress_gbs_all = gb / best_of(repeat, [&] { encode(cores); });
    run.ratio = static_cast<double>(d.bytes.size()) / static_cast<double>(frame.size());
    const std::span<const std::byte> all(frame);
    const core::PackedTrailer trailer =
        core::parse_packed_trailer(all.last(core::kPackedTrailerBytes), frame.size(), "bench");
    const std::size_t table_at = frame.size() - core::kPackedTrailerBytes - trailer.table_bytes();
    const auto blocks =
        core::parse_packed_table(trailer, all.subspan(table_at, trailer.table_bytes()), frame.size(), "bench");
    std::vector<std::byte> out(d.bytes.size());
    auto decode = [&](std::size_t threads) {
        core::decode_packed_blocks(trailer, blocks, all.first(table_at), out, threads, "bench");
    };
    run.decompress_gbs_per_core = gb / best_of(repeat, [&] { decode(1); });
    run.decompress_gbs_all = gb / best_of(repeat, [&] { decode(cores); });
    return run;
}

// Drops the synced file's pages from the page cache: the next read comes
// from storage, as a restart's on another process.
void drop_cached(const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd >= 0) {
        ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        ::close(fd);
    }
}

// A rank's checkpoint file of `d` written by `write` (which returns its
// record) and synced, then read back into memory from storage by `read`:
// seconds of each, best of `repeat`.
std::pair<double, double> file_round_trip(
    const DataSet& d, const fs::path& path, int repeat, const std::function<core::FileRecord()>& write,
    const std::function<void(const core::FileRecord&, std::span<std::byte>)>& read) {
    core::FileRecord record;
    const double write_s = best_of(repeat, [&] {
        fs::remove(path);
        record = write();
    });
    std::vector<std::byte> back(d.bytes.size());
    double read_s = 1e30;
    for (int r = 0; r < repeat; ++r) {
        drop_cached(path);
        const auto t = Clock::now();
        read(record, back);
        read_s = std::min(read_s, seconds_since(t));
    }
    fs::remove(path);
    if (back != d.bytes) std::fprintf(stderr, "compression_bench: %s read back differs\n", d.name.c_str());
    return {write_s, read_s};
}

core::Packing packing_of(const DataSet& d, core::Codec codec) {
    core::Packing packing;
    packing.codec = codec;
    packing.element_sizes[1] = d.unit;
    return packing;
}

// The POSIX file (ckpt_io = 1) with `codec`.
std::pair<double, double> posix_round_trip(const DataSet& d, core::Codec codec, const fs::path& dir, int repeat) {
    const fs::path path = dir / "compression-bench.fti";
    return file_round_trip(
        d, path, repeat,
        [&] {
            core::PosixWriter writer(core::File::create(path),
                                     codec == core::Codec::none ? core::WritePath::direct : core::WritePath::page_cache,
                                     packing_of(d, codec));
            writer.add(1, d.bytes, "");
            return writer.finish();
        },
        [&](const core::FileRecord& record, std::span<std::byte> out) {
            core::read_posix_var(core::File::open_read(path), record.vars[0], out);
        });
}

// The HDF5 file (ckpt_io = 5) of one dataset of the data set's elements,
// compressed by HDF5's filters when `codec` is not none.
std::pair<double, double> hdf5_round_trip(const DataSet& d, core::Codec codec, const fs::path& dir, int repeat) {
    const std::string name = "compression-bench.h5";
    auto schema = std::make_shared<core::h5::Schema>();
    auto type = std::make_shared<core::h5::Type>();
    type->kind = core::h5::Type::Kind::primitive;
    type->primitive = d.unit == 8 ? 9 : d.unit == 4 ? 2 : 4;  // FTI_DBLE, FTI_INTG, FTI_UCHR
    type->size = d.unit;
    core::h5::Dataset dataset;
    dataset.name = "field";
    dataset.dims = {d.bytes.size() / d.unit};
    dataset.type = type;
    schema->datasets[1] = dataset;
    const core::Directory directory = core::Directory::open(dir);
    return file_round_trip(
        d, dir / name, repeat,
        [&] {
            core::Hdf5Writer writer(directory, name, schema,
                                    codec == core::Codec::none ? core::WritePath::direct : core::WritePath::page_cache,
                                    packing_of(d, codec));
            writer.add(1, d.bytes, "");
            return writer.finish();
        },
        [&](const core::FileRecord& record, std::span<std::byte> out) {
            core::open_hdf5_reader(dir / name, record, core::DataWhere::storage)->read(record.vars[0], out);
        });
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    bench::CommandLine cl;
    if (!bench::parse_command_line(argc, argv, 1, {}, cl) || !cl.values.count("dir")) {
        std::fprintf(stderr, "usage: %s --dir DIR [--mib 64] [--repeat 3]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    const std::filesystem::path dir = cl.values["dir"];
    const std::size_t mib = cl.values.count("mib") ? std::stoul(cl.values["mib"]) : 64;
    const int repeat = cl.values.count("repeat") ? std::stoi(cl.values["repeat"]) : 3;
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    core::set_codec_threads(cores);
    const std::size_t bytes = mib << 20;
    const double gb = static_cast<double>(bytes) / 1e9;

    std::printf("{\"mib\": %zu, \"cores\": %zu, \"block_bytes\": 1048576, \"sets\": [\n", mib, cores);
    const std::vector<DataSet> sets = data_sets(bytes);
    for (std::size_t s = 0; s < sets.size(); ++s) {
        const DataSet& d = sets[s];
        std::vector<std::byte> buffer(bytes);
        const double memcpy_s = bench::raw_memcpy(MPI_COMM_SELF, d.bytes, buffer);
        const std::filesystem::path raw_file = dir / "compression-bench.raw";
        std::filesystem::remove(raw_file);
        const double write_s = bench::raw_durable_write_new_file(MPI_COMM_SELF, raw_file, d.bytes);
        const double read_s = bench::raw_read_with_crc(MPI_COMM_SELF, raw_file, buffer);
        std::filesystem::remove(raw_file);
        std::printf("  {\"name\": \"%s\", \"memcpy_gbs\": %.3f, \"raw_write_gbs\": %.3f, \"raw_read_gbs\": %.3f,\n",
                    d.name.c_str(), gb / memcpy_s, gb / write_s, gb / read_s);
        std::printf("   \"codecs\": [\n");
        std::vector<std::pair<core::Codec, double>> codecs = {{core::Codec::lz4, 0}, {core::Codec::zstd, 0}};
        if (d.unit == 8) {
            codecs.push_back({core::Codec::zfp, 1e-6});
            codecs.push_back({core::Codec::zfp, 1e-3});
        }
        for (std::size_t c = 0; c < codecs.size(); ++c) {
            const CodecRun r = run_codec(d, codecs[c].first, codecs[c].second, repeat, cores);
            std::printf(
                "    {\"codec\": \"%s\", \"bound\": %g, \"ratio\": %.3f, \"compress_gbs_per_core\": %.3f, "
                "\"compress_gbs_all\": %.3f, \"decompress_gbs_per_core\": %.3f, \"decompress_gbs_all\": %.3f}%s\n",
                r.codec.c_str(), r.bound, r.ratio, r.compress_gbs_per_core, r.compress_gbs_all,
                r.decompress_gbs_per_core, r.decompress_gbs_all, c + 1 < codecs.size() ? "," : "");
        }
        std::printf("   ],\n   \"file\": [\n");
        const core::Codec file_codecs[] = {core::Codec::none, core::Codec::lz4, core::Codec::zstd};
        for (std::size_t c = 0; c < 3; ++c) {
            const auto [w, r] = posix_round_trip(d, file_codecs[c], dir, repeat);
            std::printf("    {\"codec\": \"%s\", \"write_gbs\": %.3f, \"read_gbs\": %.3f}%s\n",
                        std::string(core::codec_name(file_codecs[c])).c_str(), gb / w, gb / r, c < 2 ? "," : "");
        }
        std::printf("   ],\n   \"hdf5\": [\n");
        for (std::size_t c = 0; c < 2; ++c) {  // none; any codec: shuffle + deflate
            const auto [w, r] = hdf5_round_trip(d, file_codecs[c], dir, repeat);
            std::printf("    {\"filters\": \"%s\", \"write_gbs\": %.3f, \"read_gbs\": %.3f}%s\n",
                        c == 0 ? "none" : "shuffle+deflate", gb / w, gb / r, c < 1 ? "," : "");
        }
        std::printf("   ]}%s\n", s + 1 < sets.size() ? "," : "");
        std::fflush(stdout);
    }
    std::printf("]}\n");
    MPI_Finalize();
    return 0;
}
