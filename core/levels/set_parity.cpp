// L3 as SCR's Reed-Solomon sets ([basic] l3_failures = k, SCR_SET_FAILURES):
// a group of n nodes survives the loss of any k of them, each keeping
// parity of k / (n - k) of the group's largest file. Each member's file,
// zero-padded to the group's largest size S, is cut into d = n - k chunks
// of C = ceil(S / d) bytes. Stripe j (0..n-1) is one codeword of d data and
// k parity chunks: the member at ring distance t = (m - j) mod n holds its
// parity row t (at t * C in its parity file) when t < k, else its data row
// t - k (its chunk n - 1 - t). So every member holds one fragment of every
// stripe, k of them parity, and a lost node costs each stripe one fragment.
// Encoding and repair are one operation: for each piece of the chunks,
// the members holding the chosen source fragments of a stripe send them to
// the members missing a fragment of it, who compute and write theirs.
#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "common/error.hpp"
#include "common/fault_injection.hpp"
#include "common/plural.hpp"
#include "hash/crc32.hpp"
#include "io/buffer_pool.hpp"
#include "io/file.hpp"
#include "levels/redundancy.hpp"
#include "levels/reed_solomon.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

struct Shape {
    int n = 0;  // members
    int k = 0;  // parity rows per stripe
    int d = 0;  // data rows per stripe
    std::uint64_t chunk = 0;

    Shape(int members, int failures, std::uint64_t largest)
        : n(members),
          k(failures),
          d(members - failures),
          chunk(d > 0 ? (largest + static_cast<std::uint64_t>(d) - 1) / static_cast<std::uint64_t>(d) : 0) {}

    int distance(int m, int stripe) const { return ((m - stripe) % n + n) % n; }
    bool holds_parity(int m, int stripe) const { return distance(m, stripe) < k; }
    int row(int m, int stripe) const {
        const int t = distance(m, stripe);
        return t < k ? d + t : t - k;
    }
    // Where member m's fragment of `stripe` starts: in its parity file for
    // a parity row, in its (padded) data for a data row.
    std::uint64_t offset(int m, int stripe) const {
        const int t = distance(m, stripe);
        return static_cast<std::uint64_t>(t < k ? t : n - 1 - t) * chunk;
    }
};

// Which fragments of each stripe are read and which rebuilt.
struct StripePlan {
    std::vector<int> sources;  // members, by row
    std::vector<int> missing;  // members whose fragment is lost
};

bool available(const Shape& s, const std::vector<Holdings>& held, int m, int stripe) {
    const Holdings& h = held[static_cast<std::size_t>(m)];
    return s.holds_parity(m, stripe) ? h.redundancy_ok : h.data_ok;
}

std::vector<StripePlan> plan_stripes(const Shape& s, const std::vector<Holdings>& held) {
    std::vector<StripePlan> plans(static_cast<std::size_t>(s.n));
    for (int j = 0; j < s.n; ++j) {
        StripePlan& p = plans[static_cast<std::size_t>(j)];
        std::vector<int> by_row(static_cast<std::size_t>(s.n));
        for (int m = 0; m < s.n; ++m) by_row[static_cast<std::size_t>(s.row(m, j))] = m;
        for (int m : by_row) {
            if (!available(s, held, m, j)) {
                p.missing.push_back(m);
            } else if (static_cast<int>(p.sources.size()) < s.d) {
                p.sources.push_back(m);
            }
        }
    }
    return plans;
}

// A file rebuilt piece by piece at known offsets, under a temporary name
// until it is complete, synced and renamed.
struct RebuiltFile {
    std::string name;
    std::optional<File> file;
    std::vector<Crc32> crcs;  // one per chunk, in chunk order
};

