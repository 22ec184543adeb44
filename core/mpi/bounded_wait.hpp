// Every wait of the library on another rank ends. A rank that has waited
// longer than the bound ([advanced] wait_timeout) asks the ranks it waits
// for where they are (a roll call), prints which peer and which step it
// waited for and what the peers answered, and aborts the job: a hung job
// would hold its allocation until the scheduler kills it, with nothing to
// say why.
//
// Ranks answer roll calls whenever they wait inside the library, including
// the waits that have no bound (a head idle between checkpoints). A rank
// that does not answer is not inside the library: computing, blocked in the
// application, or gone.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "common/wait_bound.hpp"

namespace mlckpt::core {

// Seconds; 0 means no bound. Set from the configuration at FTI_Init;
// kDefaultWaitBoundSeconds before.
void set_wait_bound(int seconds);
int wait_bound();

// The communicator roll calls travel on: a duplicate of the communicator
// given to FTI_Init, whose ranks the reports name. MPI_COMM_NULL: none
// (the report then names the step only).
void set_roll_call_comm(MPI_Comm comm);

// The roll-call communicator of a session, for its lifetime.
class RollCall {
  public:
    explicit RollCall(MPI_Comm global);  // collective over `global`
    ~RollCall();
    RollCall(const RollCall&) = delete;
    RollCall& operator=(const RollCall&) = delete;

  private:
    MPI_Comm comm_ = MPI_COMM_NULL;
};

// Names what this rank is doing (an API call, a head's work) in roll-call
// answers and reports, for the scope of the object.
class Activity {
  public:
    explicit Activity(std::string what);
    ~Activity();
    Activity(const Activity&) = delete;
    Activity& operator=(const Activity&) = delete;

  private:
    std::string previous_;
};

// Marks the calling thread, for its lifetime, as a worker of the rank that
// waits on MPI beside the application's thread (MPI_THREAD_MULTIPLE): its
// waits are bounded and reported like any other, but it never answers or
// asks roll calls, which are the application thread's.
class WorkerThread {
  public:
    explicit WorkerThread(std::string what);

  private:
    Activity activity_;
};

// Whom a wait waits for: one rank of `comm`, or every other rank of it.
struct Peer {
    static constexpr int kEveryRank = -1;
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = kEveryRank;
};

enum class Bound { applies, none };

// Waits for a nonblocking MPI operation without taking a core: a short
// poll, then naps between tests (a rank done with its part would otherwise
// take the core that the late rank, or this rank's worker threads, need).
// `step` says what the wait is for ("the partner copy's size").
void wait_for(MPI_Request& request, const char* step, Peer peer, Bound bound = Bound::applies);
// Waits until a message from `source` (or MPI_ANY_SOURCE) with `tag`
// arrives on `comm`, as wait_for does; returns its status.
MPI_Status wait_for_message(MPI_Comm comm, int source, int tag, const char* step, Bound bound = Bound::applies);
// For loops that wait in their own way (a head polling for requests).
void answer_roll_calls();

// What the report says, given the answers of the ranks asked; separate so
// that it can be tested without a hang. `answers[i]` is empty when
// `asked[i]` did not answer.
std::string wait_report(int rank, double waited, const std::string& waiting_in, const std::string& waited_for,
                        const std::vector<int>& asked, const std::vector<std::string>& answers, int bound);

}  // namespace mlckpt::core
