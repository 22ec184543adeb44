#include "staging/stage_transport.hpp"

#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

class ThreadStageTransport final : public StageTransport {
  public:
    explicit ThreadStageTransport(const Context& ctx) : worker_(ctx.log) {}

    void submit(StageJob job) override { worker_.submit(std::move(job)); }

    void poll(StageRequests& requests) override {
        for (const StageEvent& e : worker_.take_events()) requests.update(e.id, e.status);
    }

    void finish(StageRequests& requests) override {
        worker_.wait();
        poll(requests);
    }

  private:
    StageWorker worker_;
};

class HeadStageTransport final : public StageTransport {
  public:
    HeadStageTransport(const Context& ctx, MPI_Comm world, MPI_Comm statuses)
        : head_(ctx.topo.head_world_rank),
          tag_(ctx.config.stage_tag),
          request_tag_(ctx.config.general_tag),
          world_(world),
          statuses_(statuses) {}

    ~HeadStageTransport() override {
        // A send still in flight keeps its buffer: MPI may still read it.
        for (Sent& s : sent_) {
            if (s.request != MPI_REQUEST_NULL) (void)s.text.release();
        }
    }

    void submit(StageJob job) override {
        // Nonblocking: the head may be busy with a checkpoint for a while.
        auto text = std::make_unique<std::string>(stage_request_text(job));
        MPI_Request request = MPI_REQUEST_NULL;
        check_mpi(
            MPI_Isend(text->data(), static_cast<int>(text->size()), MPI_CHAR, head_, request_tag_, world_, &request),
            "MPI_Isend");
        sent_.push_back({std::move(text), request});
    }

    void poll(StageRequests& requests) override {
        for (auto it = sent_.begin(); it != sent_.end();) {
            int done = 0;
            check_mpi(MPI_Test(&it->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
            it = done ? sent_.erase(it) : std::next(it);
        }
        for (;;) {
            int ready = 0;
            check_mpi(MPI_Iprobe(head_, tag_, statuses_, &ready, MPI_STATUS_IGNORE), "MPI_Iprobe");
            if (!ready) return;
            receive(requests);
        }
    }

    void finish(StageRequests& requests) override {
        poll(requests);
        while (requests.unfinished() > 0) {
            wait_for_message(statuses_, head_, tag_, "the head's report on a staged file");
            receive(requests);
        }
        for (Sent& s : sent_) wait_for(s.request, "a staging request to the head", Peer{world_, head_});
        sent_.clear();
    }

  private:
    void receive(StageRequests& requests) {
        int report[2] = {0, 0};  // id, status
        recv(report, 2, MPI_INT, head_, tag_, statuses_, "the head's report on a staged file");
        const bool known =
            report[1] >= static_cast<int>(StageStatus::active) && report[1] <= static_cast<int>(StageStatus::failed);
        if (known) requests.update(report[0], static_cast<StageStatus>(report[1]));
    }

    struct Sent {
        std::unique_ptr<std::string> text;
        MPI_Request request;
    };

    int head_;
    int tag_;
    int request_tag_;
    MPI_Comm world_;
    MPI_Comm statuses_;
    std::list<Sent> sent_;
};

}  // namespace

std::unique_ptr<StageTransport> thread_transport(const Context& ctx) {
    return std::make_unique<ThreadStageTransport>(ctx);
}

std::unique_ptr<StageTransport> head_transport(const Context& ctx, MPI_Comm world, MPI_Comm statuses) {
    return std::make_unique<HeadStageTransport>(ctx, world, statuses);
}

}  // namespace mlckpt::core
