# Shared by the tools/ scripts: logging, paths, and building the project.
# shellcheck shell=bash

TIDEPOOL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TIDEPOOL_CACHE=${TIDEPOOL_CACHE:-/var/cache/tidepool}
TIDEPOOL_RUN_DIR=${TIDEPOOL_RUN_DIR:-/run/tidepool}
export TIDEPOOL_ROOT TIDEPOOL_CACHE TIDEPOOL_RUN_DIR

log() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }
die() { log "error: $*"; exit 1; }

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