// Computes this member's missing fragments; returns the CRC of its parity
// file. `sizes`: every member's data size; `content`: this member's data in
// memory, or null to read its file.
std::uint32_t code_sets(const RedundancyIo& io, const GroupMember& m, const CheckpointRef& ref, int failures,
                        const std::vector<std::uint64_t>& sizes, const std::vector<Holdings>& held,
                        const RebuiltCrcs& expect, const MemoryContent* content = nullptr) {
    const Shape s(m.size, failures, *std::max_element(sizes.begin(), sizes.end()));
    const int me = m.position;
    const std::uint64_t own_size = sizes[static_cast<std::size_t>(me)];
    const std::vector<StripePlan> stripes = plan_stripes(s, held);
    const ReedSolomon rs(s.d, s.k);
    auto is_source = [&](int member, int j) {
        const auto& src = stripes[static_cast<std::size_t>(j)].sources;
        return std::find(src.begin(), src.end(), member) != src.end();
    };
    auto misses = [&](int member, int j) {
        const auto& lost = stripes[static_cast<std::size_t>(j)].missing;
        return std::find(lost.begin(), lost.end(), member) != lost.end();
    };
    // This member's decoding plans, by stripe (empty where it misses nothing).
    std::vector<std::optional<ReedSolomon::Plan>> plans(static_cast<std::size_t>(s.n));
    for (int j = 0; j < s.n; ++j) {
        if (!misses(me, j)) continue;
        std::vector<int> rows;
        for (int src : stripes[static_cast<std::size_t>(j)].sources) rows.push_back(s.row(src, j));
        plans[static_cast<std::size_t>(j)] = rs.plan(rows, {s.row(me, j)});
    }

    const fs::path data_path = m.data_path(io, ref);
    const fs::path parity_path = m.redundancy_path(io, ref);
    const bool from_memory = content != nullptr && content->size() == own_size;
    const bool lost_data = !held[static_cast<std::size_t>(me)].data_ok;
    const bool lost_parity = !held[static_cast<std::size_t>(me)].redundancy_ok;
    std::exception_ptr failure;
    Directory dir;
    std::optional<File> data_in, parity_in;
    RebuiltFile data_out{data_path.filename().string(), {}, std::vector<Crc32>(static_cast<std::size_t>(s.d))};
    RebuiltFile parity_out{parity_path.filename().string(), {}, std::vector<Crc32>(static_cast<std::size_t>(s.k))};
    try {
        dir = io.layout->make_dir(data_path.parent_path());
        if (!lost_data && !from_memory) data_in = File::open_read(dir, data_out.name);
        if (!lost_parity) parity_in = File::open_read(dir, parity_out.name);
        if (lost_data) data_out.file = File::create(dir, data_out.name + ".tmp");
        if (lost_parity) parity_out.file = File::create(dir, parity_out.name + ".tmp");
    } catch (...) {
        failure = std::current_exception();
    }

    // Every member receives at most d pieces of each of its n stripes: bound that.
    const std::size_t cap = (256u << 20) / static_cast<std::size_t>(s.n * s.d);
    const auto block = static_cast<std::size_t>(std::min<std::uint64_t>(
        std::max<std::size_t>(4096, std::min(io.buffer_bytes, cap)), std::max<std::uint64_t>(s.chunk, 1)));
    // Who sends which stripes' pieces to whom: the same on every member.
    auto pieces = [&](int from, int to) {
        std::vector<int> list;
        for (int j = 0; j < s.n; ++j) {
            if (is_source(from, j) && misses(to, j)) list.push_back(j);
        }
        return list;
    };
    std::vector<std::vector<int>> out_stripes(static_cast<std::size_t>(s.n)), in_stripes(out_stripes);
    std::size_t out_pieces = 0, in_pieces = 0;
    for (int other = 0; other < s.n; ++other) {
        out_stripes[static_cast<std::size_t>(other)] = pieces(me, other);
        in_stripes[static_cast<std::size_t>(other)] = pieces(other, me);
        out_pieces += out_stripes[static_cast<std::size_t>(other)].size();
        in_pieces += in_stripes[static_cast<std::size_t>(other)].size();
    }
    PooledBuffer own = take_buffer(block * static_cast<std::size_t>(s.n));  // this member's fragments, by stripe
    PooledBuffer outgoing = take_buffer(std::max<std::size_t>(block * out_pieces, 1));
    PooledBuffer incoming = take_buffer(std::max<std::size_t>(block * in_pieces, 1));
    PooledBuffer rebuilt = take_buffer(block);
    const auto members = static_cast<std::size_t>(s.n);
    std::vector<int> out_counts(members), out_displs(members), in_counts(members), in_displs(members);

    for (std::uint64_t off = 0; off < s.chunk; off += block) {
        const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(block, s.chunk - off));
        std::byte* const mine = own.data();
        try {
            for (int j = 0; j < s.n && !failure; ++j) {
                const bool wanted = is_source(me, j) && !stripes[static_cast<std::size_t>(j)].missing.empty();
                if (!wanted) continue;
                std::span<std::byte> piece(mine + static_cast<std::size_t>(j) * block, len);
                const std::uint64_t at = s.offset(me, j) + off;
                if (s.holds_parity(me, j)) {
                    parity_in->read_exact_at(piece, at);
                    continue;
                }
                std::fill(piece.begin(), piece.end(), std::byte{0});
                if (at >= own_size) continue;
                auto real = piece.first(static_cast<std::size_t>(std::min<std::uint64_t>(len, own_size - at)));
                if (from_memory) {
                    content->copy_out(at, real);
                } else {
                    data_in->read_exact_at(real, at);
                }
            }
        } catch (...) {
            failure = std::current_exception();
        }
        int out_at = 0, in_at = 0;
        for (std::size_t o = 0; o < members; ++o) {
            out_displs[o] = out_at;
            for (int j : out_stripes[o]) {
                std::copy_n(mine + static_cast<std::size_t>(j) * block, len, outgoing.data() + out_at);
                out_at += static_cast<int>(len);
            }
            out_counts[o] = out_at - out_displs[o];
            in_displs[o] = in_at;
            in_counts[o] = static_cast<int>(in_stripes[o].size() * len);
            in_at += in_counts[o];
        }
        alltoallv(outgoing.data(), out_counts.data(), out_displs.data(), incoming.data(), in_counts.data(),
                  in_displs.data(), MPI_BYTE, m.comm, "pieces of the set's chunks for Reed-Solomon");
        fault_point("during_redundancy", m.app_rank, ref.seq);
        if (failure) continue;
        try {
            for (int j = 0; j < s.n; ++j) {
                const auto& plan = plans[static_cast<std::size_t>(j)];
                if (!plan) continue;
                std::vector<const unsigned char*> in;
                for (int src : stripes[static_cast<std::size_t>(j)].sources) {
                    const auto& from = in_stripes[static_cast<std::size_t>(src)];
                    const auto index = static_cast<std::size_t>(std::find(from.begin(), from.end(), j) - from.begin());
                    in.push_back(reinterpret_cast<const unsigned char*>(
                        incoming.data() + in_displs[static_cast<std::size_t>(src)] + index * len));
                }
                ReedSolomon::apply(*plan, len, in, {reinterpret_cast<unsigned char*>(rebuilt.data())});
                std::span<const std::byte> bytes(rebuilt.data(), len);
                const int t = s.distance(me, j);
                if (s.holds_parity(me, j)) {
                    parity_out.file->write_all_at(bytes, s.offset(me, j) + off);
                    parity_out.crcs[static_cast<std::size_t>(t)].update(bytes);
                    continue;
                }
                const std::uint64_t at = s.offset(me, j) + off;
                if (at >= own_size) continue;  // padding
                bytes = bytes.first(static_cast<std::size_t>(std::min<std::uint64_t>(len, own_size - at)));
                data_out.file->write_all_at(bytes, at);
                data_out.crcs[static_cast<std::size_t>(s.n - 1 - t)].update(bytes);
            }
        } catch (...) {
            failure = std::current_exception();
        }
    }

    // The CRC of a file from its chunks' CRCs, each `chunk` bytes but the
    // part of the data past `size`.
    auto whole_crc = [&](const std::vector<Crc32>& crcs, std::uint64_t size) {
        std::uint32_t crc = 0;
        for (std::size_t c = 0; c < crcs.size(); ++c) {
            const std::uint64_t start = c * s.chunk;
            const std::uint64_t length = start < size ? std::min(s.chunk, size - start) : 0;
            crc = crc32_combine(crc, crcs[c].value(), length);
        }
        return crc;
    };
    const std::uint64_t parity_size = static_cast<std::uint64_t>(s.k) * s.chunk;
    const std::uint32_t parity_crc = whole_crc(parity_out.crcs, parity_size);
    auto commit = [&](RebuiltFile& out, std::uint32_t crc, const std::optional<std::uint32_t>& expected,
                      std::uint64_t size) {
        if (!out.file) return;
        if (expected && crc != *expected) {
            fail(Damage::checksum, "the rebuilt '" + dir.path_of(out.name).string() + "' does not match its checksum");
        }
        out.file->resize(size);  // a file of zeros past its last piece stays that long
        out.file->sync();
        out.file->close();
        dir.rename(out.name + ".tmp", out.name);
        dir.sync();
    };
    try {
        if (!failure) {
            commit(data_out, whole_crc(data_out.crcs, own_size), expect.data_crc, own_size);
            commit(parity_out, parity_crc, expect.parity_crc, parity_size);
        }
    } catch (...) {
        failure = std::current_exception();
    }
    if (failure) {
        if (data_out.file) dir.remove(data_out.name + ".tmp");
        if (parity_out.file) dir.remove(parity_out.name + ".tmp");
    }
    agree(m.comm, failure);
    return parity_crc;
}

