#include "mpi/collective.hpp"

#include <climits>
#include <cstring>

namespace mlckpt::core {

void check_mpi(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    fail(ErrorKind::mpi, std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

Communicator& Communicator::operator=(Communicator&& o) noexcept {
    if (this != &o) {
        if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
        comm_ = o.comm_;
        o.comm_ = MPI_COMM_NULL;
    }
    return *this;
}

Communicator::~Communicator() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

int Communicator::rank() const {
    int r = 0;
    check_mpi(MPI_Comm_rank(comm_, &r), "MPI_Comm_rank");
    return r;
}

int Communicator::size() const {
    int s = 0;
    check_mpi(MPI_Comm_size(comm_, &s), "MPI_Comm_size");
    return s;
}

void barrier(MPI_Comm comm, const char* step) {
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Ibarrier(comm, &request), "MPI_Ibarrier");
    wait_for(request, step, {comm, Peer::kEveryRank});
}

void allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, const char* step) {
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Iallreduce(in, out, count, type, op, comm, &request), "MPI_Iallreduce");
    wait_for(request, step, {comm, Peer::kEveryRank});
}

// Not MPI_Iallgather: Open MPI's nonblocking allgather sends each rank's
// part straight to every other rank, so that every rank connects to all
// the others (a connection and its memory per rank of the job, on every
// rank). Gathered at rank 0, which talks to every rank anyway (it gathers
// the metadata), and broadcast down a tree: a rank talks to O(log N).
void allgather(const void* in, void* out, int count, MPI_Datatype type, MPI_Comm comm, const char* step) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    if (static_cast<long long>(count) * size > INT_MAX) {
        fail(ErrorKind::mpi, std::string(step) + ": more than 2^31 values in all");
    }
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Igather(in, count, type, out, count, type, 0, comm, &request), "MPI_Igather");
    wait_for(request, step, {comm, Peer::kEveryRank});
    check_mpi(MPI_Ibcast(out, count * size, type, 0, comm, &request), "MPI_Ibcast");
    wait_for(request, step, {comm, Peer::kEveryRank});
}

void allgatherv(const void* in, int count, void* out, const int* counts, const int* displs, MPI_Datatype type,
                MPI_Comm comm, const char* step) {
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Iallgatherv(in, count, type, out, counts, displs, type, comm, &request), "MPI_Iallgatherv");
    wait_for(request, step, {comm, Peer::kEveryRank});
}

void alltoallv(const void* in, const int* in_counts, const int* in_displs, void* out, const int* out_counts,
               const int* out_displs, MPI_Datatype type, MPI_Comm comm, const char* step) {
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Ialltoallv(in, in_counts, in_displs, type, out, out_counts, out_displs, type, comm, &request),
              "MPI_Ialltoallv");
    wait_for(request, step, {comm, Peer::kEveryRank});
}

void reduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
            const char* step) {
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Ireduce(in, out, count, type, op, root, comm, &request), "MPI_Ireduce");
    wait_for(request, step, {comm, Peer::kEveryRank});
}

void bcast(void* data, int count, MPI_Datatype type, int root, MPI_Comm comm, const char* step) {
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Ibcast(data, count, type, root, comm, &request), "MPI_Ibcast");
    wait_for(request, step, {comm, Peer::kEveryRank});
}

void send(const void* data, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, const char* step) {
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Isend(data, count, type, dest, tag, comm, &request), "MPI_Isend");
    wait_for(request, step, {comm, dest});
}

void recv(void* data, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, const char* step) {
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Irecv(data, count, type, source, tag, comm, &request), "MPI_Irecv");
    wait_for(request, step, {comm, source == MPI_ANY_SOURCE ? Peer::kEveryRank : source});
}

