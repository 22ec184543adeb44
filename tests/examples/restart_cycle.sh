# The second half of the examples' crash/restart tests, sourced by
# heatdis_restart.sh and scr_files_restart.sh. Both define $workdir and
# run WHICH ARGS..., which launches the example in $workdir/WHICH; the
# reference run has written $workdir/reference.log.

# crash_run ARGS...: the run meant to crash must fail.
crash_run() {
    if run crash "$@" > "$workdir/crash.log" 2>&1; then
        cat "$workdir/crash.log"
        echo "restart test: the run meant to crash exited successfully" >&2
        exit 1
    fi
}

# restart_run TAG RESTARTED ARGS...: the relaunch succeeds, prints the line
# RESTARTED, and its last line "TAG: result ..." equals the reference's.
restart_run() {
    local tag=$1 restarted=$2
    shift 2
    run crash "$@" > "$workdir/restart.log" 2>&1 || { cat "$workdir/restart.log"; exit 1; }
    cat "$workdir/restart.log"
    grep -qxF "$restarted" "$workdir/restart.log"
    local reference recovered
    reference=$(grep -E "^$tag: result " "$workdir/reference.log" | tail -n 1)
    recovered=$(grep -E "^$tag: result " "$workdir/restart.log" | tail -n 1)
    echo "reference: $reference"
    echo "recovered: $recovered"
    [[ -n "$reference" && "$recovered" == "$reference" ]]
}
