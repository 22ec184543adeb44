#include "all_configuration.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <string>

namespace mlckpt::capi {

namespace {

using core::Config;
using core::Context;
using core::Topology;

template <std::size_t N>
void put(char (&to)[N], const std::string& text) {
    std::snprintf(to, N, "%s", text.c_str());  // truncated like FTI's FTI_BUFS copies
}

int clamp_int(long long v) {
    return static_cast<int>(std::clamp<long long>(v, INT_MIN, INT_MAX));
}

void fill_configuration(FTIT_configuration& c, const Context& ctx) {
    const Config& cfg = ctx.config;
    const bool ftiff = cfg.ckpt_io == core::IoMode::ftiff;
    // FTI has two differential engines, one per format; mlckpt's works
    // with every ckpt_io, so one of the two flags is set whenever dCP is on.
    c.dcpFtiff = cfg.enable_dcp && ftiff;
    c.dcpPosix = cfg.enable_dcp && !ftiff;
    c.keepL4Ckpt = cfg.keep_l4_ckpt;
    c.keepHeadsAlive = cfg.keep_heads_alive;
    c.dcpMode = 2000 + cfg.dcp_mode_value;
    c.dcpBlockSize = cfg.dcp_block_size;
    put(c.cfgFile, cfg.path);
    c.saveLastCkpt = cfg.keep_last_ckpt ? 1 : 0;
    c.verbosity = cfg.verbosity;
    c.blockSize = clamp_int(static_cast<long long>(cfg.block_size_kb) * 1024);
    c.transferSize = clamp_int(static_cast<long long>(cfg.transfer_size_mb) * 1024 * 1024);
    c.maxVarId = cfg.max_var_id;
    c.ckptTag = cfg.ckpt_tag;
    c.stageTag = cfg.stage_tag;
    c.finalTag = cfg.final_tag;
    c.generalTag = cfg.general_tag;
    c.test = cfg.local_test ? 1 : 0;
    c.l3WordSize = 8;  // ISA-L's Reed-Solomon works on bytes (FTI's Jerasure: 16-bit words)
    c.ioMode = 1000 + static_cast<int>(cfg.ckpt_io);
    put(c.localDir, ctx.layout.node_exec_dir(ctx.topo.node_id).string());
    put(c.glbalDir, ctx.layout.global_exec_dir().string());
    put(c.metadDir, ctx.layout.meta_exec_dir().string());
    put(c.suffix, "fti");
    c.stagingEnabled = cfg.enable_staging;
    c.h5SingleFileEnable = cfg.h5_single_file_enable;
    c.h5SingleFileKeep = cfg.h5_single_file_keep;
    c.h5SingleFileIsInline = true;  // the application ranks always write the global file
    put(c.h5SingleFileDir, cfg.single_file_dir());
    put(c.h5SingleFilePrefix, cfg.h5_single_file_prefix);
    if (cfg.enable_staging) put(c.stageDir, ctx.layout.stage_dir(ctx.topo.node_id).string());
    if (c.dcpPosix) {
        c.dcpInfoPosix.digestWidth = cfg.dcp_mode == core::DcpMode::md5 ? 16 : 4;
        c.dcpInfoPosix.BlockSize = static_cast<uint32_t>(cfg.dcp_block_size);
    }
}

void fill_execution(FTIT_execution& e, const core::Session& s) {
    const Context& ctx = s.context();
    put(e.id, ctx.layout.exec_id());
    e.reco = s.recovery().status();
    if (e.reco == 3) put(e.h5SingleFileReco, s.global_restart_file().string());
    if (const core::CheckpointRef* newest = ctx.catalog.newest()) {
        e.hasCkpt = true;
        e.ckptLvel = std::min(newest->level, 4);  // an L4 differential checkpoint is an L4 one
        e.lastCkptLvel = e.ckptLvel;
        e.ckptId = static_cast<unsigned int>(newest->ckpt_id);
    }
    e.syncIterMax = ctx.config.max_sync_intv;
    e.nbVar = static_cast<unsigned int>(s.registry().variables().size());
    const auto& source = s.recovery().source();
    e.nbVarStored = source ? static_cast<unsigned int>(source->record.vars.size()) : 0;
    e.ckptSize = static_cast<int32_t>(std::min<std::uint64_t>(s.registry().total_bytes(), INT32_MAX));
    e.initSCES = 1;
    // mlckpt's own communicators are not handed out.
    e.globalComm = s.global_comm();
    e.groupComm = MPI_COMM_NULL;
    e.nodeComm = MPI_COMM_NULL;
    e.fastForward = ctx.config.fast_forward;
}

void fill_topology(FTIT_topology& t, const Context& ctx) {
    const Topology& topo = ctx.topo;
    const int heads = ctx.config.head ? 1 : 0;
    t.nbProc = topo.world_size;
    t.nbNodes = topo.nodes;
    t.myRank = topo.world_rank;
    // A head's rank among the heads, which are one per node.
    t.splitRank = topo.is_head ? topo.node_id : topo.app_rank;
    t.nodeSize = ctx.config.node_size;
    t.nbHeads = heads;
    t.nbApprocs = ctx.config.node_size - heads;
    t.groupSize = ctx.config.group_size;
    t.sectorID = topo.node_id / std::max(ctx.config.group_size, 1);
    t.nodeID = topo.node_id;
    // As in FTI: the rank's place in its node, the head first.
    t.nodeRank = topo.is_head ? 0 : topo.node_index + heads;
    t.groupID = t.nodeRank;
    t.amIaHead = topo.is_head ? 1 : 0;
    t.headRank = heads ? topo.head_world_rank
                       : (topo.node_app_world_ranks.empty() ? topo.world_rank : topo.node_app_world_ranks.front());
    t.headRankNode = 0;
    t.groupRank = std::max(topo.group_rank, 0);
    t.right = (t.groupRank + 1) % std::max(t.groupSize, 1);
    t.left = (t.groupRank + t.groupSize - 1) % std::max(t.groupSize, 1);
    if (topo.is_head) {
        const std::size_t n = std::min<std::size_t>(topo.node_app_world_ranks.size(), FTI_BUFS);
        std::copy_n(topo.node_app_world_ranks.begin(), n, t.body);
    }
}

void fill_levels(FTIT_checkpoint (&levels)[5], const Context& ctx) {
    const auto& layout = ctx.layout;
    for (int level : core::kBaseLevels) {
        FTIT_checkpoint& l = levels[level];
        // The directories that hold the level's checkpoints, each in its own ckpt<seq>.
        put(l.dir, layout.level_dir(level, ctx.topo.node_id).string());
        put(l.metaDir, layout.meta_exec_dir().string());
        l.isInline = ctx.levels[level].inline_work ? 1 : 0;
        l.ckptIntv = static_cast<int>(ctx.levels[level].interval_minutes);  // whole minutes, as FTI reads them
        for (const core::CheckpointRef& ref : ctx.catalog.refs()) {
            l.hasCkpt = l.hasCkpt || ref.level == level;
            // FTI counts its differential checkpoints at L4.
            if (core::is_differential(ref.level) && core::reported_level(ref.level) == level) l.hasDcp = true;
        }
    }
    FTIT_checkpoint& l4 = levels[core::kL4];
    put(l4.dcpDir, layout.level_dir(core::kDcpLevel, 0).string());
    if (!ctx.topo.is_head)
        put(l4.dcpName, layout.data_file({0, core::kDcpLevel, 0}, ctx.rank(), 0).filename().string());
    put(l4.archDir, (layout.global_exec_dir() / "l4_archive").string());
    put(l4.archMeta, (layout.meta_exec_dir() / "archive").string());
}

}  // namespace

FTIT_allConfiguration all_configuration(const core::Session& session) {
    FTIT_allConfiguration all{};
    const Context& ctx = session.context();
    fill_configuration(all.configuration, ctx);
    fill_execution(all.execution, session);
    fill_topology(all.topology, ctx);
    fill_levels(all.checkpoint, ctx);
    const core::BitFlipInjector& injector = session.injector();
    all.injection.rank = injector.plan().rank;
    all.injection.index = injector.plan().index;
    all.injection.position = injector.plan().position;
    all.injection.number = injector.plan().number;
    all.injection.frequency = injector.plan().frequency;
    all.injection.counter = injector.count();
    all.injection.timer = injector.last();
    return all;
}

}  // namespace mlckpt::capi
