// L3: Reed-Solomon parity across the group. Member g keeps data fragment g
// (its own file, zero-padded to the group's largest size S) and parity
// fragment k+g (a file of S bytes). Encoding and repair are one operation:
// the members stream the group's files stripe by stripe, each contributes
// the stripes of the fragments chosen as sources, and each computes the
// fragments it is missing. At checkpoint time a member's data stripes come
// from its variables in memory when it has them; rebuilt files and parity
// are written around the page cache while the next stripes are coded.
#include <algorithm>
#include <optional>
#include <vector>

#include "common/fault_injection.hpp"
#include "hash/crc32.hpp"
#include "io/buffer_pool.hpp"
#include "io/file.hpp"
#include "io/sequential_writer.hpp"
#include "levels/redundancy.hpp"
#include "levels/reed_solomon.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

struct GroupState {
    std::vector<std::uint64_t> sizes;  // data size of every member
    std::vector<bool> data_ok;
    std::vector<bool> parity_ok;
    std::uint64_t parity_size = 0;  // S: the largest data size of the group
};

std::size_t stripe_bytes(const RedundancyIo& io, int k) {
    // Every member receives k source stripes: bound that buffer.
    std::size_t cap = (256u << 20) / static_cast<std::size_t>(k);
    return std::max<std::size_t>(4096, std::min(io.buffer_bytes, cap));
}