std::string members_named(const GroupView& g, const std::vector<int>& members, bool data) {
    std::string out;
    for (int p : members) {
        const auto i = static_cast<std::size_t>(p);
        out += (out.empty() ? "" : ", ") +
               (data ? "rank " + std::to_string(g.app_ranks[i]) + " (node " + std::to_string(g.nodes[i]) + ")"
                     : "node " + std::to_string(g.nodes[i]));
    }
    return out.empty() ? "none" : out;
}

class SetParity final : public Redundancy {
  public:
    explicit SetParity(int failures) : k_(failures) {}

    FileRecord write(const RedundancyIo& io, const GroupMember& m, const CheckpointRef& ref, const FileRecord& data,
                     const MemoryContent* content) const override {
        check_shape(m.size);
        std::vector<std::uint64_t> sizes(static_cast<std::size_t>(m.size));
        std::uint64_t size = data.size;
        allgather(&size, sizes.data(), 1, MPI_UINT64_T, m.comm, "the sizes of the group's files");
        const std::vector<Holdings> held(sizes.size(), Holdings{true, false});
        const std::uint32_t crc = code_sets(io, m, ref, k_, sizes, held, {}, content);
        return parity_record(io, m, ref, parity_size(m.size, sizes), crc);
    }

    FileRecord repair(const RedundancyIo& io, const GroupMember& m, const CheckpointMeta& meta,
                      const CheckpointRef& ref, const Holdings& mine) const override {
        check_shape(m.size);
        const std::vector<Holdings> held = gather_holdings(m, mine);
        if (std::optional<std::string> lost = loss_beyond_repair(m.group(), held)) {
            fail(ErrorKind::not_recoverable, *lost);
        }
        std::vector<std::uint64_t> sizes;
        for (int rank : m.app_ranks) sizes.push_back(meta.file_of(rank).size);
        const FileRecord* stored = meta.redundancy_held_by(m.app_rank);
        const bool any_lost =
            std::any_of(held.begin(), held.end(), [](const Holdings& h) { return !h.data_ok || !h.redundancy_ok; });
        std::uint32_t crc = 0;
        if (any_lost) {
            RebuiltCrcs expect{meta.file_of(m.app_rank).crc32, stored ? std::optional(stored->crc32) : std::nullopt};
            crc = code_sets(io, m, ref, k_, sizes, held, expect);
        }
        // The parity kept here is as recorded unless this member rebuilt it.
        if (mine.redundancy_ok && stored != nullptr) return *stored;
        return parity_record(io, m, ref, parity_size(m.size, sizes), crc);
    }

