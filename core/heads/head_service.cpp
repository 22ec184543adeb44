#include "heads/head_service.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include "levels/redundancy.hpp"
#include "log/fti_messages.hpp"
#include "mpi/collective.hpp"
#include "store/checkpoint_store.hpp"
#include "store/retirement.hpp"
#include "store/shared_l4.hpp"

namespace mlckpt::core {

std::pair<std::size_t, std::string> HeadService::next_request() {
    const auto& apps = ctx_.topo.node_app_world_ranks;
    auto index_of = [&](int rank) {
        return static_cast<std::size_t>(std::find(apps.begin(), apps.end(), rank) - apps.begin());
    };
    // A head has its core to itself: it polls, backing off to 1 ms. It
    // waits for the application, which computes between checkpoints for as
    // long as it likes: no bound.
    std::chrono::microseconds pause(20);
    for (;;) {
        answer_roll_calls();
        if (staging_) staging_->forward();
        int ready = 0;
        MPI_Status status;
        check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, ctx_.config.general_tag, world_, &ready, &status), "MPI_Iprobe");
        if (ready) {
            int source = 0;
            std::string text = receive_text(world_, status.MPI_SOURCE, ctx_.config.general_tag, &source);
            std::size_t index = index_of(source);
            if (index < apps.size()) return {index, std::move(text)};
            continue;  // not one of this node's ranks
        }
        check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, ctx_.config.final_tag, application_, &ready, &status), "MPI_Iprobe");
        if (ready) {
            int token = 0;
            recv(&token, 1, MPI_INT, status.MPI_SOURCE, ctx_.config.final_tag, application_, "FTI_ENDW");
            std::size_t index = index_of(status.MPI_SOURCE);
            if (index >= apps.size()) continue;
            if (token != kEndOfWork) {
                ctx_.log.warning("rank " + std::to_string(status.MPI_SOURCE) + " sent " + std::to_string(token) +
                                 " on final_tag " + std::to_string(ctx_.config.final_tag) +
                                 " where FTI_ENDW (995) ends its work; taken as FTI_ENDW");
            }
            return {index, "ENDW"};
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(1000));
    }
}

void HeadService::run() {
    Activity idle("a head, idle between checkpoints");
    const auto& apps = ctx_.topo.node_app_world_ranks;
    std::vector<std::string> posts(apps.size());
    std::vector<bool> ended(apps.size(), false);
    std::size_t waiting = 0;
    std::size_t ended_count = 0;
    bool released = false;  // by FTI_ENDW
    while (ended_count < apps.size()) {
        auto [index, text] = next_request();
        if (staging_ && staging_->accept(apps[index], text)) continue;
        if (text == "FINALIZE" || text == "ENDW") {
            if (staging_) staging_->ended(apps[index]);
            released = released || text == "ENDW";
            if (!ended[index]) ++ended_count;
            ended[index] = true;
            continue;
        }
        posts[index] = std::move(text);
        if (++waiting < apps.size()) continue;
        const Verdict verdict = process(posts);
        for (int app : apps) {
            send(&verdict.level, 1, MPI_INT, app, ctx_.config.general_tag, application_, "the head's verdict");
            if (verdict.level == kHeadFailed) send_text(world_, verdict.reason, app, ctx_.config.stage_tag);
        }
        waiting = 0;
    }
    if (staging_) staging_->finish();
    // FTI's programs end a run without FTI_Finalize by an MPI_Barrier on
    // their communicator after FTI_ENDW, which the heads join.
    // Blocking: it must match the application's MPI_Barrier, which a
    // nonblocking barrier does not.
    if (released) check_mpi(MPI_Barrier(application_), "MPI_Barrier");
}

HeadService::Verdict HeadService::process(const std::vector<std::string>& posts) {
    Activity working("a head, post-processing a checkpoint");
    std::vector<FileRecord> data;
    CheckpointRef ref;
    std::vector<FileRecord> mine;
    std::vector<CheckpointRef> retired;  // what the checkpoint supersedes
    try {
        run_collectively(heads_, [&] {
            for (const std::string& post : posts) {
                auto nl = post.find('\n');
                std::istringstream head(post.substr(0, nl));
                std::string word;
                head >> word >> ref;
                if (word != "POST" || !head || nl == std::string::npos) {
                    fail(ErrorKind::mpi, "malformed request to the head");
                }
                retired.clear();  // every rank of the node sends the same
                for (CheckpointRef r; head >> r;) retired.push_back(r);
                data.push_back(parse_file_record(post.substr(nl + 1), "request to the head"));
            }
            const LevelDescriptor& level = ctx_.levels[ref.level];
            if (is_global(ref.level) && is_shared(level.format)) return;  // below, collectively
            for (std::size_t i = 0; i < data.size(); ++i) {
                if (is_global(ref.level)) {
                    CheckpointRef local{ref.seq, level.committed_at, ref.ckpt_id, ref.own_dir};
                    mine.push_back(copy_for_level(ctx_, ctx_.data_path_for(local, data[i].rank, ctx_.topo.node_id),
                                                  ctx_.layout.make_dir(ctx_.layout.ckpt_dir(ref, 0)), data[i],
                                                  ctx_.levels[local.level].format, local.level, ref.level));
                    continue;
                }
                GroupMember m = head_member(ctx_.topo, sector_, static_cast<int>(i));
                mine.push_back(data[i]);
                mine.push_back(
                    redundancy_of(ctx_.levels[ref.level].redundancy)->write(ctx_.redundancy_io(), m, ref, data[i]));
            }
        });
        if (is_global(ref.level) && is_shared(ctx_.levels[ref.level].format)) {
            // The heads write the node's ranks' L1 files into one shared file.
            std::vector<std::pair<FileRecord, fs::path>> sources;
            for (const FileRecord& r : data) {
                sources.emplace_back(
                    r, ctx_.data_path_for({ref.seq, ctx_.levels[ref.level].committed_at, ref.ckpt_id, ref.own_dir},
                                          r.rank, ctx_.topo.node_id));
            }
            mine = flush_into_shared_file(ctx_, heads_, ref, sources);
        }
        commit_metadata(ctx_, heads_, ref, mine, ctx_.levels[ref.level].format);
        ctx_.log.debug(fti_messages::node_flag(ctx_.topo.node_id, ref.level));
        // Before the verdict, as FTI's heads: a program that reads it and
        // ends finds only the newer checkpoint's files.
        retire_checkpoints(ctx_, retired, head_retirers(ctx_, heads_), ctx_.catalog);
        return {ref.level, {}};
    } catch (const Error& e) {
        if (!e.remote()) ctx_.log.warning(std::string("post-processing by the head failed: ") + e.what());
        return {kHeadFailed, e.what()};
    }
}

}  // namespace mlckpt::core