// Computes this member's missing fragments; returns the CRC of its parity.
// `content`: this member's data in memory, or null to read its file.
std::uint32_t code_group(const RedundancyIo& io, const GroupMember& m, const CheckpointRef& ref, const GroupState& st,
                         const RebuiltCrcs& expect, const MemoryContent* content = nullptr) {
    const int k = m.size;
    const int me = m.position;
    const auto self = static_cast<std::size_t>(me);
    ReedSolomon rs(k);

    std::vector<int> sources;
    for (int g = 0; g < k; ++g) {
        if (st.data_ok[static_cast<std::size_t>(g)]) sources.push_back(g);
    }
    for (int g = 0; g < k && static_cast<int>(sources.size()) < k; ++g) {
        if (st.parity_ok[static_cast<std::size_t>(g)]) sources.push_back(k + g);
    }
    sources.resize(static_cast<std::size_t>(k));
    auto is_source = [&](int row) { return std::find(sources.begin(), sources.end(), row) != sources.end(); };
    std::vector<int> targets;
    if (!st.data_ok[self]) targets.push_back(me);
    if (!st.parity_ok[self]) targets.push_back(k + me);
    ReedSolomon::Plan plan = rs.plan(sources, targets);

    fs::path data_path = m.data_path(io, ref);
    fs::path parity_path = m.redundancy_path(io, ref);
    const bool send_data = is_source(me);
    const bool send_parity = is_source(k + me);
    std::exception_ptr failure;
    const bool from_memory = content != nullptr && content->size() == st.sizes[self];
    std::optional<File> data_in, parity_in;
    std::optional<SequentialWriter> data_out, parity_out;
    // The file and the parity kept here share the node's checkpoint directory.
    Directory dir;
    const std::string data_name = data_path.filename().string();
    const std::string parity_name = parity_path.filename().string();
    try {
        dir = io.layout->make_dir(data_path.parent_path());
        if (send_data && !from_memory) data_in = File::open_read(dir, data_name);
        if (send_parity) parity_in = File::open_read(dir, parity_name);
        if (!st.data_ok[self]) {
            data_out.emplace(File::create(dir, data_name + ".tmp"), SequentialWriter::batch_for(st.sizes[self]));
        }
        if (!st.parity_ok[self]) {
            parity_out.emplace(File::create(dir, parity_name + ".tmp"), SequentialWriter::batch_for(st.parity_size));
        }
    } catch (...) {
        failure = std::current_exception();
    }

    // No larger than the data either: a small checkpoint keeps small buffers.
    const auto block = static_cast<std::size_t>(
        std::min<std::uint64_t>(stripe_bytes(io, k), std::max<std::uint64_t>(st.parity_size, 1)));
    PooledBuffer recv = take_buffer(block * static_cast<std::size_t>(k));  // exactly k source stripes
    std::vector<PooledBuffer> rebuilt;
    for (std::size_t t = 0; t < targets.size(); ++t) rebuilt.push_back(take_buffer(block));
    std::vector<int> counts(static_cast<std::size_t>(k));
    std::vector<int> displs(static_cast<std::size_t>(k));
    Crc32 data_crc, parity_crc;
    const std::uint64_t own_size = st.sizes[self];
    for (std::uint64_t off = 0; off < st.parity_size; off += block) {
        const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(block, st.parity_size - off));
        int pos = 0;
        for (int g = 0; g < k; ++g) {
            int rows = (is_source(g) ? 1 : 0) + (is_source(k + g) ? 1 : 0);
            counts[static_cast<std::size_t>(g)] = rows * static_cast<int>(len);
            displs[static_cast<std::size_t>(g)] = pos;
            pos += counts[static_cast<std::size_t>(g)];
        }
        // This member's contribution, in its place among the group's: its
        // data stripe (zero-padded), then its parity stripe.
        std::byte* const own = recv.data() + displs[self];
        std::size_t mine = 0;
        try {
            if (send_data) {
                std::fill_n(own, len, std::byte{0});
                if (off < own_size && !failure) {
                    auto n = static_cast<std::size_t>(std::min<std::uint64_t>(len, own_size - off));
                    if (from_memory) {
                        content->copy_out(off, std::span(own, n));
                    } else {
                        data_in->read_exact_at(std::span(own, n), off);
                    }
                }
                mine += len;
            }
            if (send_parity) {
                if (!failure) parity_in->read_exact_at(std::span(own + mine, len), off);
                mine += len;
            }
        } catch (...) {
            failure = std::current_exception();
        }
        allgatherv(MPI_IN_PLACE, 0, recv.data(), counts.data(), displs.data(), MPI_BYTE, m.comm,
                   "a stripe of the group's files for Reed-Solomon");
        fault_point("during_redundancy", m.app_rank, ref.seq);
        if (targets.empty() || failure) continue;
        std::vector<const unsigned char*> in;
        for (int row : sources) {
            int g = row < k ? row : row - k;
            std::size_t at = static_cast<std::size_t>(displs[static_cast<std::size_t>(g)]);
            if (row >= k && is_source(g)) at += len;  // the parity stripe follows the data stripe
            in.push_back(reinterpret_cast<const unsigned char*>(recv.data() + at));
        }
        std::vector<unsigned char*> out;
        for (auto& b : rebuilt) out.push_back(reinterpret_cast<unsigned char*>(b.data()));
        ReedSolomon::apply(plan, len, in, out);
        try {
            for (std::size_t t = 0; t < targets.size(); ++t) {
                std::span<const std::byte> bytes(rebuilt[t].data(), len);
                if (targets[t] == me) {  // own data: without the padding
                    if (off >= own_size) continue;
                    bytes = bytes.first(static_cast<std::size_t>(std::min<std::uint64_t>(len, own_size - off)));
                    data_out->append(bytes);
                    data_crc.update(bytes);
                } else {
                    parity_out->append(bytes);
                    parity_crc.update(bytes);
                }
            }
        } catch (...) {
            failure = std::current_exception();
        }
    }

    auto commit = [&](std::optional<SequentialWriter>& out, const std::string& name, std::uint32_t crc,
                      const std::optional<std::uint32_t>& expected) {
        if (!out) return;
        if (expected && crc != *expected) {
            fail(ErrorKind::corrupt, "the rebuilt '" + dir.path_of(name).string() + "' does not match its checksum");
        }
        out->finish();
        dir.rename(name + ".tmp", name);
        dir.sync();
    };
    try {
        if (!failure) {
            commit(data_out, data_name, data_crc.value(), expect.data_crc);
            commit(parity_out, parity_name, parity_crc.value(), expect.parity_crc);
        }
    } catch (...) {
        failure = std::current_exception();
    }
    if (failure) {
        if (data_out) dir.remove(data_name + ".tmp");
        if (parity_out) dir.remove(parity_name + ".tmp");
    }
    agree(m.comm, failure);
    return parity_crc.value();
}

}  // namespace

