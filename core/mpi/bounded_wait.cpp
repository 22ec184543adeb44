#include "mpi/bounded_wait.hpp"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <map>
#include <thread>
#include <utility>

#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

constexpr int kAskTag = 1;
constexpr int kAnswerTag = 2;
// A roll call asks at most this many ranks: the ranks after the asker, so
// that together the waiting ranks of a large job ask everybody.
constexpr int kMostAsked = 1024;
constexpr int kAbortCode = 1;

int g_bound = kDefaultWaitBoundSeconds;
MPI_Comm g_roll = MPI_COMM_NULL;
// Per thread: a rank's worker thread (checkpoint/background_promotion) waits
// on MPI beside the application's thread.
thread_local std::string g_activity = "mlckpt";
// Roll calls are the application thread's: a worker that probed for them
// could take a question from under it.
thread_local bool g_worker_thread = false;

// The wait in progress, for the answers to roll calls.
struct CurrentWait {
    const char* step = nullptr;
    Peer peer;
};
thread_local CurrentWait g_wait;

// Answers in flight: MPI needs their buffers until they are sent.
struct Answer {
    std::string text;
    MPI_Request request = MPI_REQUEST_NULL;
};
std::list<Answer> g_answers;

int roll_rank() {
    int rank = 0;
    if (g_roll != MPI_COMM_NULL) MPI_Comm_rank(g_roll, &rank);
    return rank;
}

std::string comm_name(MPI_Comm comm) {
    char name[MPI_MAX_OBJECT_NAME] = {};
    int len = 0;
    MPI_Comm_get_name(comm, name, &len);
    return len > 0 ? std::string(name, static_cast<std::size_t>(len)) : "a communicator";
}

// The peer's ranks in the roll-call communicator, MPI_UNDEFINED where
// it has none.
std::vector<int> roll_ranks(const Peer& peer) {
    std::vector<int> out;
    if (g_roll == MPI_COMM_NULL || peer.comm == MPI_COMM_NULL) return out;
    int size = 0;
    int self = 0;
    MPI_Comm_size(peer.comm, &size);
    MPI_Comm_rank(peer.comm, &self);
    std::vector<int> ranks;
    if (peer.rank == Peer::kEveryRank) {
        for (int i = 1; i < size && static_cast<int>(ranks.size()) < kMostAsked; ++i)
            ranks.push_back((self + i) % size);
    } else if (peer.rank >= 0 && peer.rank < size) {
        ranks.push_back(peer.rank);
    }
    MPI_Group from = MPI_GROUP_NULL;
    MPI_Group to = MPI_GROUP_NULL;
    MPI_Comm_group(peer.comm, &from);
    MPI_Comm_group(g_roll, &to);
    out.resize(ranks.size(), MPI_UNDEFINED);
    MPI_Group_translate_ranks(from, static_cast<int>(ranks.size()), ranks.data(), to, out.data());
    MPI_Group_free(&from);
    MPI_Group_free(&to);
    out.erase(std::remove(out.begin(), out.end(), MPI_UNDEFINED), out.end());
    return out;
}

std::string describe(const Peer& peer) {
    if (peer.comm == MPI_COMM_NULL) return "another rank";
    int size = 0;
    MPI_Comm_size(peer.comm, &size);
    if (peer.rank == Peer::kEveryRank) {
        return size == 2 ? "the other rank of " + comm_name(peer.comm)
                         : "the other " + std::to_string(size - 1) + " ranks of " + comm_name(peer.comm);
    }
    std::vector<int> roll = roll_ranks(peer);
    std::string who = roll.empty() ? "rank " + std::to_string(peer.rank) + " of " + comm_name(peer.comm)
                                   : "rank " + std::to_string(roll.front());
    return who;
}

std::string whereabouts() {
    std::string text = g_activity;
    if (g_wait.step != nullptr) text += ", waiting for " + describe(g_wait.peer) + " (" + g_wait.step + ")";
    return text;
}

std::string receive_string(MPI_Status status) {
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    std::string text(static_cast<std::size_t>(std::max(count, 0)), '\0');
    MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, g_roll, MPI_STATUS_IGNORE);
    return text;
}

// "0-2, 5, 7": ranks in ascending order, runs shortened.
std::string rank_list(std::vector<int> ranks) {
    constexpr std::size_t kMostListed = 16;
    std::sort(ranks.begin(), ranks.end());
    std::string out;
    std::size_t runs = 0;
    std::size_t i = 0;
    for (; i < ranks.size() && runs < kMostListed; ++runs) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
        if (!out.empty()) out += ", ";
        out += std::to_string(ranks[i]);
        if (j > i) out += "-" + std::to_string(ranks[j]);
        i = j + 1;
    }
    if (i < ranks.size()) out += " and " + std::to_string(ranks.size() - i) + " more";
    return out;
}

