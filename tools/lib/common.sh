# Shared by the tools/ scripts: logging, paths, and building the project.
# shellcheck shell=bash

TIDEPOOL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TIDEPOOL_CACHE=${TIDEPOOL_CACHE:-/var/cache/tidepool}
TIDEPOOL_RUN_DIR=${TIDEPOOL_RUN_DIR:-/run/tidepool}
export TIDEPOOL_ROOT TIDEPOOL_CACHE TIDEPOOL_RUN_DIR

log() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# How tools/test and tools/run build: optimised as CMake's RelWithDebInfo (-O2) but without
# its debug information, which a cold machine (no ccache) pays in every compile and link (a
# heavy file compiled in 7 s instead of 12; a service binary is 3 MB instead of 55, and the
# images strip it anyway). A build directory of one's own keeps CMake's default.
TIDEPOOL_BUILD_ARGS=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG"
  "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG")

# build_project BUILD_DIR [extra cmake args...]: configure once, then build with ninja -j2.
build_project() {
  local build_dir=$1
  shift
  local launcher=()
  if command -v ccache >/dev/null 2>&1; then
    # A shared compiler cache outside the repo makes a fresh clone build in seconds.
    export CCACHE_DIR=${CCACHE_DIR:-$TIDEPOOL_CACHE/ccache}
    export CCACHE_BASEDIR=$TIDEPOOL_ROOT
    export CCACHE_NOHASHDIR=1
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  if [[ ! -f "$build_dir/build.ninja" ]]; then
    log "configuring $build_dir"
    cmake -S "$TIDEPOOL_ROOT" -B "$build_dir" -G Ninja "${launcher[@]}" "$@" >/dev/null
  fi
  log "building in $build_dir"
  cmake --build "$build_dir" -- -j2
}

# Background jobs whose exit status is read long after they end. Bash forgets a finished
# job's status as soon as it forks another child that is given the same pid, and `wait PID`
# then fails with 127 ("not a child of this shell"). pid_max is 32768 on these machines and
# a test run wraps it several times, so a job started in the first minute and waited for
# half an hour later could read as failed (CI did, for the Slurm images built at the start).
# The job writes its status to a file as its last act instead.
#
# run_recording_status STATUS_FILE COMMAND...: runs COMMAND, then writes its exit status to
# STATUS_FILE (an empty file made beforehand, e.g. by mktemp). Start it with &.
run_recording_status() {
  local status_file=$1 rc=0
  shift
  "$@" || rc=$?
  echo "$rc" >"$status_file"
  return "$rc"
}

# job_finished STATUS_FILE: true once a job started with run_recording_status has ended.
job_finished() { [[ -s $1 ]]; }

# wait_recorded PID STATUS_FILE: the exit status of a job started with run_recording_status
# as PID. Waits for the pid only while the job has not finished: afterwards the pid may be
# another process's. A job that ended without writing its status (killed) returns 1.
wait_recorded() {
  local pid=$1 status_file=$2 rc
  job_finished "$status_file" || wait "$pid" 2>/dev/null || true
  rc=$(cat "$status_file" 2>/dev/null || true)
  [[ $rc =~ ^[0-9]+$ ]] || rc=1
  return "$rc"
}
