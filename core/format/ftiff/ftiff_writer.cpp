#include "format/ftiff/ftiff_writer.hpp"

#include <chrono>

namespace mlckpt::core {

FtiffWriter::FtiffWriter(File file, ftiff::Layout layout, Sizes sizes)
    : writer_(std::move(file), std::move(layout)), sizes_(sizes) {
    record_.file = writer_.file().path().filename().string();
}

void FtiffWriter::add(int id, std::span<const std::byte> data, const std::string& name) {
    writer_.add(id, data);
    VarRecord var;
    var.id = id;
    var.size = data.size();
    var.name = name;  // offset and CRC stay 0: the file's chunk records locate and check the data
    record_.vars.push_back(std::move(var));
}

FileRecord FtiffWriter::finish() {
    auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                   .count();
    ftiff::Writer::Result r = writer_.finish(sizes_.max_fs, sizes_.pt_fs, now);
    record_.size = static_cast<std::uint64_t>(r.fb.fs);
    record_.crc32 = r.crc32;
    record_.complete = true;
    return record_;
}

}  // namespace mlckpt::core
