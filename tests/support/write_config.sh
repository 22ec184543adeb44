#!/usr/bin/env bash
# Writes a configuration file for the tests' MPI launches on one machine
# (local_test = 1), with every checkpoint directory below DIR:
#   write_config.sh FILE DIR NODE_SIZE [GROUP_SIZE]
set -euo pipefail
file=$1 dir=$2 node_size=$3 group_size=${4:-1}
cat > "$file" <<CFG
[basic]
node_size = $node_size
group_size = $group_size
ckpt_dir = $dir/local
glbl_dir = $dir/global
meta_dir = $dir/meta
verbosity = 2
[restart]
failure = 0
exec_id =
[advanced]
local_test = 1
CFG
