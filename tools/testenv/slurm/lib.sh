# shellcheck shell=bash
# shellcheck disable=SC2034  # variables are used by the scripts that source this file
# Shared helpers for tools/testenv/slurm/*. Sourced, never run.
# Every script sets SCRIPT_NAME before sourcing this file.

SLURM_TESTENV_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE_DIR=${TIDEPOOL_CACHE:-/var/cache/tidepool}
ROOTS_DIR=$CACHE_DIR/slurm-roots
RUN_DIR=${TIDEPOOL_RUN_DIR:-/run/tidepool}/slurm
SUITES=(sid trixie)
DEFAULT_SUITE=${TIDEPOOL_SLURM_SUITE_DEFAULT:-sid}

# Test network: a bridge in the host namespace, one namespace per slurmd.
NET_BRIDGE=${TIDEPOOL_SLURM_BRIDGE:-tpslurm0}
NET_PREFIX=${TIDEPOOL_SLURM_NET_PREFIX:-10.77}   # a /16 that only exists here
NET_CTL_ADDR=$NET_PREFIX.0.1
NETNS_PREFIX=tp-slurm-
VETH_PREFIX=tps

REST_ADDR=${TIDEPOOL_SLURM_REST_ADDR:-127.0.0.1}
REST_PORT=${TIDEPOOL_SLURM_REST_PORT:-6820}
CTLD_PORT=6817
SLURMD_PORT=6818
DBD_PORT=${TIDEPOOL_SLURM_DBD_PORT:-6819}
REST_USER=slurmrest          # created in the root by build-root
IN_ROOT_RUN=/tidepool        # RUN_DIR is bind-mounted here inside the root

log() { printf '%s: %s\n' "$SCRIPT_NAME" "$*" >&2; }
die() { log "error: $*"; exit 1; }

require_root() {
  [[ $(id -u) == 0 ]] || die "must run as root (chroot, mounts, network namespaces)"
}

check_suite() {
  local s
  for s in "${SUITES[@]}"; do [[ $1 == "$s" ]] && return 0; done
  die "unknown suite '$1' (want one of: ${SUITES[*]})"
}

root_of() { printf '%s/%s\n' "$ROOTS_DIR" "$1"; }

# A root is usable when build-root finished it (it writes the marker last).
root_complete() { [[ -f $1/etc/tidepool-slurm-root && -f $1/etc/tidepool-slurm-version ]]; }

root_has_dbd() { grep -q '^with_dbd=1$' "$1/etc/tidepool-slurm-root" 2>/dev/null; }

slurm_version_of() { cat "$1/etc/tidepool-slurm-version"; }

debian_mirror() {
  local m=${TIDEPOOL_DEBIAN_MIRROR:-}
  [[ -n $m ]] && { printf '%s\n' "$m"; return 0; }
  m=$(sed -n 's/^URIs: //p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
  printf '%s\n' "${m:-http://deb.debian.org/debian}"
}

# Mount points below DIR, deepest first (for unmounting).
mounts_below() {
  local dir=$1
  awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r
}

unmount_below() {
  local dir=$1 m
  for _ in 1 2 3; do
    local left=0
    while read -r m; do
      [[ -n $m ]] || continue
      umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || left=1
    done < <(mounts_below "$dir")
    [[ -z $(mounts_below "$dir") ]] && return 0
    ((left)) && sleep 0.5
  done
  [[ -z $(mounts_below "$dir") ]]
}

state_get() { # key -> value from $RUN_DIR/state
  [[ -f $RUN_DIR/state ]] || return 1
  sed -n "s/^$1=//p" "$RUN_DIR/state" | tail -n 1
}

current_root() { state_get root; }

# Run a command inside the root of the running environment.
in_root() {
  local root
  root=$(current_root) || die "environment is not up (no $RUN_DIR/state)"
  chroot "$root" "$@"
}

# Is PID alive and not a zombie?
pid_alive() {
  local pid=$1 st
  [[ -n $pid ]] || return 1
  st=$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null) || return 1
  [[ -n $st && $st != Z ]]
}

pidfile_alive() { [[ -f $1 ]] && pid_alive "$(cat "$1")"; }

# stop_pid NAME PIDFILE [SECONDS]: TERM, wait, then KILL.
stop_pidfile() {
  local name=$1 pidfile=$2 bound=${3:-10} pid i
  [[ -f $pidfile ]] || return 0
  pid=$(cat "$pidfile")
  if pid_alive "$pid"; then
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < bound * 10; i++)); do
      pid_alive "$pid" || break
      sleep 0.1
    done
    if pid_alive "$pid"; then
      log "$name did not stop within ${bound}s, sending KILL"
      kill -KILL "$pid" 2>/dev/null || true
      for ((i = 0; i < 50; i++)); do pid_alive "$pid" || break; sleep 0.1; done
    fi
  fi
  STOPPED_PIDS+=("$pid")
  rm -f "$pidfile"
}

# A dead daemon stays a zombie until init reaps it (here that can take seconds);
# wait, bounded, so that `pgrep` right after a stop shows nothing.
STOPPED_PIDS=()
wait_reaped() {
  local i p left
  for ((i = 0; i < ${1:-50}; i++)); do
    left=0
    for p in "${STOPPED_PIDS[@]}"; do [[ -e /proc/$p ]] && left=1 && break; done
    ((left)) || return 0
    sleep 0.1
  done
}

# spawn NAME CMD...: starts a long-running command in the background, detached from
# this shell; output to LOG_DIR/NAME.out, pid to PID_DIR/NAME. The command must exec
# into the daemon so that the recorded pid is the daemon's.
spawn() {
  local name=$1
  shift
  setsid "$@" </dev/null >>"$RUN_DIR/log/$name.out" 2>&1 &
  echo $! >"$RUN_DIR/pids/$name"
}

netns_of() { printf '%s%s\n' "$NETNS_PREFIX" "$1"; }

# nodes file: name index address [absent], one per line.
node_field() { # NODE FIELD(2=index,3=addr,4=absent)
  awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$RUN_DIR/nodes" 2>/dev/null
}

wait_for() { # SECONDS DESCRIPTION CMD...
  local bound=$1 what=$2 start
  shift 2
  start=$SECONDS
  until "$@" >/dev/null 2>&1; do
    ((SECONDS - start < bound)) || { log "timed out after ${bound}s waiting for $what"; return 1; }
    sleep 0.5
  done
}
