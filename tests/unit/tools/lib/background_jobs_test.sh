#!/usr/bin/env bash
# tools/lib/common.sh's background jobs: a finished job's status survives bash forking
# another child with the job's pid, and a failure is read as one. Runs in a pid namespace
# of its own, where the next pid can be chosen (ns_last_pid), so a reuse takes one fork
# instead of wrapping the machine's pids.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)

if [[ ${1:-} != --in-namespace ]]; then
  ((EUID == 0)) || { echo "SKIP: needs root for a pid namespace"; exit 77; }
  exec unshare --pid --fork --mount-proc "$0" --in-namespace
fi
source "$ROOT/tools/lib/common.sh"

failures=0
check() {  # check DESCRIPTION WANT GOT
  if [[ $2 == "$3" ]]; then
    echo "ok: $1"
  else
    echo "FAILED: $1: want $2, got $3"
    failures=$((failures + 1))
  fi
}

# fork_with_pid PID: runs a foreground command in a child of this shell given PID (once
# PID is free), as tools/test runs its many commands.
fork_with_pid() {
  local want=$1 attempt pid_file
  pid_file=$(mktemp)
  for ((attempt = 0; attempt < 100; attempt++)); do
    echo $((want - 1)) >/proc/sys/kernel/ns_last_pid
    sh -c 'echo $$ >"$1"' sh "$pid_file"
    [[ $(cat "$pid_file") == "$want" ]] && return 0
    sleep 0.05  # the job has written its status but not yet been reaped
  done
  echo "could not fork a child with pid $want" >&2
  return 1
}

status=$(mktemp)
run_recording_status "$status" sh -c 'exit 3' &
pid=$!
until job_finished "$status"; do sleep 0.01; done
fork_with_pid "$pid"

# What the helpers are for: bash alone no longer knows the job.
rc=0
wait "$pid" 2>/dev/null || rc=$?
check "plain wait after the pid was reused (bash forgot the job: not a child)" 127 "$rc"
rc=0
wait_recorded "$pid" "$status" || rc=$?
check "wait_recorded after the pid was reused" 3 "$rc"

# A job still running is waited for.
status=$(mktemp)
run_recording_status "$status" sh -c 'sleep 0.3; exit 0' &
rc=0
wait_recorded $! "$status" || rc=$?
check "wait_recorded of a running job that succeeds" 0 "$rc"
check "its status was written" 0 "$(cat "$status")"

# A job killed before it could record its status reads as failed.
status=$(mktemp)
run_recording_status "$status" sleep 30 &
pid=$!
sleep 0.1
child=$(pgrep -P "$pid")
kill -KILL "$pid"
kill -KILL "$child"
rc=0
wait_recorded "$pid" "$status" || rc=$?
check "wait_recorded of a killed job" 1 "$rc"

((failures == 0))
