#!/usr/bin/env bash
# Whether separate nodes can be made here (tests/support/node_agent.sh): tries
# once what the agent does for each node, a hostname and a bind mount of the
# node's storage in UTS and mount namespaces of their own (unshare and mount,
# as root).
#   separate_nodes_probe.sh [STORAGE LOCAL]
# STORAGE and LOCAL are the folders to bind (two temporary folders when not
# given). Exit code 0 when it works; otherwise 1, with the reason on stdout.
set -u
if [ $# -eq 2 ]; then
    storage=$1 local=$2
    cleanup=()
else
    storage=$(mktemp -d /tmp/mlckpt-probe.XXXXXX) local=$(mktemp -d /tmp/mlckpt-probe.XXXXXX)
    cleanup=("$storage" "$local")
fi
mkdir -p "$storage" "$local"
why=$(unshare --uts --mount --propagation private \
    sh -c 'hostname probe && mount --bind "$0" "$1"' "$storage" "$local" 2>&1)
rc=$?
[ ${#cleanup[@]} -eq 0 ] || rm -rf "${cleanup[@]}"
if [ $rc -ne 0 ]; then
    echo "separate nodes need UTS and mount namespaces, a hostname and a bind mount in them" \
        "(unshare and mount as root): ${why:-refused}"
    exit 1
fi