    std::optional<std::string> loss_beyond_repair(const GroupView& g,
                                                  const std::vector<Holdings>& held) const override {
        const int n = static_cast<int>(g.app_ranks.size());
        if (k_ >= n) {
            return "L3 group " + std::to_string(g.group_id) + " has " + std::to_string(n) +
                   " nodes, too few for Reed-Solomon sets with " + std::to_string(k_) + " parity chunks";
        }
        const Shape s(n, k_, 0);
        std::size_t worst = 0;
        for (const StripePlan& p : plan_stripes(s, held)) worst = std::max(worst, p.missing.size());
        if (static_cast<int>(worst) <= k_) return std::nullopt;
        std::vector<int> data_lost, parity_lost;
        for (int p = 0; p < n; ++p) {
            if (!held.at(static_cast<std::size_t>(p)).data_ok) data_lost.push_back(p);
            if (!held.at(static_cast<std::size_t>(p)).redundancy_ok) parity_lost.push_back(p);
        }
        return "L3 group " + std::to_string(g.group_id) + " lost the data of " + members_named(g, data_lost, true) +
               " and the parity on " + members_named(g, parity_lost, false) + ": " + std::to_string(worst) +
               " fragments of one stripe; Reed-Solomon sets of " + std::to_string(n) + " nodes with " +
               plural(static_cast<std::size_t>(k_), "parity chunk") +
               " per stripe (l3_failures, SCR_SET_FAILURES) survive the loss of " +
               plural(static_cast<std::size_t>(k_), "node");
    }

    bool checks_data_crc() const override { return false; }
    const char* name() const override { return "Reed-Solomon sets"; }

  private:
    void check_shape(int members) const {
        if (k_ >= members) {
            fail(ErrorKind::usage, "Reed-Solomon sets with " + std::to_string(k_) + " parity chunks need groups of " +
                                       "more than " + std::to_string(k_) + " nodes, this group has " +
                                       std::to_string(members));
        }
    }
    std::uint64_t parity_size(int members, const std::vector<std::uint64_t>& sizes) const {
        const Shape s(members, k_, *std::max_element(sizes.begin(), sizes.end()));
        return static_cast<std::uint64_t>(s.k) * s.chunk;
    }

    int k_;
};

}  // namespace

const Redundancy* set_parity(int failures) {
    static const std::vector<SetParity> sets = [] {
        std::vector<SetParity> all;
        for (int k = 1; k < kMaxParityGroup; ++k) all.emplace_back(k);
        return all;
    }();
    if (failures < 1 || failures >= kMaxParityGroup) return nullptr;
    return &sets[static_cast<std::size_t>(failures - 1)];
}

}  // namespace mlckpt::core
