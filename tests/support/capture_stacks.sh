#!/usr/bin/env bash
# The stacks of every thread of a hung launch, to tell where it waits.
#   capture_stacks.sh DIR PID...      every process of the trees rooted at the
#                                     PIDs: DIR/<pid>.txt each (state, wait
#                                     channel, command line, then gdb's
#                                     backtrace of every thread), all printed
#                                     too; DIR/processes.txt lists them
#   capture_stacks.sh --tree PID...   only the pids of those trees, roots first
# The processes are attached all at once, so the stacks are of about the
# same moment (a rank waiting for another shows where that other one is).
# Always exits 0: a failed capture must not hide the hang it was called for;
# when no stack can be taken, it says why.
set -u

# Each process's parent, from /proc (no ps needed); the parse skips the
# command name, which may hold spaces and parentheses.
tree() {
    declare -A children=()
    local stat line rest pid
    for stat in /proc/[0-9]*/stat; do
        { read -r line < "$stat"; } 2>/dev/null || continue
        pid=${line%% *}
        rest=${line##*) }  # "<state> <ppid> ..."
        rest=${rest#* }
        children[${rest%% *}]+=" $pid"
    done
    local queue=("$@") seen=" "
    while [ ${#queue[@]} -gt 0 ]; do
        pid=${queue[0]}
        queue=("${queue[@]:1}")
        case $seen in *" $pid "*) continue ;; esac
        [ -d "/proc/$pid" ] || continue
        seen+="$pid "
        echo "$pid"
        # shellcheck disable=SC2206
        queue+=(${children[$pid]:-})
    done
}

if [ "${1:-}" = --tree ]; then
    shift
    tree "$@"
    exit 0
fi
if [ $# -lt 2 ]; then
    echo "usage: $0 DIR PID... | --tree PID..." >&2
    exit 2
fi
dir=$1
shift
mkdir -p "$dir"
mapfile -t pids < <(tree "$@")

field() {  # field PID NAME: a line of /proc/PID/status, empty once the process is gone
    sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2> /dev/null
}
command_line() {
    { tr '\0' ' ' < "/proc/$1/cmdline"; } 2> /dev/null
}
alive() {  # neither gone nor a zombie: a process gdb can attach to
    local state
    state=$(field "$1" State)
    [ -n "$state" ] && [ "${state:0:1}" != Z ]
}

describe() {  # describe PID: the lines that head its file
    local pid=$1 wchan
    wchan=$({ cat "/proc/$pid/wchan"; } 2> /dev/null)
    echo "pid $pid, parent $(field "$pid" PPid), state $(field "$pid" State), waiting in ${wchan:-?}"
    echo "command: $(command_line "$pid")"
}

# Why gdb cannot attach, when it cannot: the usual causes, checked.
ptrace_obstacle() {
    local scope caps
    scope=$({ cat /proc/sys/kernel/yama/ptrace_scope; } 2> /dev/null || echo 0)
    caps=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
    if [ "$scope" = 3 ]; then
        echo "kernel.yama.ptrace_scope = 3: no process may attach to another (only a reboot lowers it)"
    elif [ "$scope" = 2 ] && ! (((0x${caps:-0} >> 19) & 1)); then
        echo "kernel.yama.ptrace_scope = 2 and no CAP_SYS_PTRACE: only a privileged tracer may attach"
    elif ! (((0x${caps:-0} >> 19) & 1)) && [ "$(id -u)" -eq 0 ]; then
        echo "root without CAP_SYS_PTRACE (a container started without --cap-add=SYS_PTRACE?)"
    elif [ "$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/self/status)" = 2 ]; then
        echo "a seccomp filter may forbid ptrace (a container's default profile?)"
    elif [ "$scope" = 1 ]; then
        echo "kernel.yama.ptrace_scope = 1: only an ancestor may attach (sysctl kernel.yama.ptrace_scope=0, or run as root)"
    else
        echo "see gdb's message in the files"
    fi
}

{
    echo "# pid ppid command, captured $(date '+%F %T')"
    for pid in "${pids[@]}"; do
        echo "$pid $(field "$pid" PPid) $(command_line "$pid")"
    done
} > "$dir/processes.txt"

have_gdb=1
command -v gdb > /dev/null 2>&1 || have_gdb=0
for pid in "${pids[@]}"; do
    (
        describe "$pid"
        echo
        if ! alive "$pid"; then
            echo "(ended before its stack could be taken)"
        elif [ $have_gdb -eq 1 ]; then
            timeout 60 gdb -p "$pid" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt' 2>&1 < /dev/null
            rc=$?
            [ $rc -eq 124 ] && echo "(gdb did not finish within 60 s)"
        fi
    ) > "$dir/$pid.txt" 2>&1 &
done
wait

echo "===== stacks of ${#pids[@]} processes (also in $dir)"
for pid in "${pids[@]}"; do
    echo "----- process $pid"
    cat "$dir/$pid.txt"
done
# Refused, as opposed to ended meanwhile (a zombie refuses too).
denied=0
for pid in "${pids[@]}"; do
    grep -q -E "ptrace: Operation not permitted|Could not attach to process" "$dir/$pid.txt" &&
        ! grep -q "is a zombie" "$dir/$pid.txt" && denied=$((denied + 1))
done
if [ $have_gdb -eq 0 ]; then
    echo "===== no stacks: gdb is not installed (apt-get install gdb)"
elif [ "${#pids[@]}" -gt 0 ] && [ "$denied" -eq "${#pids[@]}" ]; then
    echo "===== no stacks: gdb may not attach: $(ptrace_obstacle)"
elif [ "$denied" -gt 0 ]; then
    echo "===== $denied of ${#pids[@]} processes refused gdb: $(ptrace_obstacle)"
fi
echo "===== end of the stacks"
exit 0