void sendrecv(const void* out, int out_count, int dest, void* in, int in_count, int source, MPI_Datatype type, int tag,
              MPI_Comm comm, const char* step) {
    // The receive first: the message it waits for may already be there.
    MPI_Request receiving = MPI_REQUEST_NULL;
    MPI_Request sending = MPI_REQUEST_NULL;
    check_mpi(MPI_Irecv(in, in_count, type, source, tag, comm, &receiving), "MPI_Irecv");
    check_mpi(MPI_Isend(out, out_count, type, dest, tag, comm, &sending), "MPI_Isend");
    if (source != MPI_PROC_NULL) wait_for(receiving, step, {comm, source});
    if (dest != MPI_PROC_NULL) wait_for(sending, step, {comm, dest});
    // MPI_PROC_NULL operations complete at once; they still end here.
    check_mpi(MPI_Wait(&receiving, MPI_STATUS_IGNORE), "MPI_Wait");
    check_mpi(MPI_Wait(&sending, MPI_STATUS_IGNORE), "MPI_Wait");
}

MPI_Comm dup_comm(MPI_Comm comm, const char* name) {
    barrier(comm, "every rank before a communicator is duplicated");
    MPI_Comm out = MPI_COMM_NULL;
    check_mpi(MPI_Comm_dup(comm, &out), "MPI_Comm_dup");
    MPI_Comm_set_name(out, name);
    return out;
}

MPI_Comm split_comm(MPI_Comm comm, int color, int key, const char* name) {
    barrier(comm, "every rank before a communicator is split");
    MPI_Comm out = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split(comm, color, key, &out), "MPI_Comm_split");
    if (out != MPI_COMM_NULL) MPI_Comm_set_name(out, name);
    return out;
}

std::string agreed_message(int rank, int first, const std::string& message, const std::string& own) {
    if (rank == first) return message;
    // A nested step agreed before: the first failing rank may hand back this
    // rank's own message with this rank's prefix, which would blame itself.
    const std::string own_prefix = "on rank " + std::to_string(rank) + ": ";
    if (!own.empty() && message == own_prefix + own) return own;
    if (message.rfind("on rank ", 0) == 0) return message;
    return "on rank " + std::to_string(first) + ": " + message;
}

void agree(MPI_Comm comm, std::exception_ptr failure) {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::string message;
    int kind = static_cast<int>(ErrorKind::io);
    if (failure) {
        try {
            std::rethrow_exception(failure);
        } catch (const Error& e) {
            message = e.what();
            kind = static_cast<int>(e.kind());
        } catch (const std::exception& e) {
            message = e.what();
        } catch (...) {
            message = "unknown error";
        }
    }
    int mine = failure ? rank : INT_MAX;
    int first = INT_MAX;
    allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, "agreeing on the outcome of a step");
    if (first == INT_MAX) return;
    bcast(&kind, 1, MPI_INT, first, comm, "the kind of a failure");
    const std::string own = message;
    message = bcast_string(comm, message, first);
    throw Error(static_cast<ErrorKind>(kind), agreed_message(rank, first, message, own), rank != first);
}

void run_collectively(MPI_Comm comm, const std::function<void()>& step) {
    std::exception_ptr failure;
    try {
        step();
    } catch (...) {
        failure = std::current_exception();
    }
    agree(comm, failure);
}

std::string bcast_string(MPI_Comm comm, const std::string& value, int root) {
    unsigned long long len = value.size();
    bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, root, comm, "a text's length");
    std::string out = value;
    out.resize(len);
    // Broadcast in pieces below INT_MAX bytes.
    for (unsigned long long done = 0; done < len;) {
        int piece = static_cast<int>(std::min<unsigned long long>(len - done, 1ULL << 30));
        bcast(out.data() + done, piece, MPI_CHAR, root, comm, "a text");
        done += static_cast<unsigned long long>(piece);
    }
    return out;
}

namespace {

// Fills `displs` for strings of `lens` bytes laid end to end; their total,
// which MPI's int counts bound to 2 GiB.
std::size_t concatenated_size(const std::vector<int>& lens, std::vector<int>& displs, const std::string& what) {
    displs.assign(lens.size(), 0);
    long long total = 0;
    for (std::size_t i = 0; i < lens.size(); ++i) {
        displs[i] = static_cast<int>(total);
        total += lens[i];
        if (total > INT_MAX) fail(ErrorKind::mpi, what + " exceed 2 GiB");
    }
    return static_cast<std::size_t>(total);
}

std::vector<std::string> split_at(const std::string& all, const std::vector<int>& lens,
                                  const std::vector<int>& displs) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < lens.size(); ++i) {
        out.push_back(all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lens[i])));
    }
    return out;
}

}  // namespace

