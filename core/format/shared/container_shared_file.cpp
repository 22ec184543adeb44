#include "format/shared/container_shared_file.hpp"

#include <algorithm>
#include <set>

#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

using namespace container;

constexpr std::size_t kDirectStaging = std::size_t{8} << 20;

// What process 0 sends each process: the offset of each of its tasks'
// chunk, then, for each file whose first task is one of its own (in the
// order of its tasks), the sizes of every task of that file.
std::vector<std::vector<std::uint64_t>> plan_for_processes(const TaskTable& table, const SharedFileSpec& spec,
                                                           const std::string& prefix) {
    const int ranks = spec.ranks;
    std::vector<Geometry> geo;
    for (int f = 0; f < spec.files; ++f) {
        geo.push_back(geometry(plan_file(f, spec.files, table.sizes, spec.block_size, prefix)));
    }
    std::vector<std::vector<std::uint64_t>> out;
    for (const std::vector<int>& tasks : table.ranks_of) {
        std::vector<std::uint64_t> reply;
        for (int r : tasks) {
            const int f = file_of_rank(r, ranks, spec.files);
            const int first = first_rank_of_file(f, ranks, spec.files);
            reply.push_back(geo[static_cast<std::size_t>(f)].chunk_offset(static_cast<std::size_t>(r - first), 0));
        }
        for (int r : tasks) {
            const int f = file_of_rank(r, ranks, spec.files);
            if (r != first_rank_of_file(f, ranks, spec.files)) continue;
            const auto end = static_cast<std::ptrdiff_t>(first_rank_of_file(f + 1, ranks, spec.files));
            reply.insert(reply.end(), table.sizes.begin() + r, table.sizes.begin() + end);
        }
        out.push_back(std::move(reply));
    }
    return out;
}

}  // namespace

ContainerSharedFile::ContainerSharedFile(MPI_Comm comm, const SharedFileSpec& spec, std::vector<SharedTask> mine,
                                         const std::optional<TaskTable>& table)
    : SharedFile(comm, spec, std::move(mine)) {
    const int ranks = spec.ranks;
    const int files = spec.files;
    const std::string prefix = shared_file_name(spec.ckpt_id, IoMode::container, 0);
    std::vector<std::vector<std::uint64_t>> replies;
    if (table) replies = plan_for_processes(*table, spec, prefix);
    const std::vector<std::uint64_t> reply = scatter_values(comm, replies, 0);
    run_collectively(comm, [&] {
        const auto take = [&](std::size_t pos, std::size_t n) {
            if (reply.size() < pos + n) fail(ErrorKind::mpi, "the plan of the shared container file arrived short");
            return std::span(reply).subspan(pos, n);
        };
        std::size_t pos = 0;
        for (const SharedTask& t : mine_) {
            file_of_.push_back(file_of_rank(t.rank, ranks, files));
            offsets_.push_back(take(pos++, 1)[0]);
        }
        for (const SharedTask& t : mine_) {
            const int f = file_of_rank(t.rank, ranks, files);
            if (t.rank != first_rank_of_file(f, ranks, files)) continue;
            const auto ntasks = static_cast<std::size_t>(first_rank_of_file(f + 1, ranks, files) - t.rank);
            headers_.emplace(f, plan_file_of_tasks(f, files, t.rank, take(pos, ntasks), spec.block_size, prefix));
            pos += ntasks;
        }
    });
    try {
        // META1 first, by the owner; then the others open what the owner made.
        run_collectively(comm, [&] {
            for (const auto& [f, header] : headers_) {
                if (!owns(f)) continue;
                File file = File::create(spec_.dir, tmp_name(f));
                file.write_all_at(encode_header(header), 0);
                open_.emplace(f, std::move(file));
            }
        });
        run_collectively(comm, [&] {
            for (int f : file_of_) {
                if (open_.count(f) == 0) open_.emplace(f, File::open_update(spec_.dir, tmp_name(f)));
            }
        });
    } catch (...) {
        open_.clear();
        for (const auto& entry : headers_) spec_.dir.remove(tmp_name(entry.first));
        throw;
    }
}

ContainerSharedFile::~ContainerSharedFile() {
    direct_.clear();
    if (committed_) return;
    open_.clear();
    for (const auto& entry : headers_) spec_.dir.remove(tmp_name(entry.first));
}

std::string ContainerSharedFile::final_name(int file) const {
    return shared_file_name(spec_.ckpt_id, IoMode::container, file);
}

std::string ContainerSharedFile::tmp_name(int file) const {
    return final_name(file) + ".tmp";
}

std::string ContainerSharedFile::file_name(std::size_t t) const {
    return final_name(file_of_.at(t));
}

std::vector<fs::path> ContainerSharedFile::paths() const {
    std::set<int> known(file_of_.begin(), file_of_.end());
    for (const auto& entry : headers_) known.insert(entry.first);
    std::vector<fs::path> out;
    for (int f : known) out.push_back(spec_.dir.path_of(final_name(f)));
    return out;
}

void ContainerSharedFile::write_at(std::size_t t, std::uint64_t pos, std::span<const std::byte> data) {
    const int f = file_of_[t];
    auto it = direct_.find(f);
    if (it == direct_.end()) {
        // Staging no larger than what this process writes into the file
        // (and a block for an unaligned start): small checkpoints keep
        // small buffers.
        std::uint64_t bytes = kDirectAlign;
        for (std::size_t i = 0; i < mine_.size(); ++i) bytes += file_of_[i] == f ? mine_[i].size : 0;
        const auto staging =
            static_cast<std::size_t>(std::min<std::uint64_t>(kDirectStaging, align_up(bytes, kDirectAlign)));
        it = direct_.try_emplace(f, open_.at(f), staging).first;
    }
    it->second.write_at(data, offsets_[t] + pos);
}

// The owner of each file writes META2, and the mapping into file 0 of a
// multi-file container. Called once the processes agreed that every task
// wrote all its bytes: what each task wrote is its size.
void ContainerSharedFile::write_tails() {
    run_collectively(comm_, [&] {
        for (const auto& [f, header] : headers_) {
            std::vector<std::uint64_t> written(header.sizes.begin(), header.sizes.end());
            std::vector<std::byte> tail = encode_tail(tail_for(header, written));
            if (f == 0 && spec_.files > 1) {
                std::vector<std::byte> mapping = encode_mapping(spec_.ranks, spec_.files);
                tail.insert(tail.end(), mapping.begin(), mapping.end());
            }
            File& file = open_.at(f);
            file.write_all_at(tail, static_cast<std::uint64_t>(header.start_of_varheader));
            file.sync();
            file.close();
        }
    });
}

void ContainerSharedFile::commit() {
    direct_.clear();
    std::exception_ptr failure = outcome();
    try {
        // Each process makes its own chunks durable; owners keep their
        // descriptor open for META2.
        for (auto& [f, file] : open_) {
            file.sync();
            if (!owns(f)) file.close();
        }
    } catch (...) {
        if (!failure) failure = std::current_exception();
    }
    if (!failure && spec_.before_commit) spec_.before_commit();
    agree(comm_, failure);
    write_tails();
    run_collectively(comm_, [&] {
        for (const auto& entry : headers_) {
            if (owns(entry.first)) spec_.dir.rename(tmp_name(entry.first), final_name(entry.first));
        }
        if (!headers_.empty()) spec_.dir.sync();
    });
    open_.clear();
    committed_ = true;
}

}  // namespace mlckpt::core
