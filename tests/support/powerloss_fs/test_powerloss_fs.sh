#!/usr/bin/env bash
# The power-loss file system's own tests: each case mounts it over a fresh
# backing folder, makes files, cuts the power through the control file, and
# checks the backing folder (what a rebooted machine would find) and the
# mount. Exits 77 with the reason when FUSE cannot be mounted here.
#   test_powerloss_fs.sh MLCKPT_POWERLOSS_FS FS_CALLS_PY [CASE...]
set -uo pipefail
fs_bin=$1 calls=$2
shift 2
cases=("$@")

skip() { echo "SKIPPED: $*"; exit 77; }
[[ -c /dev/fuse ]] || skip "no /dev/fuse: FUSE cannot be mounted here"
command -v fusermount3 > /dev/null || skip "fusermount3 is not installed (apt-get install fuse3)"

work=$(mktemp -d "${TMPDIR:-/tmp}/powerloss_fs.XXXXXX")
declare -A daemon_of=()
unmount() {  # unmount MOUNT: unmounts and waits for its daemon to end
    local mnt=$1
    fusermount3 -u "$mnt" 2> /dev/null || fusermount3 -uz "$mnt" 2> /dev/null
    [[ -n ${daemon_of[$mnt]:-} ]] && wait "${daemon_of[$mnt]}" 2> /dev/null
    unset "daemon_of[$mnt]"
}
cleanup() {
    local mnt
    for mnt in "${!daemon_of[@]}"; do unmount "$mnt"; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fs() { python3 "$calls" "$@"; }

# mount_fs MOUNT BACKING [OPTIONS...]: mounts and waits until the control file is there.
mount_fs() {
    local mnt=$1 back=$2
    shift 2
    mkdir -p "$mnt" "$back"
    "$fs_bin" "$@" "$back" "$mnt" -f 2>> "$mnt.log" &
    daemon_of[$mnt]=$!
    local tries
    for tries in $(seq 100); do
        [[ -e $mnt/.powerloss ]] && return 0
        kill -0 "${daemon_of[$mnt]}" 2> /dev/null || break
        sleep 0.05
    done
    unset "daemon_of[$mnt]"
    return 1
}

# A first mount says whether FUSE works here; libfuse names its own mount
# failures "fuse: ..." (no device, no permission), anything else is ours.
if ! mount_fs "$work/probe" "$work/probe.backing"; then
    reason=$(grep -m1 -E '^(fuse|fusermount3?):' "$work/probe.log")
    [[ -n $reason ]] && skip "FUSE cannot be mounted: $reason"
    echo "the power-loss file system did not mount:" >&2
    cat "$work/probe.log" >&2
    exit 1
fi
unmount "$work/probe"

failures=0
case_failed=0
fail() { echo "  FAIL: $*"; case_failed=1; }
expect_size() {  # FILE SIZE
    local size
    size=$(stat -c %s "$1" 2> /dev/null) || { fail "$1 is missing (want $2 bytes)"; return; }
    [[ $size == "$2" ]] || fail "$1 has $size bytes, want $2"
}
expect_data() {  # FILE DATA...: the file holds exactly the DATAs (fs_calls.py's notation)
    if ! cmp -s "$1" <(fs data "${@:2}" 2> /dev/null); then
        fail "$1 does not hold exactly ${*:2} ($(stat -c %s "$1" 2> /dev/null || echo no) bytes)"
    fi
}
expect_missing() { [[ ! -e $1 && ! -L $1 ]] || fail "$1 exists, should be gone"; }
expect_status() {  # MOUNT KEY VALUE
    local value
    value=$(fs status "$1" "$2")
    [[ $value == "$3" ]] || fail "$1/.powerloss says $2 $value, want $3"
}
expect_errno() {  # ERRNO_NAME COMMAND...: the command fails with that errno
    local want=$1 rc
    shift
    "$@" 2> /dev/null
    rc=$?
    [[ $rc == "$(python3 -c "import errno; print(errno.$want)")" ]] || fail "$* ended with $rc, want $want"
}

# --- the cases: each gets $mnt over $back ------------------------------------

case_data_model() {
    mount_fs "$mnt" "$back" --model data || return 1
    fs write "$mnt/unsynced" 0 "not durable"
    fs write "$mnt/synced" 0 pattern:10000 --fsync
    fs write "$mnt/appended" 0 fill:A:5000 --fsync
    fs write "$mnt/appended" 5000 fill:B:3000
    fs write "$mnt/overwritten" 0 fill:A:5000 --fdatasync
    fs write "$mnt/overwritten" 100 fill:B:100
    fs write "$mnt/truncated" 0 pattern:8192 --fsync
    fs truncate "$mnt/truncated" 100
    fs write "$mnt/truncated" 6000 fill:C:10
    # The mount shows everything; the backing folder only what is durable.
    expect_data "$mnt/unsynced" "not durable"
    expect_size "$mnt/appended" 8000
    # Reads merge the pending writes and truncates over the backing bytes.
    cmp -s "$mnt/overwritten" <(fs data fill:A:100 fill:B:100 fill:A:4800) ||
        fail "$mnt/overwritten does not read as its two writes"
    cmp -s "$mnt/truncated" <(fs data pattern:8192 | head -c 100; fs data 'fill:\0:5900' fill:C:10) ||
        fail "$mnt/truncated does not read as truncated and written again"
    expect_size "$back/unsynced" 0
    expect_status "$mnt" pending_bytes $((11 + 3000 + 100 + 10))
    fs control "$mnt" cut
    expect_size "$back/unsynced" 0  # its create was durable, its data not
    expect_data "$back/synced" pattern:10000
    expect_data "$back/appended" fill:A:5000
    expect_data "$back/overwritten" fill:A:5000
    expect_data "$back/truncated" pattern:8192
    expect_size "$mnt/unsynced" 0
    expect_data "$mnt/truncated" pattern:8192
    expect_status "$mnt" pending_bytes 0
    expect_status "$mnt" cuts 1
}

case_sync_flags() {
    mount_fs "$mnt" "$back" --model data || return 1
    fs write "$mnt/osync" 0 pattern:9000 --osync
    fs write "$mnt/later" 0 "synced later"
    fs fsync "$mnt/later"
    expect_errno EINVAL fs write "$mnt/direct" 0 fill:D:4096 --odirect
    fs control "$mnt" cut
    expect_data "$back/osync" pattern:9000
    expect_data "$back/later" "synced later"
    expect_missing "$back/direct"
}

case_strict_model() {
    mount_fs "$mnt" "$back" --model strict || return 1
    mkdir "$mnt/kept" "$mnt/moved" "$mnt/over" "$mnt/parent"
    fs write "$mnt/over/old" 0 "old bytes" --fsync
    fs write "$mnt/kept/doomed" 0 "unlinked" --fsync
    mkdir "$mnt/kept/empty"
    fs fsyncdir "$mnt/over"
    fs fsyncdir "$mnt/kept"
    fs fsyncdir "$mnt"
    expect_status "$mnt" pending_dir_ops 0
    # Renamed without a sync of the directory: back under the old name.
    fs write "$mnt/kept/tmp" 0 "payload one" --fsync
    fs fsyncdir "$mnt/kept"
    fs rename "$mnt/kept/tmp" "$mnt/kept/final"
    # With the directory synced: under the new name.
    fs write "$mnt/moved/tmp" 0 "payload two" --fsync
    fs rename "$mnt/moved/tmp" "$mnt/moved/final"
    fs fsyncdir "$mnt/moved"
    # A rename over a file, undone: the old file's bytes come back.
    fs write "$mnt/over/new" 0 "new bytes" --fsync
    fs rename "$mnt/over/new" "$mnt/over/old"
    expect_data "$mnt/over/old" "new bytes"
    # A new directory whose parent was not synced goes with its subtree.
    mkdir "$mnt/parent/child"
    fs write "$mnt/parent/child/file" 0 "inside" --fsync
    fs fsyncdir "$mnt/parent/child"
    # An unlink and an rmdir, undone.
    rm "$mnt/kept/doomed"
    rmdir "$mnt/kept/empty"
    # The trash folder that keeps the old files is not shown.
    [[ -z $(ls -A "$mnt" | grep -v -x -e kept -e moved -e over -e parent) ]] || fail "the mount shows $(ls -A "$mnt")"
    fs control "$mnt" cut
    expect_data "$back/kept/tmp" "payload one"
    expect_missing "$back/kept/final"
    expect_data "$back/moved/final" "payload two"
    expect_missing "$back/moved/tmp"
    expect_data "$back/over/old" "old bytes"
    expect_missing "$back/over/new"
    expect_missing "$back/parent/child"
    expect_data "$back/kept/doomed" "unlinked"
    [[ -d $back/kept/empty ]] || fail "$back/kept/empty did not come back"
    expect_status "$mnt" pending_dir_ops 0
    [[ -z $(ls -A "$back" | grep -v -x -e kept -e moved -e over -e parent -e '.powerloss.trash.*') ]] ||
        fail "the backing folder holds $(ls -A "$back")"
}

# torn_write SEED: a 5-page write torn by a cut; sets torn_kept to the
# number of bytes the file keeps.
torn_write() {
    local mnt=$work/torn$1 back=$work/torn$1.backing
    torn_kept=
    mount_fs "$mnt" "$back" --model data --torn --seed "$1" || return 1
    fs write "$mnt/file" 0 "" --fsync
    fs control "$mnt" "arm 1"
    fs write "$mnt/file" 0 pattern:20480 2> /dev/null  # its close fails: frozen
    expect_status "$mnt" frozen 1
    fs control "$mnt" cut
    torn_kept=$(stat -c %s "$back/file")
    if ((torn_kept % 4096 != 0 || torn_kept < 4096 || torn_kept > 16384)); then
        fail "seed $1: the torn write kept $torn_kept bytes, not 1 to 4 whole pages"
    elif ! cmp -s "$back/file" <(fs data pattern:20480 | head -c "$torn_kept"); then
        fail "seed $1: the $torn_kept bytes kept are not the write's prefix"
    fi
    unmount "$mnt"
    rm -rf "$back"
}

case_torn_write() {
    local seed sizes=()
    for seed in 1 2 3 4 5 6; do
        torn_write $seed || return 1
        sizes+=("$torn_kept")
    done
    for seed in 1 2; do
        torn_write $seed || return 1
        [[ $torn_kept == "${sizes[seed - 1]}" ]] || fail "seed $seed kept ${sizes[seed - 1]} bytes, then $torn_kept"
    done
    echo "  pages kept for seeds 1..6: $(for s in "${sizes[@]}"; do printf '%s ' $((s / 4096)); done)"
    [[ $(printf '%s\n' "${sizes[@]}" | sort -u | wc -l) -gt 1 ]] || fail "every seed kept ${sizes[0]} bytes"
}

case_arm() {
    mount_fs "$mnt" "$back" --model data --label node0 || return 1
    expect_status "$mnt" label node0
    fs control "$mnt" reset
    fs write "$mnt/a" 0 "one" --fsync  # create, write, fsync
    mkdir "$mnt/d"                     # mkdir
    fs rename "$mnt/a" "$mnt/d/a"      # rename
    fs fsyncdir "$mnt/d"               # fsyncdir
    fs truncate "$mnt/d/a" 1           # truncate
    ln "$mnt/d/a" "$mnt/d/b"           # link
    ln -s a "$mnt/d/c"                 # symlink
    rm "$mnt/d/b" "$mnt/d/c"           # unlink, unlink
    fs fdatasync "$mnt/d/a"            # fdatasync
    expect_status "$mnt" ops 12
    cat "$mnt/d/a" > /dev/null  # reads change nothing
    expect_status "$mnt" ops 12
    fs control "$mnt" reset "arm 3"
    fs write "$mnt/d/a" 0 x
    fs write "$mnt/d/a" 1 y
    expect_status "$mnt" frozen 0
    fs write "$mnt/d/a" 2 z
    expect_status "$mnt" frozen 1
    expect_status "$mnt" ops 3
    expect_errno EIO fs write "$mnt/d/a" 3 w
    expect_errno EIO fs write "$mnt/d/new" 0 w
    expect_errno EIO fs read "$mnt/d/a"
    expect_status "$mnt" ops 3
    fs control "$mnt" cut
    expect_status "$mnt" frozen 0
    expect_data "$back/d/a" "o"
    fs write "$mnt/d/a" 1 "after the cut" --fsync
    expect_data "$back/d/a" "oafter the cut"
}

case_mmap() {
    mount_fs "$mnt" "$back" --model data || return 1
    fs write "$mnt/synced" 0 fill:.:8192 --fsync
    fs write "$mnt/unsynced" 0 fill:.:8192 --fsync
    fs mmap-write "$mnt/synced" 4000 "through the mapping" --msync
    fs mmap-write "$mnt/unsynced" 4000 "through the mapping"
    fs control "$mnt" cut
    cmp -s "$back/synced" <(fs data fill:.:8192 | head -c 4000; printf 'through the mapping'; fs data fill:.:8192 | tail -c $((8192 - 4019))) ||
        fail "the msync'd mapping did not reach the backing file"
    expect_data "$back/unsynced" fill:.:8192
}

case_two_nodes() {
    local other=$work/other
    mount_fs "$mnt" "$back" --model data --label node0 || return 1
    mount_fs "$other" "$back" --model data --label node1 || return 1
    fs write "$mnt/from0" 0 "synced by node 0" --fsync
    fs write "$mnt/pending0" 0 "pending on node 0"
    fs write "$other/from1" 0 "synced by node 1" --fsync
    fs write "$other/pending1" 0 "pending on node 1"
    # Neither sees the other's pending data (its create is durable: empty).
    expect_size "$other/pending0" 0
    expect_size "$mnt/pending1" 0
    expect_data "$other/from0" "synced by node 0"
    fs control "$other" cut
    expect_data "$other/from0" "synced by node 0"
    expect_data "$back/from1" "synced by node 1"
    expect_size "$back/pending1" 0
    expect_data "$mnt/pending0" "pending on node 0"  # node 0 kept its own
    expect_status "$mnt" cuts 0
    fs control "$mnt" cut
    expect_data "$back/from0" "synced by node 0"
    expect_size "$back/pending0" 0
    # One shared file, each node its part (MPI-IO, the container format): a
    # node's sync writes its part and cuts nothing the other one synced.
    fs write "$mnt/shared" 0 "" --fsync
    fs write "$mnt/shared" 0 fill:0:4096
    fs write "$other/shared" 4096 fill:1:4096 --fsync
    fs fsync "$mnt/shared"
    expect_data "$back/shared" fill:0:4096 fill:1:4096
    expect_data "$other/shared" fill:0:4096 fill:1:4096
    unmount "$other"
}

case_node_cut() {
    mount_fs "$mnt" "$back" --model strict || return 1
    local mark sleeper
    mark=$(realpath "$mnt")
    # A process of a test's launch: marked with the mount, and Open MPI's rank.
    as_rank() { MLCKPT_POWERLOSS_MOUNT=$mark OMPI_COMM_WORLD_RANK=$1 "${@:2}"; }
    mkdir -p "$mnt/local/node0" "$mnt/local/node1" "$mnt/shared"
    fs control "$mnt" sync "node-size 2"
    as_rank 0 fs write "$mnt/shared/f" 0 "node 0 pending"
    as_rank 2 fs write "$mnt/shared/f" 4096 "node 1 pending"
    as_rank 2 fs write "$mnt/shared/g" 0 "synced by node 1" --fsync
    as_rank 2 fs write "$mnt/local/node1/f" 0 "synced by node 1, its name not" --fsync
    as_rank 0 fs write "$mnt/local/node0/f" 0 "node 0 pending"
    MLCKPT_POWERLOSS_MOUNT=$mark OMPI_COMM_WORLD_RANK=3 sleep 60 &
    sleeper=$!
    # The next operation, node 0's, cuts node 1's power.
    fs control "$mnt" reset "arm-node 1 1 local/node1"
    as_rank 0 fs write "$mnt/shared/f" 8192 "node 0 after"
    expect_status "$mnt" node_down 1
    expect_status "$mnt" frozen 0
    [[ $(ps -o stat= -p "$sleeper") == T* ]] || fail "a process of node 1 runs on after its node's cut"
    expect_errno EIO as_rank 2 fs write "$mnt/shared/g" 0 "after the cut"
    as_rank 1 fs write "$mnt/local/node0/f" 14 ", and after" --fsync
    kill -KILL "$sleeper"
    wait "$sleeper" 2> /dev/null
    # The other nodes kept their power: what they left pending becomes durable.
    fs control "$mnt" sync cut
    expect_status "$mnt" node_down -
    expect_data "$back/shared/f" "node 0 pending" "fill:\\0:$((8192 - 14))" "node 0 after"
    expect_data "$back/shared/g" "synced by node 1"
    expect_missing "$back/local/node1/f"
    expect_data "$back/local/node0/f" "node 0 pending, and after"
    # A node's cut needs a count, a node and a storage below the root.
    expect_errno EINVAL fs control "$mnt" "arm-node 1 1"
    expect_errno EINVAL fs control "$mnt" "arm-node 1 1 /local/node1"
    expect_errno EINVAL fs control "$mnt" "arm-node 1 1 ../node1"
}

case_unmount_frozen() {
    mount_fs "$mnt" "$back" --model strict || return 1
    mkdir "$mnt/d"
    fs write "$mnt/d/f" 0 "pending" --fsync
    fs control "$mnt" freeze
    unmount "$mnt"  # the power stays off: what a cut leaves, and no trash folder
    [[ -z $(ls -A "$back") ]] || fail "the backing folder holds $(ls -A "$back")"
}

all_cases=(data_model sync_flags strict_model torn_write arm mmap two_nodes node_cut unmount_frozen)
[[ ${#cases[@]} -gt 0 ]] || cases=("${all_cases[@]}")
for name in "${cases[@]}"; do
    mnt=$work/$name back=$work/$name.backing
    case_failed=0
    start=$SECONDS
    "case_$name" || fail "could not mount (see $mnt.log)"
    [[ -n ${daemon_of[$mnt]:-} ]] && unmount "$mnt"
    if [[ -s $mnt.log ]] && grep -v -q 'Ignoring invalid max threads' "$mnt.log"; then
        echo "  the file system said:"
        grep -v 'Ignoring invalid max threads' "$mnt.log" | sed 's/^/    /'
    fi
    if ((case_failed)); then
        echo "FAIL $name"
        failures=$((failures + 1))
    else
        echo "ok   $name ($((SECONDS - start)) s)"
    fi
done
echo "$((${#cases[@]} - failures)) of ${#cases[@]} cases passed"
((failures == 0))