std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& value, int root) {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int len = static_cast<int>(value.size());
    std::vector<int> lens(rank == root ? static_cast<std::size_t>(size) : 0);
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Igather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, comm, &request), "MPI_Igather");
    wait_for(request, "the lengths of every rank's text", {comm, Peer::kEveryRank});
    std::vector<int> displs;
    std::string all(concatenated_size(lens, displs, "the metadata of all ranks"), '\0');
    check_mpi(MPI_Igatherv(value.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, root, comm,
                           &request),
              "MPI_Igatherv");
    wait_for(request, "every rank's text", {comm, Peer::kEveryRank});
    return split_at(all, lens, displs);
}

std::string scatter_strings(MPI_Comm comm, const std::vector<std::string>& values, int root) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::vector<int> lens;
    std::vector<int> displs;
    std::string all;
    if (rank == root) {
        unsigned long long total = 0;
        for (const std::string& v : values) total += v.size();
        // MPI's counts are int: a root with more says so to every rank (length -1) instead of leaving them waiting.
        for (const std::string& v : values) lens.push_back(total > INT_MAX ? -1 : static_cast<int>(v.size()));
        if (total <= INT_MAX) {
            all.reserve(concatenated_size(lens, displs, "the texts to scatter"));
            for (const std::string& v : values) all += v;
        }
    }
    int len = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Iscatter(lens.data(), 1, MPI_INT, &len, 1, MPI_INT, root, comm, &request), "MPI_Iscatter");
    wait_for(request, "the length of each rank's text", {comm, Peer::kEveryRank});
    if (len < 0) fail(ErrorKind::mpi, "the texts to scatter from rank " + std::to_string(root) + " exceed 2 GiB");
    std::string mine(static_cast<std::size_t>(len), '\0');
    check_mpi(MPI_Iscatterv(all.data(), lens.data(), displs.data(), MPI_CHAR, mine.data(), len, MPI_CHAR, root, comm,
                            &request),
              "MPI_Iscatterv");
    wait_for(request, "each rank's text", {comm, Peer::kEveryRank});
    return mine;
}

namespace {

std::string as_bytes(const std::vector<std::uint64_t>& values) {
    std::string out(values.size() * sizeof(std::uint64_t), '\0');
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
}

std::vector<std::uint64_t> as_values(const std::string& bytes) {
    if (bytes.size() % sizeof(std::uint64_t) != 0) {
        fail(ErrorKind::mpi, "received " + std::to_string(bytes.size()) + " bytes, not a whole number of values");
    }
    std::vector<std::uint64_t> out(bytes.size() / sizeof(std::uint64_t));
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

}  // namespace

std::vector<std::vector<std::uint64_t>> gather_values(MPI_Comm comm, const std::vector<std::uint64_t>& value,
                                                      int root) {
    std::vector<std::vector<std::uint64_t>> out;
    for (const std::string& part : gather_strings(comm, as_bytes(value), root)) out.push_back(as_values(part));
    return out;
}

std::vector<std::uint64_t> scatter_values(MPI_Comm comm, const std::vector<std::vector<std::uint64_t>>& values,
                                          int root) {
    std::vector<std::string> parts;
    parts.reserve(values.size());
    for (const std::vector<std::uint64_t>& v : values) parts.push_back(as_bytes(v));
    return as_values(scatter_strings(comm, parts, root));
}

std::vector<std::string> allgather_strings(MPI_Comm comm, const std::string& value) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    int len = static_cast<int>(value.size());
    std::vector<int> lens(static_cast<std::size_t>(size));
    allgather(&len, lens.data(), 1, MPI_INT, comm, "the lengths of the group's texts");
    std::vector<int> displs;
    std::string all(concatenated_size(lens, displs, "the texts of the group"), '\0');
    allgatherv(value.data(), len, all.data(), lens.data(), displs.data(), MPI_CHAR, comm, "the group's texts");
    return split_at(all, lens, displs);
}

}  // namespace mlckpt::core
