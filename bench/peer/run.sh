#!/bin/sh
# run.sh [osu_peer flags]: build the OSHMEM peer benchmark against Open MPI's OSHMEM
# (installing Debian's openmpi-bin and libopenmpi-dev when they are missing) and run it,
# one PE per core. Every argument is passed to osu_peer (see bench/FORMAT.md); stdout is
# osu_peer's alone, so `run.sh --json` yields clean JSON lines. Messages go to stderr.
#
# Environment:
#   NPES                 PEs to start (default 2)
#   OSHRUN_FLAGS         placement flags for oshrun (default "--bind-to core --map-by core")
#   PEER_BUILD_DIR       where the binary is built (default bench/peer/build)
#   SHMEM_SYMMETRIC_SIZE OSHMEM's symmetric heap per PE (OSHMEM's default is 256M)
#   PEER_BUILD_ONLY      when set: build, print the binary's path and exit (bench/compare
#                        --nodes starts it under oshrun across the fake nodes itself)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
npes=${NPES:-2}
oshrun_flags=${OSHRUN_FLAGS:---bind-to core --map-by core}
build_dir=${PEER_BUILD_DIR:-$here/build}

say() { echo "run.sh: $*" >&2; }

# Install Open MPI when its OpenSHMEM wrappers or headers are missing.
if ! command -v oshcc >/dev/null 2>&1 || ! command -v oshrun >/dev/null 2>&1 ||
    ! dpkg -s openmpi-bin libopenmpi-dev >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
        sudo=
    elif command -v sudo >/dev/null 2>&1; then
        sudo=sudo
    else
        say "openmpi-bin and libopenmpi-dev are missing and I am not root (no sudo): install them"
        exit 1
    fi
    say "installing openmpi-bin libopenmpi-dev"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        openmpi-bin libopenmpi-dev >&2
fi

# Build when the binary is missing or older than its source.
bin=$build_dir/osu_peer
if [ ! -x "$bin" ] || [ "$here/osu_peer.c" -nt "$bin" ]; then
    mkdir -p "$build_dir"
    say "building $bin"
    oshcc -O2 -Wall -o "$bin.tmp.$$" "$here/osu_peer.c" >&2
    mv "$bin.tmp.$$" "$bin"
fi
if [ -n "${PEER_BUILD_ONLY:-}" ]; then
    echo "$bin"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Open MPI 4.1's osc/rdma crashes in finalize on this kind of machine; OSHMEM does not need it.
export OMPI_MCA_osc="${OMPI_MCA_osc:-^rdma}"

# shellcheck disable=SC2086 # oshrun_flags is a list of words
exec oshrun -np "$npes" $oshrun_flags "$bin" "$@"
