# shellcheck shell=bash
# shellcheck disable=SC2034  # variables are used by the scripts that source this file
# Common helpers for tools/testenv/k8s/* scripts. Source it; do not run it.

K8S_TESTENV_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
. "$K8S_TESTENV_DIR/versions.env"

TIDEPOOL_CACHE=${TIDEPOOL_CACHE:-/var/cache/tidepool}
TIDEPOOL_RUN_DIR=${TIDEPOOL_RUN_DIR:-/run/tidepool}

# Cache layout, keyed by version:
#   $TIDEPOOL_CACHE/k8s/<k8s-version>/bin/{kube-apiserver,kube-scheduler,kube-controller-manager,kubectl,kubelet,kube-proxy}
#   $TIDEPOOL_CACHE/etcd/<etcd-version>/bin/etcd
#   $TIDEPOOL_CACHE/helm/<helm-version>/bin/helm
#   $TIDEPOOL_CACHE/promtool/<prometheus-version>/bin/promtool
#   $TIDEPOOL_CACHE/prometheus/<prometheus-version>/bin/prometheus
#   $TIDEPOOL_CACHE/coredns/<coredns-version>/bin/coredns
#   $TIDEPOOL_CACHE/testenv-k8s/<combined>/bin/   symlinks to all of the above
K8S_BIN_DIR=$TIDEPOOL_CACHE/k8s/$K8S_VERSION/bin
ETCD_BIN_DIR=$TIDEPOOL_CACHE/etcd/$ETCD_VERSION/bin
HELM_BIN_DIR=$TIDEPOOL_CACHE/helm/$HELM_VERSION/bin
PROMTOOL_BIN_DIR=$TIDEPOOL_CACHE/promtool/$PROMETHEUS_VERSION/bin
PROMETHEUS_BIN_DIR=$TIDEPOOL_CACHE/prometheus/$PROMETHEUS_VERSION/bin
COREDNS_BIN_DIR=$TIDEPOOL_CACHE/coredns/$COREDNS_VERSION/bin
COMBINED_VERSION="k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}_helm-${HELM_VERSION}_prom-${PROMETHEUS_VERSION}_coredns-${COREDNS_VERSION}"
BIN_DIR=$TIDEPOOL_CACHE/testenv-k8s/$COMBINED_VERSION/bin

ALL_BINARIES=(kube-apiserver kube-scheduler kube-controller-manager kubectl kubelet kube-proxy etcd coredns helm prometheus promtool)

# Run-time layout (see up).
K8S_RUN_DIR=$TIDEPOOL_RUN_DIR/k8s
ETCD_CLIENT_PORT=${TIDEPOOL_ETCD_CLIENT_PORT:-23790}
ETCD_PEER_PORT=${TIDEPOOL_ETCD_PEER_PORT:-23800}
APISERVER_PORT=${TIDEPOOL_APISERVER_PORT:-16443}
SCHEDULER_PORT=${TIDEPOOL_SCHEDULER_PORT:-16459}
CONTROLLER_MANAGER_PORT=${TIDEPOOL_CONTROLLER_MANAGER_PORT:-16457}
LISTEN_ADDR=127.0.0.1
# With real nodes (up --with-nodes) the API server also listens beyond loopback, so that
# pods on the node bridge reach it through the kubernetes Service; clients on the host
# use 127.0.0.1 either way.
APISERVER_BIND_ADDR=$LISTEN_ADDR

SCRIPT_NAME=${SCRIPT_NAME:-$(basename "$0")}

log() { printf '[%s] %s\n' "$SCRIPT_NAME" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# The directory of a binary in the per-tool cache.
bin_dir_of() {
    case "$1" in
        kube-apiserver|kube-scheduler|kube-controller-manager|kubectl|kubelet|kube-proxy) echo "$K8S_BIN_DIR" ;;
        etcd) echo "$ETCD_BIN_DIR" ;;
        helm) echo "$HELM_BIN_DIR" ;;
        promtool) echo "$PROMTOOL_BIN_DIR" ;;
        prometheus) echo "$PROMETHEUS_BIN_DIR" ;;
        coredns) echo "$COREDNS_BIN_DIR" ;;
        *) return 1 ;;
    esac
}

# Prints the binaries missing from the combined bin dir (none: the cache is complete).
missing_binaries() {
    local b
    for b in "${ALL_BINARIES[@]}"; do
        [[ -x $BIN_DIR/$b ]] || echo "$b"
    done
}

now_ms() { date +%s%3N; }
# Seconds since a now_ms value, with one decimal.
elapsed_since() {
    local ms=$(( $(now_ms) - $1 ))
    printf '%d.%ds' $((ms / 1000)) $(((ms % 1000) / 100))
}

# proc_alive PID: true when PID is a running process (a zombie counts as gone).
proc_alive() {
    local state
    kill -0 "$1" 2>/dev/null || return 1
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [[ -n $state && $state != Z && $state != X ]]
}

