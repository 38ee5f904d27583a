# shellcheck shell=bash
# shellcheck disable=SC2034  # variables are used by the scripts that source this file
# Real kubelet nodes for the test environment: one containerd and one kubelet per node,
# a bridge CNI on a private range that only exists on this machine, kube-proxy (iptables)
# for ClusterIP Services, CoreDNS for cluster names, and a local PersistentVolume
# provisioner. Sourced by up and down after lib.sh; see README.md ("Real nodes").
#
# Traffic stays on the machine: pods live on the bridge, the host forwards only between
# bridge ports (a FORWARD guard drops anything else), the Service range is routed onto the
# bridge, and CoreDNS forwards nothing.

NODE_BRIDGE=${TIDEPOOL_NODE_BRIDGE:-tpk8s0}
NODE_NET_PREFIX=${TIDEPOOL_NODE_NET_PREFIX:-10.78}    # a /16 that only exists here
NODE_GATEWAY=$NODE_NET_PREFIX.0.1                     # the host on the bridge
NODE_CIDR=$NODE_NET_PREFIX.0.0/16
SERVICE_CIDR=${TIDEPOOL_K8S_SERVICE_CIDR:-10.96.0.0/16}
KUBERNETES_SERVICE_IP=${SERVICE_CIDR%.*/*}.1          # first address of the Service range
CLUSTER_DOMAIN=cluster.local
NODE_NAME_PREFIX=${TIDEPOOL_NODE_NAME_PREFIX:-knode}
NODES_DIR=$K8S_RUN_DIR/nodes
CNI_DIR=$K8S_RUN_DIR/cni
FORWARD_CHAIN=TIDEPOOL-K8S-FWD
COREDNS_HEALTH_PORT=${TIDEPOOL_COREDNS_HEALTH_PORT:-16480}
KUBE_PROXY_HEALTH_PORT=${TIDEPOOL_KUBE_PROXY_HEALTH_PORT:-16456}
KUBE_PROXY_METRICS_PORT=${TIDEPOOL_KUBE_PROXY_METRICS_PORT:-16455}
KUBELET_HEALTHZ_BASE_PORT=${TIDEPOOL_KUBELET_HEALTHZ_BASE_PORT:-16470}
PAUSE_IMAGE=localhost/tidepool/pause:dev
IMAGE_BUNDLE=$TIDEPOOL_CACHE/images/bundle.tar   # every image tools/images/build made
STORAGE_CLASS=tidepool-local
PV_DIR=$K8S_RUN_DIR/volumes
NODE_PACKAGES=(containerd runc containernetworking-plugins iptables conntrack debootstrap)

node_name() { printf '%s-%d\n' "$NODE_NAME_PREFIX" "$1"; }
node_ip() { printf '%s.0.%d\n' "$NODE_NET_PREFIX" $((10 + $1)); }
node_dir() { echo "$NODES_DIR/$(node_name "$1")"; }
containerd_socket() { echo "$(node_dir "$1")/containerd.sock"; }
node_count() { [[ -s $NODES_DIR/count ]] && cat "$NODES_DIR/count" || echo 0; }

ensure_node_packages() {
    local missing=() p
    for p in "${NODE_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
    done
    ((${#missing[@]})) || return 0
    log "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    }
}

# ------------------------------------------------------------------ network --
setup_node_network() {
    if ! ip link show "$NODE_BRIDGE" >/dev/null 2>&1; then
        ip link add "$NODE_BRIDGE" type bridge
    fi
    ip addr replace "$NODE_GATEWAY/16" dev "$NODE_BRIDGE"
    ip link set "$NODE_BRIDGE" up
    # Service addresses without a rule go onto the bridge, never out of the machine.
    ip route replace "$SERVICE_CIDR" dev "$NODE_BRIDGE" src "$NODE_GATEWAY"
    # Forwarding is needed for pod -> Service -> pod; the guard keeps it on the bridge.
    [[ -s $K8S_RUN_DIR/ip_forward.saved ]] || cat /proc/sys/net/ipv4/ip_forward >"$K8S_RUN_DIR/ip_forward.saved"
    iptables -w -N "$FORWARD_CHAIN" 2>/dev/null || iptables -w -F "$FORWARD_CHAIN"
    iptables -w -A "$FORWARD_CHAIN" -i "$NODE_BRIDGE" -o "$NODE_BRIDGE" -j ACCEPT
    iptables -w -A "$FORWARD_CHAIN" -i "$NODE_BRIDGE" -j DROP
    iptables -w -A "$FORWARD_CHAIN" -o "$NODE_BRIDGE" -j DROP
    iptables -w -C FORWARD -j "$FORWARD_CHAIN" 2>/dev/null || iptables -w -I FORWARD 1 -j "$FORWARD_CHAIN"
    echo 1 >/proc/sys/net/ipv4/ip_forward
    mkdir -p "$CNI_DIR/net.d" "$CNI_DIR/ipam"
    cat >"$CNI_DIR/net.d/10-tidepool.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "tidepool",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$NODE_BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$CNI_DIR/ipam",
        "ranges": [[{"subnet": "$NODE_CIDR", "rangeStart": "$NODE_NET_PREFIX.1.1",
                     "rangeEnd": "$NODE_NET_PREFIX.255.254", "gateway": "$NODE_GATEWAY"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "loopback"}
  ]
}
EOF
}

# kube-proxy --cleanup leaves the KUBE-FIREWALL chain (and its INPUT/OUTPUT jumps) that it
# adds in both families; no one else on a test machine makes KUBE-* chains.
remove_kube_chains() {
    local cmd table rule chain
    for cmd in iptables ip6tables; do
        command -v "$cmd" >/dev/null || continue
        for table in filter nat mangle; do
            while read -r rule; do
                [[ -n $rule ]] && eval "$cmd -w -t $table ${rule/-A /-D }" 2>/dev/null || true
            done < <("$cmd" -w -t "$table" -S 2>/dev/null | grep -E '^-A (INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) .*-j KUBE-')
            while read -r chain; do
                "$cmd" -w -t "$table" -F "$chain" 2>/dev/null || true
            done < <("$cmd" -w -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[^ ]*\)$/\1/p')
            while read -r chain; do
                "$cmd" -w -t "$table" -X "$chain" 2>/dev/null || true
            done < <("$cmd" -w -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[^ ]*\)$/\1/p')
        done
    done
}

teardown_node_network() {
    if iptables -w -C FORWARD -j "$FORWARD_CHAIN" 2>/dev/null; then
        iptables -w -D FORWARD -j "$FORWARD_CHAIN"
    fi
    iptables -w -F "$FORWARD_CHAIN" 2>/dev/null && iptables -w -X "$FORWARD_CHAIN" 2>/dev/null || true
    ip route del "$SERVICE_CIDR" dev "$NODE_BRIDGE" 2>/dev/null || true
    ip link del "$NODE_BRIDGE" 2>/dev/null || true
    if [[ -s $K8S_RUN_DIR/ip_forward.saved ]]; then
        cat "$K8S_RUN_DIR/ip_forward.saved" >/proc/sys/net/ipv4/ip_forward
        rm -f "$K8S_RUN_DIR/ip_forward.saved"
    fi
}

# ---------------------------------------------------------------------- PKI --
gen_node_pki() {
    local i=$1 name ip
    name=$(node_name "$i")
    ip=$(node_ip "$i")
    gen_cert "kubelet-$name" "/O=system:nodes/CN=system:node:$name" clientAuth
    gen_cert "kubelet-serving-$name" "/CN=$name" serverAuth "DNS:$name,IP:$ip"
}

gen_cluster_pki() {
    gen_cert kube-proxy "/CN=system:kube-proxy" clientAuth
    gen_cert coredns "/CN=system:tidepool-coredns" clientAuth
}

# --------------------------------------------------------------- containerd --
write_containerd_config() {
    local i=$1 dir
    dir=$(node_dir "$i")
    mkdir -p "$dir/containerd/root" "$dir/containerd/state"
    cat >"$dir/containerd.toml" <<EOF
version = 2
root = "$dir/containerd/root"
state = "$dir/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
                    "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs",
                    "io.containerd.internal.v1.tracing", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "$(containerd_socket "$i")"
[ttrpc]
  address = "$(containerd_socket "$i").ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # Lowering an OOM score needs CAP_SYS_RESOURCE, which this machine's bounding set lacks.
  restrict_oom_score_adj = true
  enable_selinux = false
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$CNI_DIR/net.d"
    max_conf_num = 1
EOF
}

# wait_until takes a function without arguments: these read the node from CURRENT_NODE.
CURRENT_NODE=1
containerd_ready() { ctr --address "$(containerd_socket "$CURRENT_NODE")" version >/dev/null 2>&1; }
kubelet_ready() { [[ $(curl -sf --max-time 2 "http://127.0.0.1:$((KUBELET_HEALTHZ_BASE_PORT + CURRENT_NODE))/healthz" 2>/dev/null) == ok ]]; }

start_containerd() {
    local i=$1 name
    name=containerd-$(node_name "$i")
    write_containerd_config "$i"
    if ! pid_alive "$(pidfile_of "$name")"; then
        spawn "$name" containerd --config "$(node_dir "$i")/containerd.toml" --log-level warn
    fi
    CURRENT_NODE=$i
    wait_until "$name" containerd_ready
}

# import_images NODE ARCHIVE...: imports OCI archives into the node's containerd (k8s.io namespace).
import_images() {
    local i=$1 archive
    shift
    for archive in "$@"; do
        ctr --address "$(containerd_socket "$i")" -n k8s.io images import "$archive" \
            >/dev/null 2>"$LOG_DIR/import.err" || {
            cat "$LOG_DIR/import.err" >&2
            die "importing $archive into $(node_name "$i") failed"
        }
    done
}

# ------------------------------------------------------------------ kubelet --
cgroup_root_of() { echo "/tidepool-$(node_name "$1")"; }

# The kubelet wants its cgroup root in every v1 hierarchy before it starts.
make_cgroup_root() {
    local root=$1 h
    for h in /sys/fs/cgroup/*/; do
        h=${h%/}
        [[ $h == */unified ]] && continue
        mkdir -p "$h$root"
        if [[ ${h##*/} == cpuset ]]; then
            cat "$h/cpuset.cpus" >"$h$root/cpuset.cpus"
            cat "$h/cpuset.mems" >"$h$root/cpuset.mems"
        fi
    done
}

# Kills every process left in a cgroup tree, then removes the tree bottom-up.
remove_cgroup_root() {
    local root=$1 h d pid
    for h in /sys/fs/cgroup/*/; do
        h=${h%/}
        [[ -d $h$root ]] || continue
        while read -r d; do
            # A cgroup may vanish while we look (its container just ended).
            for pid in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
        done < <(find "$h$root" -type d 2>/dev/null)
    done
    sleep 0.2
    for h in /sys/fs/cgroup/*/; do
        h=${h%/}
        [[ -d $h$root ]] || continue
        find "$h$root" -depth -type d -exec rmdir {} + 2>/dev/null || true
    done
}

write_kubelet_config() {
    local i=$1 dir name ip
    dir=$(node_dir "$i")
    name=$(node_name "$i")
    ip=$(node_ip "$i")
    mkdir -p "$dir/kubelet" "$dir/pod-logs" "$dir/volume-plugins"
    printf 'nameserver %s\nsearch %s\n' "$NODE_GATEWAY" "$CLUSTER_DOMAIN" >"$dir/resolv.conf"
    cat >"$dir/kubelet-config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $ip
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $((KUBELET_HEALTHZ_BASE_PORT + i))
tlsCertFile: $PKI_DIR/kubelet-serving-$name.crt
tlsPrivateKeyFile: $PKI_DIR/kubelet-serving-$name.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $PKI_DIR/ca.crt}
authorization: {mode: Webhook}
cgroupDriver: cgroupfs
cgroupRoot: $(cgroup_root_of "$i")
failCgroupV1: false
failSwapOn: false
makeIPTablesUtilChains: false
hairpinMode: none
clusterDNS: [$NODE_GATEWAY]
clusterDomain: $CLUSTER_DOMAIN
resolvConf: $dir/resolv.conf
podLogsDir: $dir/pod-logs
volumePluginDir: $dir/volume-plugins
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
maxPods: 60
serializeImagePulls: false
containerRuntimeEndpoint: unix://$(containerd_socket "$i")
EOF
    write_kubeconfig "$dir/kubelet.kubeconfig" "system:node:$name" "$PKI_DIR/kubelet-$name.crt" "$PKI_DIR/kubelet-$name.key"
}

start_kubelet() {
    local i=$1 name dir
    name=$(node_name "$i")
    dir=$(node_dir "$i")
    ip addr replace "$(node_ip "$i")/16" dev "$NODE_BRIDGE"
    make_cgroup_root "$(cgroup_root_of "$i")"
    write_kubelet_config "$i"
    if ! pid_alive "$(pidfile_of "kubelet-$name")"; then
        spawn "kubelet-$name" "$BIN_DIR/kubelet" \
            --config="$dir/kubelet-config.yaml" \
            --kubeconfig="$dir/kubelet.kubeconfig" \
            --root-dir="$dir/kubelet" \
            --hostname-override="$name" \
            --node-ip="$(node_ip "$i")" \
            --node-labels=tidepool.dev/testenv-node=true \
            --v="${TIDEPOOL_K8S_LOG_LEVEL:-1}"
    fi
    CURRENT_NODE=$i
    wait_until "kubelet-$name" kubelet_ready
}

# --------------------------------------------------------------- kube-proxy --
start_kube_proxy() {
    local kc=$K8S_RUN_DIR/kube-proxy.kubeconfig
    write_kubeconfig "$kc" system:kube-proxy "$PKI_DIR/kube-proxy.crt" "$PKI_DIR/kube-proxy.key"
    cat >"$K8S_RUN_DIR/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection: {kubeconfig: $kc}
hostnameOverride: $(node_name 1)
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:$KUBE_PROXY_HEALTH_PORT
metricsBindAddress: 127.0.0.1:$KUBE_PROXY_METRICS_PORT
clusterCIDR: $NODE_CIDR
nodePortAddresses: [$NODE_CIDR]
# Every Service connection is masqueraded to the host's bridge address, so replies come
# back through the host's conntrack even between pods on the same bridge.
iptables: {masqueradeAll: true, localhostNodePorts: false, syncPeriod: 30s, minSyncPeriod: 200ms}
# Leave the host's conntrack table sizes and timeouts alone.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
    if ! pid_alive "$(pidfile_of kube-proxy)"; then
        spawn kube-proxy "$BIN_DIR/kube-proxy" --config="$K8S_RUN_DIR/kube-proxy.yaml" --v="${TIDEPOOL_K8S_LOG_LEVEL:-1}"
    fi
    wait_until kube-proxy kube_proxy_healthy
}
kube_proxy_healthy() { curl -sf --max-time 2 "http://127.0.0.1:$KUBE_PROXY_HEALTH_PORT/healthz" >/dev/null 2>&1; }

# ------------------------------------------------------------------ CoreDNS --
start_coredns() {
    local kc=$K8S_RUN_DIR/coredns.kubeconfig
    write_kubeconfig "$kc" system:tidepool-coredns "$PKI_DIR/coredns.crt" "$PKI_DIR/coredns.key"
    cat >"$K8S_RUN_DIR/Corefile" <<EOF
.:53 {
    bind $NODE_GATEWAY
    errors
    health 127.0.0.1:$COREDNS_HEALTH_PORT
    cache 5
    kubernetes $CLUSTER_DOMAIN in-addr.arpa ip6.arpa {
        kubeconfig $kc tidepool
        pods insecure
        ttl 5
    }
}
EOF
    if ! pid_alive "$(pidfile_of coredns)"; then
        spawn coredns "$BIN_DIR/coredns" -conf "$K8S_RUN_DIR/Corefile"
    fi
    wait_until coredns coredns_healthy
}
coredns_healthy() { curl -sf --max-time 2 "http://127.0.0.1:$COREDNS_HEALTH_PORT/health" >/dev/null 2>&1; }

# ------------------------------------------------------ local volumes --
# The project's own test tool (tools/local-pv-provisioner), from the build directory.
LOCAL_PV_PROVISIONER=${TIDEPOOL_LOCAL_PV_PROVISIONER:-${TIDEPOOL_BUILD_DIR:-$K8S_TESTENV_DIR/../../../build}/tools/local-pv-provisioner/local-pv-provisioner}

start_local_pv_provisioner() {
    if [[ ! -x $LOCAL_PV_PROVISIONER ]]; then
        log "no $LOCAL_PV_PROVISIONER (build the project): PersistentVolumeClaims will stay Pending"
        return 0
    fi
    mkdir -p "$PV_DIR"
    if ! pid_alive "$(pidfile_of local-pv-provisioner)"; then
        spawn local-pv-provisioner "$LOCAL_PV_PROVISIONER" --kubeconfig="$ADMIN_KUBECONFIG" --volume_dir="$PV_DIR"
    fi
}

# --------------------------------------------------------- cluster objects --
kubectl_admin() { "$BIN_DIR/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" "$@"; }

# What a kubeadm cluster has and our bare control plane lacks: the kubernetes Service's
# endpoint (the API server as pods reach it), the kube-dns Service, CoreDNS's and the
# API server's rights, and the node-local storage class.
apply_cluster_objects() {
    kubectl_admin apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Endpoints
metadata:
  name: kubernetes
  namespace: default
  labels: {endpointslice.kubernetes.io/skip-mirror: "true"}
subsets:
- addresses: [{ip: $NODE_GATEWAY}]
  ports: [{name: https, port: $APISERVER_PORT, protocol: TCP}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: kubernetes
  namespace: default
  labels: {kubernetes.io/service-name: kubernetes, endpointslice.kubernetes.io/managed-by: tidepool-testenv}
addressType: IPv4
endpoints: [{addresses: [$NODE_GATEWAY], conditions: {ready: true}}]
ports: [{name: https, port: $APISERVER_PORT, protocol: TCP}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "tidepool-testenv:coredns"}
rules:
- apiGroups: [""]
  resources: [endpoints, services, pods, namespaces]
  verbs: [list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "tidepool-testenv:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "tidepool-testenv:coredns"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:tidepool-coredns"}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: $STORAGE_CLASS
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: tidepool.dev/local-pv
reclaimPolicy: Delete
volumeBindingMode: WaitForFirstConsumer
EOF
}

nodes_ready() {
    local n=$1 ready
    ready=$(kubectl_admin get nodes -l "tidepool.dev/testenv-node=true" \
        -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null | grep -c True)
    ((ready >= n))
}

# ---------------------------------------------------------------- up / down --
# nodes_up N: everything above for N nodes; the control plane must be up.
nodes_up() {
    local n=$1 i start
    start=$(now_ms)
    ensure_node_packages
    mkdir -p "$NODES_DIR" "$PV_DIR"
    echo "$n" >"$NODES_DIR/count"
    gen_cluster_pki
    for ((i = 1; i <= n; i++)); do gen_node_pki "$i"; done
    setup_node_network
    apply_cluster_objects
    start_coredns
    # The pause image is the one image a node cannot do without.
    "$K8S_TESTENV_DIR/../../images/build" pause >/dev/null
    for ((i = 1; i <= n; i++)); do
        start_containerd "$i"
        import_images "$i" "$IMAGE_BUNDLE"
        start_kubelet "$i"
    done
    start_kube_proxy
    start_local_pv_provisioner
    local deadline=$(($(date +%s) + READY_TIMEOUT))
    until nodes_ready "$n"; do
        (($(date +%s) < deadline)) || die "$n node(s) not Ready after ${READY_TIMEOUT}s (logs in $LOG_DIR)"
        sleep 0.5
    done
    log "$n kubelet node(s) Ready after $(elapsed_since "$start"): $(for ((i = 1; i <= n; i++)); do printf '%s ' "$(node_name "$i")"; done)"
}

# Every mount below a directory, deepest first.
k8s_mounts_below() { awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r; }

# nodes_down: stops the nodes and removes everything they made outside the run dir too.
nodes_down() {
    local n i name dir m ns stopped=0
    n=$(node_count)
    [[ -d $NODES_DIR ]] || n=0
    stop_pidfile local-pv-provisioner "$(pidfile_of local-pv-provisioner)" "$STOP_TIMEOUT"
    if pid_alive "$(pidfile_of kube-proxy)"; then
        stop_pidfile kube-proxy "$(pidfile_of kube-proxy)" "$STOP_TIMEOUT"
        stopped=1
    fi
    [[ -x $BIN_DIR/kube-proxy ]] && "$BIN_DIR/kube-proxy" --cleanup >/dev/null 2>&1 || true
    remove_kube_chains
    stop_pidfile coredns "$(pidfile_of coredns)" "$STOP_TIMEOUT"
    for ((i = 1; i <= n; i++)); do
        name=$(node_name "$i")
        dir=$(node_dir "$i")
        stop_pidfile "kubelet-$name" "$(pidfile_of "kubelet-$name")" "$STOP_TIMEOUT"
        # Containers outlive the kubelet and containerd: their cgroups find them all.
        remove_cgroup_root "$(cgroup_root_of "$i")"
        stop_pidfile "containerd-$name" "$(pidfile_of "containerd-$name")" "$STOP_TIMEOUT"
        pkill -KILL -f -- "containerd-shim-runc-v2 .*-address $(containerd_socket "$i")" 2>/dev/null || true
        while read -r m; do
            [[ -n $m ]] && { umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; }
        done < <(k8s_mounts_below "$dir")
        ip addr del "$(node_ip "$i")/16" dev "$NODE_BRIDGE" 2>/dev/null || true
        stopped=1
    done
    # Network namespaces the CNI made for our sandboxes (containerd names them cni-<uuid>).
    for ns in /var/run/netns/cni-*; do
        [[ -e $ns ]] || continue
        if ip netns exec "${ns##*/}" ip -o addr 2>/dev/null | grep -q " $NODE_NET_PREFIX\."; then
            ip netns delete "${ns##*/}" 2>/dev/null || true
        elif ! ip netns exec "${ns##*/}" ip -o addr show scope global 2>/dev/null | grep -q .; then
            ip netns delete "${ns##*/}" 2>/dev/null || true  # an emptied one of ours
        fi
    done
    while read -r m; do
        [[ -n $m ]] && { umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; }
    done < <(k8s_mounts_below "$K8S_RUN_DIR")
    if ((stopped)) || [[ -d $CNI_DIR ]]; then
        teardown_node_network
        # What the kubelet, containerd and the CNI write outside their own directories.
        rm -rf /var/lib/kubelet/device-plugins /var/lib/kubelet/plugins_registry /var/lib/kubelet/pod-resources
        rmdir /var/lib/kubelet 2>/dev/null || true
        find /var/log/containers -maxdepth 1 -type l -lname "$NODES_DIR/*" -delete 2>/dev/null || true
        rmdir /var/log/containers 2>/dev/null || true
        rm -rf /var/lib/cni/results/tidepool-* /var/lib/cni/results/cni-loopback-* /var/lib/cni/networks/tidepool
        rmdir /var/lib/cni/results /var/lib/cni/networks /var/lib/cni 2>/dev/null || true
        rm -rf /run/containerd/s /run/containerd/runc 2>/dev/null || true
        rmdir /run/containerd 2>/dev/null || true
        [[ -d /usr/libexec/kubernetes ]] && find /usr/libexec/kubernetes -depth -type d -empty -delete 2>/dev/null || true
    fi
    rm -rf "$NODES_DIR"
}
