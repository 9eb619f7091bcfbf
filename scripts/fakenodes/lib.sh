# lib.sh: shared by mknodes, rmnodes, onnode and nsrsh (sourced, not run).
#
# A fake node gsnI is: a network namespace (ip netns gsnI) whose eth0 (198.18.0.I/24, the
# RFC 2544 benchmarking range, never routed off this machine) is a veth into the bridge
# br0 of the switch namespace gssw; and a keeper process (sleep) living in that network
# namespace plus its own UTS (hostname gsnI), IPC (System V, POSIX mqueues) and mount
# namespace (private tmpfs /dev/shm, /etc/hosts naming every node). Every entry into the
# node (onnode, nsrsh) joins the keeper's namespaces, so all processes of one node share
# one /dev/shm and one IPC space, as on a real machine, and leftovers can be inspected.
# State lives in $GS_STATE: the keepers' pids, the locks, and the "auto" marker saying the
# nodes were made by the Go test harness (which then removes them when its last user ends).

GS_STATE=${GS_FAKENODES_STATE:-/run/gsfakenodes}
GS_SWITCH=gssw
GS_NET=198.18.0      # RFC 2544: 198.18.0.0/15 is for network benchmarks; nodes are .1-.254
GS_MAXNODES=254

die() { echo "${0##*/}: $*" >&2; exit 1; }

# gs_unsupported REASON: exit with status 3, which the harness reads as "skip: REASON".
gs_unsupported() { echo "${0##*/}: unsupported here: $*" >&2; exit 3; }

gs_need_tools() {
	[ "$(id -u)" = 0 ] || gs_unsupported "fake nodes need root (network namespaces, mounts)"
	local t
	for t in ip unshare nsenter setsid flock mount; do
		command -v "$t" >/dev/null 2>&1 || gs_unsupported "no '$t' in PATH (iproute2 / util-linux)"
	done
}

# gs_netns_ino NS: the inode of the named network namespace (empty if it does not exist).
gs_netns_ino() { stat -L -c %i "/run/netns/$1" 2>/dev/null; }

# gs_keeper NODE: print the pid of NODE's keeper if it is alive and really lives in NODE's
# network namespace (a recycled pid or a namespace recreated under it does not count).
gs_keeper() {
	local node=$1 pid ino
	pid=$(cat "$GS_STATE/$node.pid" 2>/dev/null) || return 1
	[ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
	ino=$(gs_netns_ino "$node") || return 1
	[ -n "$ino" ] && [ "$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null)" = "$ino" ] || return 1
	echo "$pid"
}

# gs_nodes: the fake nodes that exist (by namespace), sorted by number.
gs_nodes() { ip netns list 2>/dev/null | awk '/^gsn[0-9]+( |$)/ {print $1}' | sort -V; }

# gs_kill_pids PID...: TERM, then KILL what is left after 2 s (our own fake nodes' processes).
gs_kill_pids() {
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null || true
	local i p alive
	for i in $(seq 20); do
		alive=
		for p in "$@"; do [ -d "/proc/$p" ] && alive=1; done
		[ -z "$alive" ] && return 0
		sleep 0.1
	done
	kill -KILL "$@" 2>/dev/null || true
}

# gs_rmnode NODE: remove one node: every process still in its network namespace (its keeper,
# a stray orted or PE of a killed run), the namespace, its veth, its hosts file, its pid file.
gs_rmnode() {
	local node=$1
	if [ -e "/run/netns/$node" ]; then
		# shellcheck disable=SC2046
		gs_kill_pids $(ip netns pids "$node" 2>/dev/null)
		ip netns del "$node" 2>/dev/null || true
	fi
	local k
	k=$(cat "$GS_STATE/$node.pid" 2>/dev/null) && [ -d "/proc/$k" ] &&
		[ "$(cat /proc/$k/comm 2>/dev/null)" = sleep ] &&
		grep -q "gsfakenodes-keeper" "/proc/$k/environ" 2>/dev/null && gs_kill_pids "$k"
	ip link del "$node-p" 2>/dev/null || true  # a leftover half made in the root namespace
	rm -rf "/etc/netns/$node"
	rm -f "$GS_STATE/$node.pid"
}