[[noreturn]] void give_up(const char* step, const Peer& peer, double waited) {
    const std::string waiting_in = g_activity;
    const std::string waited_for = describe(peer) + " (" + step + ")";
    std::vector<int> asked = g_worker_thread ? std::vector<int>{} : roll_ranks(peer);
    std::vector<std::string> answers(asked.size());
    if (g_roll != MPI_COMM_NULL && !asked.empty()) {
        int token = 0;
        std::vector<MPI_Request> asks(asked.size(), MPI_REQUEST_NULL);
        for (std::size_t i = 0; i < asked.size(); ++i) {
            MPI_Isend(&token, 1, MPI_INT, asked[i], kAskTag, g_roll, &asks[i]);
        }
        // Long enough for a napping rank to notice; ranks that waited the
        // same bound ask each other at about the same time.
        const Seconds grace(std::clamp(g_bound / 20.0, 2.0, 30.0));
        const auto start = Clock::now();
        std::size_t answered = 0;
        while (answered < asked.size() && Clock::now() - start < grace) {
            answer_roll_calls();
            int ready = 0;
            MPI_Status status;
            MPI_Iprobe(MPI_ANY_SOURCE, kAnswerTag, g_roll, &ready, &status);
            if (ready == 0) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                continue;
            }
            std::string text = receive_string(status);
            auto it = std::find(asked.begin(), asked.end(), status.MPI_SOURCE);
            if (it == asked.end()) continue;
            std::string& slot = answers[static_cast<std::size_t>(it - asked.begin())];
            if (slot.empty()) ++answered;
            slot = text.empty() ? "mlckpt" : text;
        }
    }
    const std::string report = wait_report(roll_rank(), waited, waiting_in, waited_for, asked, answers, g_bound);
    std::fprintf(stderr, "[ FTI  Error - %06d ] : %s\n", roll_rank(), report.c_str());
    std::fflush(stderr);
    MPI_Abort(g_roll != MPI_COMM_NULL ? g_roll : MPI_COMM_WORLD, kAbortCode);
    std::_Exit(kAbortCode);  // MPI_Abort does not return; should it, the job still ends
}

// Polls `test` until it says done, as wait_for describes.
template <typename Test>
void wait_until(Test&& test, const char* step, const Peer& peer, Bound bound) {
    constexpr auto kPoll = std::chrono::milliseconds(1);
    constexpr auto kNap = std::chrono::microseconds(100);
    // Restores the outer wait also when `test` throws (an MPI error).
    struct Restore {
        CurrentWait outer;
        ~Restore() { g_wait = outer; }
    } restore{std::exchange(g_wait, CurrentWait{step, peer})};
    const auto start = Clock::now();
    while (!test()) {
        const Seconds waited = Clock::now() - start;
        if (waited < kPoll) {
            sched_yield();
            continue;
        }
        answer_roll_calls();
        if (bound == Bound::applies && g_bound > 0 && waited.count() > g_bound) give_up(step, peer, waited.count());
        std::this_thread::sleep_for(kNap);
    }
}

}  // namespace

void set_wait_bound(int seconds) {
    g_bound = std::max(seconds, 0);
}

int wait_bound() {
    return g_bound;
}

void set_roll_call_comm(MPI_Comm comm) {
    g_roll = comm;
    if (comm == MPI_COMM_NULL) g_answers.clear();
}

RollCall::RollCall(MPI_Comm global) : comm_(dup_comm(global, "mlckpt's roll calls")) {
    set_roll_call_comm(comm_);
}

RollCall::~RollCall() {
    set_roll_call_comm(MPI_COMM_NULL);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0) MPI_Comm_free(&comm_);
}

Activity::Activity(std::string what) : previous_(std::exchange(g_activity, std::move(what))) {}

Activity::~Activity() {
    g_activity = std::move(previous_);
}

WorkerThread::WorkerThread(std::string what) : activity_(std::move(what)) {
    g_worker_thread = true;
}

void answer_roll_calls() {
    if (g_roll == MPI_COMM_NULL || g_worker_thread) return;
    g_answers.remove_if([](Answer& a) {
        int done = 0;
        MPI_Test(&a.request, &done, MPI_STATUS_IGNORE);
        return done != 0;
    });
    for (;;) {
        int ready = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, kAskTag, g_roll, &ready, &status);
        if (ready == 0) return;
        int token = 0;
        MPI_Recv(&token, 1, MPI_INT, status.MPI_SOURCE, kAskTag, g_roll, MPI_STATUS_IGNORE);
        Answer& a = g_answers.emplace_back();
        a.text = whereabouts();
        MPI_Isend(a.text.data(), static_cast<int>(a.text.size()), MPI_CHAR, status.MPI_SOURCE, kAnswerTag, g_roll,
                  &a.request);
    }
}

void wait_for(MPI_Request& request, const char* step, Peer peer, Bound bound) {
    wait_until(
        [&] {
            int done = 0;
            check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), step);
            return done != 0;
        },
        step, peer, bound);
}

MPI_Status wait_for_message(MPI_Comm comm, int source, int tag, const char* step, Bound bound) {
    MPI_Status status;
    wait_until(
        [&] {
            int ready = 0;
            check_mpi(MPI_Iprobe(source, tag, comm, &ready, &status), step);
            return ready != 0;
        },
        step, Peer{comm, source == MPI_ANY_SOURCE ? Peer::kEveryRank : source}, bound);
    return status;
}

std::string wait_report(int rank, double waited, const std::string& waiting_in, const std::string& waited_for,
                        const std::vector<int>& asked, const std::vector<std::string>& answers, int bound) {
    std::string text = "rank " + std::to_string(rank) + " waited " + std::to_string(static_cast<long long>(waited)) +
                       " s in " + waiting_in + " for " + waited_for +
                       ", longer than [advanced] wait_timeout = " + std::to_string(bound) + " s allows";
    std::map<std::string, std::vector<int>> by_answer;
    std::vector<int> silent;
    for (std::size_t i = 0; i < asked.size(); ++i) {
        if (answers[i].empty()) {
            silent.push_back(asked[i]);
        } else {
            by_answer[answers[i]].push_back(asked[i]);
        }
    }
    if (!silent.empty()) {
        text += "; " + std::string(silent.size() == 1 ? "rank " : "ranks ") + rank_list(silent) +
                (silent.size() == 1 ? " does" : " do") +
                " not answer from inside mlckpt (computing, blocked in the application, or gone)";
    }
    for (const auto& [answer, ranks] : by_answer) {
        text += "; " + std::string(ranks.size() == 1 ? "rank " : "ranks ") + rank_list(ranks) + ": " + answer;
    }
    return text + "; aborting the job";
}

}  // namespace mlckpt::core