// The record of the parity kept by `m`.
FileRecord parity_record(const RedundancyIo& io, const GroupMember& m, const CheckpointRef& ref, std::uint64_t size,
                         std::uint32_t crc) {
    FileRecord r;
    r.rank = m.app_rank;
    r.holder = m.app_rank;
    r.node = m.node;
    r.file = m.redundancy_path(io, ref).filename().string();
    r.type = "PARITY";
    r.complete = true;
    r.size = size;
    r.crc32 = crc;
    return r;
}

FileRecord write_parity(const RedundancyIo& io, const GroupMember& m, const CheckpointRef& ref, const FileRecord& mine,
                        const MemoryContent* content) {
    const auto k = static_cast<std::size_t>(m.size);
    std::vector<std::uint64_t> sizes(k);
    std::uint64_t size = mine.size;
    allgather(&size, sizes.data(), 1, MPI_UINT64_T, m.comm, "the sizes of the group's files");
    GroupState st{sizes, std::vector<bool>(k, true), std::vector<bool>(k, false),
                  *std::max_element(sizes.begin(), sizes.end())};
    return parity_record(io, m, ref, st.parity_size, code_group(io, m, ref, st, {}, content));
}

std::optional<std::string> parity_loss(const GroupView& g, const std::vector<Holdings>& held) {
    const std::size_t k = g.app_ranks.size();
    std::string lost_files, lost_parity;
    std::size_t lost = 0;
    for (std::size_t i = 0; i < k; ++i) {
        const std::string node = std::to_string(g.nodes[i]);
        if (!held.at(i).data_ok) {
            ++lost;
            lost_files += (lost_files.empty() ? "" : ", ") + std::string("rank ") + std::to_string(g.app_ranks[i]) +
                          " (node " + node + ")";
        }
        if (!held.at(i).redundancy_ok) {
            ++lost;
            lost_parity += (lost_parity.empty() ? "" : ", ") + std::string("node ") + node;
        }
    }
    if (lost <= k) return std::nullopt;
    return "L3 group " + std::to_string(g.group_id) + " lost " + std::to_string(lost) + " of its " +
           std::to_string(2 * k) + " files (data of " + (lost_files.empty() ? "none" : lost_files) + "; parity on " +
           (lost_parity.empty() ? "none" : lost_parity) + "); Reed-Solomon with " + std::to_string(k) + " data and " +
           std::to_string(k) + " parity files tolerates " + std::to_string(k) + " lost";
}

FileRecord repair_parity(const RedundancyIo& io, const GroupMember& m, const CheckpointMeta& meta,
                         const CheckpointRef& ref, const Holdings& mine) {
    const auto k = static_cast<std::size_t>(m.size);
    std::vector<Holdings> held = gather_holdings(m, mine);
    if (std::optional<std::string> lost = parity_loss(m.group(), held)) fail(ErrorKind::not_recoverable, *lost);
    GroupState st;
    bool any_lost = false;
    for (std::size_t g = 0; g < k; ++g) {
        st.sizes.push_back(meta.file_of(m.app_ranks[g]).size);
        st.data_ok.push_back(held[g].data_ok);
        st.parity_ok.push_back(held[g].redundancy_ok);
        any_lost = any_lost || !held[g].data_ok || !held[g].redundancy_ok;
    }
    st.parity_size = *std::max_element(st.sizes.begin(), st.sizes.end());
    const FileRecord* stored = meta.redundancy_held_by(m.app_rank);
    RebuiltCrcs expect;
    expect.data_crc = meta.file_of(m.app_rank).crc32;
    if (stored != nullptr) expect.parity_crc = stored->crc32;
    std::uint32_t crc = any_lost ? code_group(io, m, ref, st, expect) : stored->crc32;
    return parity_record(io, m, ref, st.parity_size, mine.redundancy_ok && stored ? stored->crc32 : crc);
}

}  // namespace mlckpt::core