# pid_alive PIDFILE: true when the pid file names a live process.
pid_alive() {
    local pid
    [[ -s $1 ]] || return 1
    pid=$(<"$1")
    [[ $pid =~ ^[0-9]+$ ]] && proc_alive "$pid"
}

# stop_pidfile NAME PIDFILE [TIMEOUT_S]: TERM, then KILL after the bound; removes the pid file.
stop_pidfile() {
    local name=$1 pidfile=$2 timeout=${3:-15} pid i
    if ! pid_alive "$pidfile"; then
        rm -f "$pidfile"
        return 0
    fi
    pid=$(<"$pidfile")
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < timeout * 10; i++)); do
        proc_alive "$pid" || break
        sleep 0.1
    done
    if proc_alive "$pid"; then
        log "$name (pid $pid) still running after ${timeout}s; sending KILL"
        kill -KILL "$pid" 2>/dev/null || true
        for ((i = 0; i < 50; i++)); do
            proc_alive "$pid" || break
            sleep 0.1
        done
    fi
    proc_alive "$pid" && die "$name (pid $pid) did not exit"
    STOPPED_PIDS+=("$pid")
    rm -f "$pidfile"
}

# A stopped daemon stays a zombie until its parent (init: the daemons are
# detached) reaps it, which took up to ~1.5 s on the build machine. Waits for
# that, bounded, so that pgrep right after down finds nothing.
STOPPED_PIDS=()
wait_reaped() {
    local pid i
    for pid in "${STOPPED_PIDS[@]}"; do
        for ((i = 0; i < 50; i++)); do
            [[ -e /proc/$pid ]] || break
            sleep 0.1
        done
    done
}

# ---------------------------------------------------------------- run time --
PKI_DIR=$K8S_RUN_DIR/pki
LOG_DIR=$K8S_RUN_DIR/logs
PID_DIR=$K8S_RUN_DIR/pids
ETCD_DATA_DIR=$K8S_RUN_DIR/etcd-data
ADMIN_KUBECONFIG=$K8S_RUN_DIR/admin.kubeconfig
ENV_FILE=$K8S_RUN_DIR/env
APISERVER_URL=https://$LISTEN_ADDR:$APISERVER_PORT
ETCD_URL=http://$LISTEN_ADDR:$ETCD_CLIENT_PORT
READY_TIMEOUT=${TIDEPOOL_K8S_READY_TIMEOUT:-60}
STOP_TIMEOUT=${TIDEPOOL_K8S_STOP_TIMEOUT:-15}
# Components in start order; down stops them in reverse.
COMPONENTS=(etcd kube-apiserver kube-scheduler kube-controller-manager)

pidfile_of() { echo "$PID_DIR/$1.pid"; }
logfile_of() { echo "$LOG_DIR/$1.log"; }

# port_in_use PORT: true when something accepts TCP connections on 127.0.0.1:PORT.
port_in_use() {
    (exec 3<>"/dev/tcp/$LISTEN_ADDR/$1") 2>/dev/null
}

# spawn NAME BINARY ARGS...: starts a daemon in its own session, detached from
# the caller, output to logs/NAME.log, pid to pids/NAME.pid. The command line is
# kept in pids/NAME.cmd (NUL-separated) so restart-apiserver can replay it.
spawn() {
    local name=$1 pidfile logfile i
    shift
    pidfile=$(pidfile_of "$name")
    logfile=$(logfile_of "$name")
    mkdir -p "$PID_DIR" "$LOG_DIR"
    printf '%s\0' "$@" >"$PID_DIR/$name.cmd"
    rm -f "$pidfile"
    printf '\n==== %s: starting %s\n' "$(date -u +%FT%TZ)" "$*" >>"$logfile"
    # bash writes its own pid, then execs the daemon in place: the pid is the daemon's.
    # shellcheck disable=SC2016  # $$ and $@ belong to the inner bash
    # fds 8 and 9 are the run and build locks: the daemon must not inherit them.
    # umask 022: the caller may run under write_kubeconfig's 077, and containerd makes each
    # container's root directory with it (a 0700 / locks non-root containers out).
    setsid bash -c 'umask 022; echo $$ >"$1"; shift; exec "$@"' spawn "$pidfile" "$@" \
        </dev/null >>"$logfile" 2>&1 8>&- 9>&- &
    for ((i = 0; i < 50; i++)); do
        [[ -s $pidfile ]] && break
        sleep 0.1
    done
    [[ -s $pidfile ]] || die "$name: no pid file after 5s (see $logfile)"
}

# respawn NAME: starts NAME again with the command line recorded by spawn.
respawn() {
    local name=$1 cmd=()
    [[ -s $PID_DIR/$name.cmd ]] || die "$name: no recorded command line in $PID_DIR/$name.cmd (run up first)"
    readarray -d '' cmd <"$PID_DIR/$name.cmd"
    spawn "$name" "${cmd[@]}"
}

