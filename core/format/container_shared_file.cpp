#include "format/container_shared_file.hpp"

#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

using namespace container;

constexpr std::size_t kDirectStaging = std::size_t{8} << 20;

}  // namespace

ContainerSharedFile::ContainerSharedFile(MPI_Comm comm, const SharedFileSpec& spec, std::vector<SharedTask> mine,
                                         const TaskTable& table)
    : SharedFile(comm, spec, std::move(mine)), table_(table) {
    MPI_Comm_rank(comm, &my_rank_);
    const int files = spec.files;
    const std::string prefix = shared_file_name(spec.ckpt_id, IoMode::container, 0);
    for (int f = 0; f < files; ++f) {
        if (owns(f)) headers_.emplace(f, plan_file(f, files, table_.sizes, spec.block_size, prefix));
    }
    for (const SharedTask& t : mine_) {
        int f = file_of_rank(t.rank, spec.ranks, files);
        auto it = headers_.try_emplace(f, plan_file(f, files, table_.sizes, spec.block_size, prefix)).first;
        Geometry geo = geometry(it->second);
        file_of_.push_back(f);
        offsets_.push_back(
            geo.chunk_offset(static_cast<std::size_t>(t.rank - first_rank_of_file(f, spec.ranks, files)), 0));
    }
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

bool ContainerSharedFile::owns(int file) const {
    int first = first_rank_of_file(file, spec_.ranks, spec_.files);
    return table_.writer[static_cast<std::size_t>(first)] == my_rank_;
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
    std::vector<fs::path> out;
    for (const auto& entry : headers_) out.push_back(spec_.dir.path_of(final_name(entry.first)));
    return out;
}

void ContainerSharedFile::write_at(std::size_t t, std::uint64_t pos, std::span<const std::byte> data) {
    const int f = file_of_[t];
    auto it = direct_.find(f);
    if (it == direct_.end()) it = direct_.try_emplace(f, open_.at(f), kDirectStaging).first;
    it->second.write_at(data, offsets_[t] + pos);
}

// The owner of each file writes META2 from the bytes every task of the file
// reports, and the mapping into file 0 of a multi-file container.
void ContainerSharedFile::write_tails() {
    std::vector<std::uint64_t> mine(static_cast<std::size_t>(spec_.ranks), 0);
    for (std::size_t t = 0; t < mine_.size(); ++t) mine[static_cast<std::size_t>(mine_[t].rank)] = written_[t];
    std::vector<std::uint64_t> written(mine.size(), 0);
    allreduce(mine.data(), written.data(), static_cast<int>(mine.size()), MPI_UINT64_T, MPI_SUM, comm_,
              "the bytes every task wrote into the container");
    run_collectively(comm_, [&] {
        for (const auto& [f, header] : headers_) {
            if (!owns(f)) continue;
            int first = first_rank_of_file(f, spec_.ranks, spec_.files);
            std::vector<std::uint64_t> of_file(written.begin() + first,
                                               written.begin() + first + static_cast<std::ptrdiff_t>(header.ntasks()));
            std::vector<std::byte> tail = encode_tail(tail_for(header, of_file));
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
