#include "scr/scr_session.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>

#include "checkpoint/level_work.hpp"
#include "common/fault_injection.hpp"
#include "common/plural.hpp"
#include "io/file.hpp"
#include "levels/redundancy.hpp"
#include "store/checkpoint_store.hpp"
#include "store/rank_meta.hpp"

namespace mlckpt::core {

namespace {

Config engine_config(const ScrSettings& s, int group_size) {
    Config c;
    c.path = s.user_file.empty() ? std::string("the SCR parameters") : s.user_file;
    c.head = false;
    c.local_test = s.node_size > 0;
    c.node_size = s.node_size;
    c.ckpt_dir = s.cache_base;
    c.glbl_dir = s.prefix;
    c.meta_dir = s.prefix;
    c.group_size = group_size;
    // RS: Reed-Solomon sets; a set of n nodes survives at most n - 1 lost.
    if (s.copy_type == "RS") c.l3_failures = std::max(0, std::min(s.set_failures, group_size - 1));
    c.verbosity = s.debug > 0 ? 1 : 2;
    c.exec_id = kScrPrefixDir;
    c.wait_timeout = s.wait_timeout;
    return c;
}

// Ranks per node when the nodes are real: the ranks that share this host.
int ranks_on_this_host(MPI_Comm world) {
    MPI_Comm host = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
    int size = 0;
    MPI_Comm_size(host, &size);
    MPI_Comm_free(&host);
    int most = 0;
    allreduce(&size, &most, 1, MPI_INT, MPI_MAX, world, "the ranks per host");
    return most;
}

// The largest set size from SCR_SET_SIZE down to 2 that divides the nodes,
// or 0 when none does.
int usable_set_size(int wanted, int nodes) {
    for (int g = std::min(wanted, nodes); g >= 2; --g) {
        if (nodes % g == 0) return g;
    }
    return 0;
}

bool in_prefix(const fs::path& dir, const fs::path& prefix) {
    auto [p, d] = std::mismatch(prefix.begin(), prefix.end(), dir.begin(), dir.end());
    return p == prefix.end();
}

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

ScrSession::ScrSession(ScrSettings settings, MPI_Comm world, fs::path cwd)
    : settings_(std::move(settings)),
      cwd_(std::move(cwd)),
      world_(dup_comm(world, "the library's duplicate of MPI_COMM_WORLD")),
      ctx_([&] {
          ScrSettings& s = settings_;
          if (s.node_size == 0) s.node_size = ranks_on_this_host(world_.get());
          Context ctx = make_context(engine_config(s, s.set_size), world_.get());
          if (has_group_redundancy(s.copy_level) && !s.cache_bypass && !ctx.topo.groups_valid) {
              const int g = usable_set_size(s.set_size, ctx.topo.nodes);
              if (g == 0) {
                  s.warnings.push_back("SCR_COPY_TYPE=" + s.copy_type + " needs at least 2 nodes, the run has " +
                                       plural(static_cast<std::size_t>(ctx.topo.nodes), "node") +
                                       ": datasets are kept as SINGLE");
                  s.copy_level = kL1;
              } else {
                  return make_context(engine_config(s, g), world_.get());
              }
          }
          return ctx;
      }()),
      datasets_(ctx_) {
    ctx_.log.set_tag("SCR");
    ctx_.restart_recorded = true;  // there is no configuration file to record a restart in
    const int failures = ctx_.levels[settings_.copy_level].redundancy.set_failures;
    if (failures > 0 && failures < settings_.set_failures) {
        settings_.warnings.push_back("SCR_SET_FAILURES=" + std::to_string(settings_.set_failures) + ": a set of " +
                                     std::to_string(ctx_.topo.group_size) + " nodes survives at most " +
                                     std::to_string(failures) + " lost; RS sets survive " + std::to_string(failures));
    }
    init();
}

ScrSession::~ScrSession() = default;

void ScrSession::init() {
    comms_ = open_app_communicators(ctx_, world_.get());
    if (ctx_.rank() == 0) {
        for (const std::string& w : settings_.warnings) ctx_.log.warning(w);
    }
    // No <prefix>/.scr: a fresh start, as SCR makes one when its user removed
    // it. Nothing the cache still holds for this prefix is restarted from:
    // copies of metadata kept beside cached data are not restored, and the
    // cached datasets are removed as uncommitted.
    int fresh = 0;
    if (ctx_.rank() == 0) {
        std::error_code ec;
        fresh = fs::exists(ctx_.layout.meta_exec_dir(), ec) ? 0 : 1;
        if (fresh != 0 && fs::is_directory(fs::path(settings_.prefix) / ".mlckpt", ec)) {
            ctx_.log.warning("'" + (fs::path(settings_.prefix) / ".mlckpt").string() +
                             "' is the directory of an older mlckpt version; its datasets are not read (they are in '" +
                             ctx_.layout.meta_exec_dir().string() + "' now)");
        }
    }
    bcast(&fresh, 1, MPI_INT, 0, ctx_.app, "whether the prefix has a .scr directory");
    run_collectively(ctx_.app, [&] {
        if (!settings_.cache_bypass) {
            ensure_writable_dir(settings_.cache_base, ctx_.layout.node_exec_dir(ctx_.topo.node_id), "SCR_CACHE_BASE",
                                ctx_.rank());
        }
        if (ctx_.rank() == 0) ensure_writable_dir(settings_.prefix, ctx_.layout.meta_exec_dir(), "SCR_PREFIX", 0);
    });
    load_catalog_and_clean(ctx_, fresh == 0);
    datasets_.load();
    if (!settings_.current.empty()) {
        // As SCR: a name that is no dataset is a warning, and the restart
        // goes on from the newest checkpoint.
        if (datasets_.find(settings_.current) != nullptr) {
            set_current(settings_.current);
        } else if (ctx_.rank() == 0) {
            ctx_.log.warning("SCR_CURRENT names '" + settings_.current + "', which is no dataset of the prefix '" +
                             settings_.prefix + "'; the restart considers every checkpoint, newest first");
        }
    }
    last_checkpoint_end_ = now_seconds();
    ctx_.log.info("mlckpt " + std::string("SCR interface: ") + plural(ctx_.topo.app_size, "rank") + " on " +
                  plural(ctx_.topo.nodes, "node") + ", prefix '" + settings_.prefix + "', " +
                  (settings_.cache_bypass ? std::string("cache bypassed") : "datasets cached as " + copy_type_name()) +
                  ", " + std::to_string(datasets_.all().size()) + " committed cop" +
                  (datasets_.all().size() == 1 ? "y" : "ies") + " of datasets found");
}

std::string ScrSession::copy_type_name() const {
    switch (redundancy_kind(cache_level())) {
        case GroupRedundancy::none:
            return "SINGLE";
        case GroupRedundancy::partner_copy:
            return "PARTNER";
        case GroupRedundancy::reed_solomon:
            break;
    }
    return settings_.copy_type;  // XOR or RS, as the application named it
}

int ScrSession::cache_level() const {
    return settings_.cache_bypass ? kL4 : settings_.copy_level;
}

void ScrSession::require_phase(Phase phase, const char* call) const {
    if (finalized_) fail(ErrorKind::usage, std::string(call) + " after SCR_Finalize");
    if (phase_ == phase) return;
    const char* now = phase_ == Phase::output    ? "an output phase (call SCR_Complete_output first)"
                      : phase_ == Phase::restart ? "a restart phase (call SCR_Complete_restart first)"
                                                 : "no output or restart phase";
    fail(ErrorKind::usage, std::string(call) + " is not allowed in " + now);
}

void ScrSession::start_output(const std::string& requested, int flags) {
    require_phase(Phase::idle, "SCR_Start_output");
    run_collectively(ctx_.app, [&] {
        if (flags <= 0 || (flags & ~(kScrCheckpoint | kScrOutput)) != 0) {
            fail(ErrorKind::usage,
                 "flags = " + std::to_string(flags) + "; allowed: SCR_FLAG_CHECKPOINT, SCR_FLAG_OUTPUT or both");
        }
        if (requested.size() >= 1024 || requested.find('\n') != std::string::npos) {
            fail(ErrorKind::usage, "the dataset name must be one line of fewer than SCR_MAX_FILENAME (1024) bytes");
        }
    });
    const std::string text = requested + '\n' + std::to_string(flags);
    const std::string first = bcast_string(ctx_.app, text, 0);
    run_collectively(ctx_.app, [&] {
        if (first != text) fail(ErrorKind::usage, "every rank must give SCR_Start_output the same name and flags");
    });
    ctx_.background->wait();
    Output out;
    const std::uint64_t seq =
        std::max(ctx_.catalog.next_seq(), datasets_.all().empty() ? 1 : datasets_.all().front().ref.seq + 1);
    // SCR's checkpoint id: checkpoints counted across the runs of the job
    // (the newest known plus one); output that is not a checkpoint keeps
    // the current one. SCR_FLUSH counts by it.
    for (const DatasetInfo& d : datasets_.all()) {
        if ((d.meta.flags & kScrCheckpoint) != 0) last_checkpoint_id_ = std::max(last_checkpoint_id_, d.ref.ckpt_id);
    }
    const int ckpt_id = last_checkpoint_id_ + ((flags & kScrCheckpoint) != 0 ? 1 : 0);
    out.ref = {seq, cache_level(), ckpt_id, true};  // a dataset's cached files: ckpt<seq>/rank<r>/ (StorageLayout)
    out.label.name = requested.empty() ? "scr.dataset." + std::to_string(seq) : requested;
    out.label.flags = flags;
    output_ = std::move(out);
    phase_ = Phase::output;
    loaded_.reset();  // the restart, if any, is over
}

std::string ScrSession::route_file(const std::string& name) {
    if (finalized_) fail(ErrorKind::usage, "SCR_Route_file after SCR_Finalize");
    if (phase_ == Phase::idle) return name;
    const RoutedName rn = routed_name(name, cwd_);
    if (phase_ == Phase::restart) {
        const fs::path wanted = rn.origpath / rn.origname;
        const std::pair<FileRecord, fs::path>* by_name = nullptr;
        for (const auto& entry : loaded_->files) {
            if (fs::path(entry.first.origpath) / entry.first.origname == wanted) return entry.second.string();
            if (entry.first.origname == rn.origname && by_name == nullptr) by_name = &entry;
        }
        if (by_name != nullptr) return by_name->second.string();  // SCR's older form: the file's name alone
        fail(ErrorKind::not_recoverable, "'" + name + "' is not a file of dataset '" + loaded_->copy.meta.name +
                                             "' on rank " + std::to_string(ctx_.rank()));
    }
    if (!in_prefix(rn.origpath, settings_.prefix)) {
        fail(ErrorKind::usage, "'" + name + "' lies outside SCR_PREFIX '" + settings_.prefix +
                                   "'; a dataset's files must be below its prefix");
    }
    Output& out = *output_;
    for (std::size_t i = 0; i < out.names.size(); ++i) {
        if (out.names[i].origname != rn.origname) continue;
        if (out.names[i].origpath == rn.origpath) return out.paths[i].string();
        if (!settings_.cache_bypass) {
            fail(ErrorKind::usage, "'" + name + "' and '" + out.names[i].orig +
                                       "' have the same file name; a rank's files in one dataset need distinct names");
        }
    }
    fs::path path;
    if (settings_.cache_bypass) {
        make_named_dirs(rn.origpath);  // the application's path; each new directory synced into its parent
        path = rn.origpath / rn.origname;
    } else {
        const fs::path dir = ctx_.layout.routed_dir(out.ref, ctx_.rank(), ctx_.topo.node_id);
        ctx_.layout.make_dir(dir);
        path = dir / rn.origname;
    }
    out.names.push_back(rn);
    out.paths.push_back(path);
    return path.string();
}

std::vector<FileRecord> ScrSession::seal_files(const Output& out, std::optional<std::string>& problem) const {
    std::vector<FileRecord> records;
    // The application created its files: their names are durable once their
    // directories are synced (each file's data is, by seal_routed_file),
    // before the dataset is committed (docs/scr.md, "What differs from SCR").
    std::set<fs::path> dirs;
    for (std::size_t i = 0; i < out.names.size(); ++i) {
        std::error_code ec;
        if (!fs::exists(out.paths[i], ec)) {
            problem = "'" + out.names[i].orig + "' was routed but never written ('" + out.paths[i].string() +
                      "' does not exist)";
            break;
        }
        try {
            records.push_back(
                seal_routed_file(out.paths[i], out.names[i], ctx_.rank(), ctx_.topo.node_id, ctx_.io_buffer_bytes()));
            dirs.insert(out.paths[i].parent_path());
        } catch (const Error& e) {
            problem = "'" + out.names[i].orig + "' was routed but cannot be sealed: " + e.what();
            break;
        }
    }
    for (const fs::path& dir : dirs) {
        if (problem) break;
        try {
            sync_dir(dir);
        } catch (const Error& e) {
            problem = std::string("a directory of the dataset's files cannot be synced: ") + e.what();
        }
    }
    return records;
}

void ScrSession::complete_output(bool valid) {
    require_phase(Phase::output, "SCR_Complete_output");
    Output out = std::move(*output_);
    output_.reset();
    phase_ = Phase::idle;
    const double start = now_seconds();
    std::optional<std::string> problem;
    if (!valid) problem = "the application called SCR_Complete_output with valid = 0";
    // Bypassing the cache, ranks may write parts of one shared file (SCR
    // allows it there): every rank's writes end before any rank measures it.
    if (is_global(out.ref.level)) barrier(ctx_.app);
    std::vector<FileRecord> records = seal_files(out, problem);
    fault_point("after_data_write", ctx_.rank(), out.ref.seq);
    const std::vector<std::string> problems = gather_strings(ctx_.app, problem.value_or(""), 0);
    std::string report;
    for (std::size_t r = 0; r < problems.size(); ++r) {
        if (!problems[r].empty())
            report += (report.empty() ? "rank " : "; rank ") + std::to_string(r) + ": " + problems[r];
    }
    report = bcast_string(ctx_.app, report, 0);
    out.label.valid = report.empty();
    try {
        commit_output(out, records);
    } catch (...) {
        discard_output(out);  // never committed: nothing of it may stay
        throw;
    }
    if (!out.label.valid) {
        fail(ErrorKind::usage,
             "dataset '" + out.label.name + "' is recorded as not valid and will never be restarted from: " + report);
    }
    // Committed: from here on a failure is reported, the dataset stays.
    const bool checkpoint = (out.label.flags & kScrCheckpoint) != 0;
    if (checkpoint) last_checkpoint_id_ = std::max(last_checkpoint_id_, out.ref.ckpt_id);
    // As SCR: by the checkpoint id, which runs on across restarts, so that a
    // job of short runs reaches the prefix too.
    const bool due = (out.label.flags & kScrOutput) != 0 ||
                     (checkpoint && settings_.flush > 0 && out.ref.ckpt_id % settings_.flush == 0);
    std::exception_ptr flush_failure;
    if (!is_global(out.ref.level) && due) {
        try {
            flush_to_prefix(out.ref, records, out.label);
        } catch (const Error&) {
            flush_failure = std::current_exception();
        }
    }
    datasets_.retire_after(out.ref, settings_.cache_size, settings_.prefix_size);
    if (checkpoint) last_checkpoint_end_ = now_seconds();
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3f", now_seconds() - start);
    ctx_.log.info("dataset '" + out.label.name + "' (id " + std::to_string(out.ref.seq) + ") committed at L" +
                  std::to_string(out.ref.level) + " in " + seconds + " s");
    if (flush_failure) {
        try {
            std::rethrow_exception(flush_failure);
        } catch (const Error& e) {
            throw Error(e.kind(),
                        "dataset '" + out.label.name +
                            "' is committed in the cache, but its copy to the prefix failed: " + e.what(),
                        e.remote());
        }
    }
}

void ScrSession::commit_output(const Output& out, std::vector<FileRecord> records) {
    const CheckpointRef ref = out.ref;
    if (out.label.valid && (has_group_redundancy(ref.level))) {
        std::vector<fs::path> paths;
        for (const FileRecord& f : records) {
            paths.push_back(ctx_.layout.routed_dir(ref, ctx_.rank(), ctx_.topo.node_id) / f.file);
        }
        const std::string stream_name = ctx_.layout.data_file(ref, ctx_.rank(), ctx_.topo.node_id).filename().string();
        const FileRecord stream = stream_record(records, ctx_.rank(), ctx_.topo.node_id, stream_name);
        std::optional<MappedFiles> mapped;
        std::exception_ptr failure;
        try {
            mapped.emplace(paths);
        } catch (...) {
            failure = std::current_exception();
        }
        agree(ctx_.app, failure);
        FileRecord kept = write_group_redundancy(ctx_, ref, stream, &mapped->content());
        if (kept.type == "PARITY") kept.type = "XOR";  // as seed 004 names a set's parity files
        records.push_back(kept);
    }
    publish(ctx_, ref, records, IoMode::posix, &out.label);
    datasets_.add(ref);
}

void ScrSession::flush_to_prefix(const CheckpointRef& cached, const std::vector<FileRecord>& records,
                                 const CheckpointMeta& label) {
    const CheckpointRef target{cached.seq, kL4, cached.ckpt_id, cached.own_dir};
    run_collectively(ctx_.app, [&] {
        for (const FileRecord& f : records) {
            if (f.type != "FULL") continue;
            const fs::path source = ctx_.layout.routed_dir(cached, ctx_.rank(), ctx_.topo.node_id) / f.file;
            copy_verified(source, make_named_dirs(f.origpath), f, ctx_.io_buffer_bytes());
        }
        fault_point("during_flush", ctx_.rank(), cached.seq);
    });
    publish(ctx_, target, records, IoMode::posix, &label);
    datasets_.add(target);
    ctx_.log.info("dataset '" + label.name + "' flushed to the prefix");
}

void ScrSession::discard_output(const Output& out) noexcept {
    if (is_global(out.ref.level)) return;  // the application's own paths: left as they are
    remove_tree(ctx_.layout.routed_dir(out.ref, ctx_.rank(), ctx_.topo.node_id));
    discard_group_redundancy(ctx_, out.ref);
}

bool ScrSession::need_checkpoint() {
    require_phase(Phase::idle, "SCR_Need_checkpoint");
    ++need_calls_;
    int flag = 0;
    if (ctx_.rank() == 0) {
        const ScrSettings& s = settings_;
        if (s.checkpoint_interval > 0 && need_calls_ % s.checkpoint_interval == 0) flag = 1;
        if (s.checkpoint_seconds > 0 && now_seconds() - last_checkpoint_end_ >= s.checkpoint_seconds) flag = 1;
    }
    bcast(&flag, 1, MPI_INT, 0, ctx_.app, "whether a checkpoint is needed");
    return flag != 0 || should_exit();
}

std::optional<std::string> ScrSession::have_restart() {
    require_phase(Phase::idle, "SCR_Have_restart");
    if (loaded_) return loaded_->copy.meta.name;
    for (const DatasetInfo& d : std::vector<DatasetInfo>(datasets_.all())) {
        if (!d.meta.valid || (d.meta.flags & kScrCheckpoint) == 0 || failed_.count(d.ref.seq) != 0) continue;
        if (current_limit_ && d.ref.seq > *current_limit_) continue;
        std::string problem;
        if (std::optional<LoadedDataset> loaded = load_dataset(ctx_, d, problem)) {
            loaded_ = std::move(loaded);
            ctx_.log.info("restarting from dataset '" + d.meta.name + "' (id " + std::to_string(d.ref.seq) + ", L" +
                          std::to_string(d.ref.level) + ")");
            return d.meta.name;
        }
        if (ctx_.rank() == 0) ctx_.log.warning("not restarting from " + problem + "; trying an older copy");
    }
    return std::nullopt;
}

std::string ScrSession::start_restart() {
    require_phase(Phase::idle, "SCR_Start_restart");
    if (!loaded_)
        fail(ErrorKind::usage,
             "no checkpoint to restart from: call SCR_Have_restart first, and only "
             "start a restart when it reports one");
    phase_ = Phase::restart;
    return loaded_->copy.meta.name;
}

void ScrSession::complete_restart(bool valid) {
    require_phase(Phase::restart, "SCR_Complete_restart");
    phase_ = Phase::idle;
    int ok = valid ? 1 : 0;
    allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ctx_.app, "whether every rank restarted");
    if (ok == 1) return;
    const std::string name = loaded_->copy.meta.name;
    failed_.insert(loaded_->copy.ref.seq);
    loaded_.reset();
    fail(ErrorKind::not_recoverable, "the restart from dataset '" + name +
                                         "' failed on some rank (SCR_Complete_restart with valid = 0); "
                                         "SCR_Have_restart now offers the next older checkpoint, if any");
}

void ScrSession::set_current(const std::string& name) {
    require_phase(Phase::idle, "SCR_Current");
    const DatasetInfo* d = datasets_.find(name);
    run_collectively(ctx_.app, [&] {
        if (d == nullptr) fail(ErrorKind::usage, "no dataset named '" + name + "'");
    });
    current_limit_ = d->ref.seq;
    if (loaded_ && loaded_->copy.ref.seq > d->ref.seq) loaded_.reset();
}

void ScrSession::drop(const std::string& name) {
    require_phase(Phase::idle, "SCR_Drop");
    const std::vector<DatasetInfo> copies = datasets_.copies_of(name);
    if (ctx_.rank() == 0) {
        for (const DatasetInfo& d : copies) remove_file(ctx_.layout.meta_file(d.ref.level, d.ref.seq));
    }
    barrier(ctx_.app);
    for (const DatasetInfo& d : copies) {
        ctx_.catalog.remove(d.ref);
        if (loaded_ && loaded_->copy.ref.seq == d.ref.seq) loaded_.reset();
    }
    datasets_.forget(name);
}

void ScrSession::remove(const std::string& name) {
    require_phase(Phase::idle, "SCR_Delete");
    if (loaded_ && loaded_->copy.meta.name == name) loaded_.reset();
    datasets_.retire(datasets_.copies_of(name), true);
}

bool ScrSession::should_exit() {
    if (finalized_) fail(ErrorKind::usage, "SCR_Should_exit after SCR_Finalize");
    int flag = 0;
    if (ctx_.rank() == 0) {
        std::error_code ec;
        if (fs::exists(ctx_.layout.meta_exec_dir() / "halt", ec)) flag = 1;
        const ScrSettings& s = settings_;
        if (s.halt_seconds > 0 && s.end_time > 0 && s.end_time - std::time(nullptr) <= s.halt_seconds) flag = 1;
    }
    bcast(&flag, 1, MPI_INT, 0, ctx_.app, "whether the run should exit");
    return flag != 0;
}

void ScrSession::finalize() {
    if (finalized_) fail(ErrorKind::usage, "SCR_Finalize called twice");
    if (phase_ == Phase::output) {
        ctx_.log.warning("SCR_Finalize during an output phase: dataset '" + output_->label.name +
                         "' was never completed and is discarded");
        discard_output(*output_);
        output_.reset();
    }
    phase_ = Phase::idle;
    // With SCR_FLUSH on, the newest checkpoint reaches the prefix before the run ends.
    const std::vector<DatasetInfo>& datasets = datasets_.all();
    if (settings_.flush > 0 && !datasets.empty()) {
        const DatasetInfo newest = datasets.front();
        const bool flushed = std::any_of(datasets.begin(), datasets.end(), [&](const DatasetInfo& d) {
            return d.ref.seq == newest.ref.seq && is_global(d.ref.level);
        });
        if (!flushed && newest.meta.valid && (newest.meta.flags & kScrCheckpoint) != 0) {
            std::vector<FileRecord> mine;
            for (const FileRecord& f : newest.meta.files) {
                if (f.rank == ctx_.rank()) mine.push_back(f);
            }
            try {
                flush_to_prefix(newest.ref, mine, newest.meta);
                datasets_.retire_after(newest.ref, settings_.cache_size, settings_.prefix_size);
            } catch (const Error& e) {
                if (!e.remote()) {
                    ctx_.log.warning("the newest checkpoint, '" + newest.meta.name +
                                     "', stays in the cache only: its copy to the prefix failed: " + e.what());
                }
            }
        }
    }
    ctx_.background->wait();
    barrier(ctx_.app);
    finalized_ = true;
}

}  // namespace mlckpt::core