log_tail() {
    local logfile
    logfile=$(logfile_of "$1")
    log "---- last ${2:-30} lines of $logfile ----"
    tail -n "${2:-30}" "$logfile" >&2 || true
    log "---- end of $logfile ----"
}

# wait_until NAME CHECK_FUNCTION: polls CHECK_FUNCTION every 0.2s for up to
# READY_TIMEOUT seconds; fails with the log tail if NAME dies or never gets ready.
wait_until() {
    local name=$1 check=$2 deadline
    deadline=$(($(date +%s) + READY_TIMEOUT))
    while ! "$check"; do
        if ! pid_alive "$(pidfile_of "$name")"; then
            log_tail "$name"
            die "$name exited before it became ready"
        fi
        if (($(date +%s) >= deadline)); then
            log_tail "$name"
            die "$name not ready after ${READY_TIMEOUT}s"
        fi
        sleep 0.2
    done
}

admin_curl() {
    curl -sf --max-time 5 --cacert "$PKI_DIR/ca.crt" --cert "$PKI_DIR/admin.crt" \
        --key "$PKI_DIR/admin.key" "$@"
}

etcd_healthy() { [[ $(curl -sf --max-time 2 "$ETCD_URL/health" 2>/dev/null) == *'"health":"true"'* ]]; }
apiserver_ready() { [[ $(admin_curl "$APISERVER_URL/readyz" 2>/dev/null) == ok ]]; }
scheduler_healthy() { [[ $(curl -skf --max-time 2 "https://$LISTEN_ADDR:$SCHEDULER_PORT/healthz" 2>/dev/null) == ok ]]; }
controller_manager_healthy() { [[ $(curl -skf --max-time 2 "https://$LISTEN_ADDR:$CONTROLLER_MANAGER_PORT/healthz" 2>/dev/null) == ok ]]; }

# The kube-apiserver command line (also replayed by restart-apiserver).
apiserver_cmd() {
    local bin=$1
    printf '%s\0' "$bin" \
        --bind-address="$APISERVER_BIND_ADDR" \
        --advertise-address="$LISTEN_ADDR" \
        --secure-port="$APISERVER_PORT" \
        --etcd-servers="$ETCD_URL" \
        --etcd-prefix=/registry \
        --tls-cert-file="$PKI_DIR/apiserver.crt" \
        --tls-private-key-file="$PKI_DIR/apiserver.key" \
        --client-ca-file="$PKI_DIR/ca.crt" \
        --authorization-mode=Node,RBAC \
        --kubelet-client-certificate="$PKI_DIR/apiserver-kubelet-client.crt" \
        --kubelet-client-key="$PKI_DIR/apiserver-kubelet-client.key" \
        --kubelet-certificate-authority="$PKI_DIR/ca.crt" \
        --kubelet-preferred-address-types=InternalIP \
        --anonymous-auth=false \
        --service-account-issuer=https://kubernetes.default.svc.cluster.local \
        --service-account-key-file="$PKI_DIR/sa.pub" \
        --service-account-signing-key-file="$PKI_DIR/sa.key" \
        --api-audiences=https://kubernetes.default.svc.cluster.local \
        --requestheader-client-ca-file="$PKI_DIR/front-proxy-ca.crt" \
        --requestheader-allowed-names=front-proxy-client \
        --requestheader-username-headers=X-Remote-User \
        --requestheader-group-headers=X-Remote-Group \
        --requestheader-extra-headers-prefix=X-Remote-Extra- \
        --proxy-client-cert-file="$PKI_DIR/front-proxy-client.crt" \
        --proxy-client-key-file="$PKI_DIR/front-proxy-client.key" \
        --service-cluster-ip-range="${TIDEPOOL_K8S_SERVICE_CIDR:-10.96.0.0/16}" \
        --endpoint-reconciler-type=none \
        --allow-privileged=true \
        --enable-admission-plugins=NamespaceLifecycle,NodeRestriction,LimitRanger,ServiceAccount,DefaultStorageClass,ResourceQuota,MutatingAdmissionWebhook,ValidatingAdmissionWebhook \
        --profiling=false \
        --cert-dir="$PKI_DIR/generated" \
        --v="${TIDEPOOL_K8S_LOG_LEVEL:-1}"
}

# Serialises up / down / restart-apiserver on one run dir.
take_run_lock() {
    mkdir -p "$TIDEPOOL_RUN_DIR"
    exec 8>"$TIDEPOOL_RUN_DIR/.k8s.lock"
    if ! flock -n 8; then
        log "waiting for another up/down/restart-apiserver ($TIDEPOOL_RUN_DIR/.k8s.lock)"
        flock -w 300 8 || die "could not take $TIDEPOOL_RUN_DIR/.k8s.lock within 300s"
    fi
}
