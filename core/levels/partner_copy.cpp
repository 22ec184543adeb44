// L2: partner copies around the group ring.
#include <optional>
#include <string>
#include <vector>

#include "common/fault_injection.hpp"
#include "io/file.hpp"
#include "levels/group_transfer.hpp"
#include "levels/redundancy.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

int ring(const GroupMember& m, int offset) {
    return ((m.position + offset) % m.size + m.size) % m.size;
}

struct CopySummary {
    std::uint64_t size = 0;
    std::uint32_t crc = 0;
};

// The record of the copy of the left neighbour's file kept by `m`.
FileRecord partner_record(const GroupMember& m, const fs::path& copy, const FileRecord& left_file) {
    FileRecord r;
    r.rank = m.left_app_rank;
    r.holder = m.app_rank;
    r.node = m.node;
    r.file = copy.filename().string();
    r.type = "PARTNER";
    r.complete = true;
    r.size = left_file.size;
    r.crc32 = left_file.crc32;
    return r;
}

}  // namespace

FileRecord write_partner_copy(const RedundancyIo& io, const GroupMember& m, const CheckpointRef& ref,
                              const FileRecord& mine, const MemoryContent* content) {
    // Learn the size and CRC of what the left neighbour sends.
    CopySummary own{mine.size, mine.crc32};
    CopySummary left;
    std::uint64_t out_msg[2] = {own.size, own.crc};
    std::uint64_t in_msg[2] = {0, 0};
    sendrecv(out_msg, 2, ring(m, 1), in_msg, 2, ring(m, -1), MPI_UINT64_T, io.tag, m.comm,
             "the size and CRC of the partner copy");
    fault_point("during_redundancy", m.app_rank, ref.seq);
    left.size = in_msg[0];
    left.crc = static_cast<std::uint32_t>(in_msg[1]);

    fs::path copy = m.redundancy_path(io, ref);
    Transfer t;
    t.send_to = ring(m, 1);
    t.send_path = m.data_path(io, ref);
    if (content != nullptr && content->size() == mine.size) t.send_content = content;  // else: read back
    t.recv_from = ring(m, -1);
    t.recv_dir = io.layout->make_dir(copy.parent_path());
    t.recv_name = copy.filename().string();
    t.recv_size = left.size;
    t.recv_crc = left.crc;
    run_transfer(m.comm, t, io.buffer_bytes, io.tag);
    FileRecord source;
    source.size = left.size;
    source.crc32 = left.crc;
    return partner_record(m, copy, source);
}

std::optional<std::string> partner_copy_loss(const GroupView& g, const std::vector<Holdings>& held) {
    // held[i].redundancy_ok: the copy member i keeps of its left neighbour's file.
    const int k = static_cast<int>(g.app_ranks.size());
    auto member = [&](int i) { return static_cast<std::size_t>(((i % k) + k) % k); };
    std::string lost;
    for (int i = 0; i < k; ++i) {
        if (held.at(member(i)).data_ok || held.at(member(i + 1)).redundancy_ok) continue;
        lost += (lost.empty() ? "" : "; ") + std::string("the file of rank ") + std::to_string(g.app_ranks[member(i)]) +
                " on node " + std::to_string(g.nodes[member(i)]) + " and its partner copy on node " +
                std::to_string(g.nodes[member(i + 1)]) + " are both lost";
    }
    if (lost.empty()) return std::nullopt;
    return "L2 group " + std::to_string(g.group_id) + ": " + lost +
           "; partner copies survive the loss of nodes that are not neighbours in the group ring";
}

FileRecord repair_partner_copies(const RedundancyIo& io, const GroupMember& m, const CheckpointMeta& meta,
                                 const CheckpointRef& ref, const Holdings& mine) {
    auto held = gather_holdings(m, mine);
    if (std::optional<std::string> lost = partner_copy_loss(m.group(), held)) fail(ErrorKind::not_recoverable, *lost);

    const int k = m.size;
    auto member = [&](int i) { return static_cast<std::size_t>(((i % k) + k) % k); };
    const int g = m.position;
    const FileRecord& own_record = meta.file_of(m.app_rank);
    const FileRecord& left_record = meta.file_of(m.left_app_rank);
    fs::path own = m.data_path(io, ref);
    fs::path copy = m.redundancy_path(io, ref);
    // The file and the copy kept here share the node's checkpoint directory.
    const Directory dir = io.layout->make_dir(own.parent_path());

    // First the originals come back from the copies kept on the right...
    Transfer restore;
    if (!held[member(g - 1)].data_ok) {
        restore.send_to = ring(m, -1);
        restore.send_path = copy;
    }
    if (!mine.data_ok) {
        restore.recv_from = ring(m, 1);
        restore.recv_dir = dir;
        restore.recv_name = own.filename().string();
        restore.recv_size = own_record.size;
        restore.recv_crc = own_record.crc32;
    }
    run_transfer(m.comm, restore, io.buffer_bytes, io.tag);

    // ...then the lost copies are made again from the (restored) originals.
    Transfer regenerate;
    if (!held[member(g + 1)].redundancy_ok) {
        regenerate.send_to = ring(m, 1);
        regenerate.send_path = own;
    }
    if (!mine.redundancy_ok) {
        regenerate.recv_from = ring(m, -1);
        regenerate.recv_dir = dir;
        regenerate.recv_name = copy.filename().string();
        regenerate.recv_size = left_record.size;
        regenerate.recv_crc = left_record.crc32;
    }
    run_transfer(m.comm, regenerate, io.buffer_bytes, io.tag);
    return partner_record(m, copy, left_record);
}

}  // namespace mlckpt::core
