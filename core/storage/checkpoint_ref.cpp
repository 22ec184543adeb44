#include "storage/checkpoint_ref.hpp"

#include <istream>
#include <ostream>

namespace mlckpt::core {

std::ostream& operator<<(std::ostream& out, const CheckpointRef& ref) {
    return out << ref.seq << ' ' << ref.level << ' ' << ref.ckpt_id << ' ' << (ref.own_dir ? 1 : 0);
}

std::istream& operator>>(std::istream& in, CheckpointRef& ref) {
    int own = 0;
    if (in >> ref.seq >> ref.level >> ref.ckpt_id >> own) ref.own_dir = own != 0;
    return in;
}

}  // namespace mlckpt::core
