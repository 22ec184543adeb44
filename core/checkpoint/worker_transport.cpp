#include "checkpoint/worker_transport.hpp"

#include "checkpoint/background_promotion.hpp"

namespace mlckpt::core {

void WorkerTransport::hand_over(const CheckpointRef& ref, int level, const FileRecord& record) {
    jobs_.post(promotion_job(ctx_, ref, level, record, [this, ref, level](std::exception_ptr failure) {
        completion_.promotion_settled(ref, level, failure);
    }));
}

}  // namespace mlckpt::core
