#include "levels/redundancy.hpp"

namespace mlckpt::core {

namespace {

// A kind of redundancy given by its collective functions.
class GroupFunctions final : public Redundancy {
  public:
    using WriteFn = FileRecord (*)(const RedundancyIo&, const GroupMember&, const CheckpointRef&, const FileRecord&,
                                   const MemoryContent*);
    using RepairFn = FileRecord (*)(const RedundancyIo&, const GroupMember&, const CheckpointMeta&,
                                    const CheckpointRef&, const Holdings&);

    using LossFn = std::optional<std::string> (*)(const GroupView&, const std::vector<Holdings>&);

    GroupFunctions(WriteFn write_fn, RepairFn repair_fn, LossFn loss_fn, bool checks_data_crc, const char* name)
        : write_(write_fn), repair_(repair_fn), loss_(loss_fn), checks_data_crc_(checks_data_crc), name_(name) {}

    FileRecord write(const RedundancyIo& io, const GroupMember& m, const CheckpointRef& ref, const FileRecord& data,
                     const MemoryContent* content) const override {
        return write_(io, m, ref, data, content);
    }
    FileRecord repair(const RedundancyIo& io, const GroupMember& m, const CheckpointMeta& meta,
                      const CheckpointRef& ref, const Holdings& held) const override {
        return repair_(io, m, meta, ref, held);
    }
    std::optional<std::string> loss_beyond_repair(const GroupView& g,
                                                  const std::vector<Holdings>& held) const override {
        return loss_(g, held);
    }
    bool checks_data_crc() const override { return checks_data_crc_; }
    const char* name() const override { return name_; }

  private:
    WriteFn write_;
    RepairFn repair_;
    LossFn loss_;
    bool checks_data_crc_;
    const char* name_;
};

}  // namespace

const Redundancy* redundancy_of(const RedundancyScheme& scheme) {
    // A partner copy is checked against its file's CRC-32; parity has nothing to check it against.
    static const GroupFunctions partner_copy(write_partner_copy, repair_partner_copies, partner_copy_loss, true,
                                             redundancy_name(GroupRedundancy::partner_copy));
    static const GroupFunctions parity(write_parity, repair_parity, parity_loss, false,
                                       redundancy_name(GroupRedundancy::reed_solomon));
    switch (scheme.kind) {
        case GroupRedundancy::partner_copy:
            return &partner_copy;
        case GroupRedundancy::reed_solomon:
            return scheme.set_failures > 0 ? set_parity(scheme.set_failures) : &parity;
        case GroupRedundancy::none:
            break;
    }
    return nullptr;
}

const Redundancy* redundancy_of(const CheckpointMeta& meta) {
    return redundancy_of(RedundancyScheme{redundancy_kind(meta.level), meta.set_failures});
}

}  // namespace mlckpt::core
