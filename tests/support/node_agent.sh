#!/usr/bin/env bash
# Open MPI's remote-shell agent for tests on separate nodes on one machine
# (mpiexec --mca plm_rsh_agent node_agent.sh --host n0:2,n1:2 ...). Open MPI
# calls it as `node_agent.sh [ssh options] HOST COMMAND...` to start its
# daemon on HOST; the daemon and the ranks it starts then run in namespaces
# of their own:
#   - UTS: the hostname is HOST, so MPI_Get_processor_name and the
#     library's node discovery see separate nodes, and Open MPI connects
#     ranks of different nodes over TCP, not shared memory;
#   - mount: $MLCKPT_NODE_STORAGE/HOST is bind-mounted over
#     $MLCKPT_NODE_LOCAL, the path configured as ckpt_dir, so each node has
#     node-local storage that no other node's processes see there.
# Losing a node is removing $MLCKPT_NODE_STORAGE/HOST between launches.
set -eu
while [[ ${1:-} == -* ]]; do shift; done
host=$1
shift
: "${MLCKPT_NODE_STORAGE:?the folder that holds the local storage of every node}"
: "${MLCKPT_NODE_LOCAL:?the node-local path the nodes see}"
mkdir -p "$MLCKPT_NODE_STORAGE/$host" "$MLCKPT_NODE_LOCAL"
# Open MPI passes the daemon's command as words meant for a remote shell.
exec unshare --uts --mount --propagation private bash -c '
    set -e
    hostname "$0"
    mount --bind "$1" "$2"
    shift 2
    exec bash -c "$*"' "$host" "$MLCKPT_NODE_STORAGE/$host" "$MLCKPT_NODE_LOCAL" "$@"
