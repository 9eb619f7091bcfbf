#!/bin/sh
# across_nodes.sh [--per-node K]: the "Across two nodes" table of bench/RESULTS.md. Runs
# bench/compare --nodes 2 in parts (a full default suite across TCP takes hours: each part
# picks the rows and sizes of the multi-node issue, with fewer samples), saves each part's
# records in bench/out/nodes-PART.json and prints the merged table. Root only (fake nodes).
#
# Environment: REPS (default 5; 3 for the long rows), NICE (default 0: run at the normal
# priority; e.g. NICE=-10 to keep other work on the machine from dominating both sides).
set -eu
cd "$(dirname "$0")/.."
per_node=1
if [ "${1:-}" = "--per-node" ]; then per_node=$2; fi
reps=${REPS:-5}
long_reps=$(( reps < 3 ? reps : 3 ))
out=bench/out
mkdir -p "$out"
files=
part() {
    name=$1 r=$2
    shift 2
    echo "across_nodes.sh: part $name, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    nice -n "${NICE:-0}" go run ./bench/compare --nodes 2 --per-node "$per_node" --reps "$r" \
        --save "$out/nodes-$name.json" "$@" >&2
    files="$files${files:+,}$out/nodes-$name.json"
}
# Latency, atomics, synchronization, progress: with the raw-UCX limit.
part lat "$reps" -o put,get,atomic_fetch_add,atomic_compare_swap,barrier,pingpong,progress -m 8:8 -i 20 -x 2
part bw "$long_reps" -o put_bw -m 1M:1M -i 5 -x 1 --limits-cmd ""
part coll1 "$reps" -o broadcast64,reduce_int_sum,alltoall64,alltoalls64 -m 1:1 -i 20 -x 2 --limits-cmd ""
part coll4k "$reps" -o reduce_int_sum,alltoall64,alltoalls64 -m 4096:4096 -i 10 -x 1 --limits-cmd ""
part red1m "$long_reps" -o reduce_int_sum -m 1M:1M -i 3 -x 1 --limits-cmd ""
part a2as64k "$long_reps" -o alltoalls64 -m 64K:64K -i 3 -x 0 --limits-cmd ""
go run ./bench/compare --nodes 2 --per-node "$per_node" --json-in "$files"
