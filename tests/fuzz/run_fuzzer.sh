#!/usr/bin/env bash
# fuzz.<target>.run: fuzzes for a bounded time from a copy of the target's
# seed corpus and regression inputs, so that the repository is never written.
#   run_fuzzer.sh FUZZER SECONDS WORKDIR INPUT_DIR...
# MLCKPT_FUZZ_SECONDS in the environment overrides SECONDS. What the run
# leaves in WORKDIR: corpus/ (the seeds and every input that found new
# code) and artifacts/ (an input that crashed, leaked or ran out of memory
# or time: copy it to tests/fuzz/regressions/<target>/, named by the defect).
set -euo pipefail
fuzzer=$1 seconds=${MLCKPT_FUZZ_SECONDS:-$2} work=$3
shift 3
rm -rf "$work/corpus"
mkdir -p "$work/corpus" "$work/artifacts"
for dir in "$@"; do
    find "$dir" -maxdepth 1 -type f ! -name '.*' -exec cp {} "$work/corpus/" \;
done
# A count that makes a reader allocate beyond these limits is a finding.
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus"
