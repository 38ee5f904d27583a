# shellcheck shell=bash
# Runtime helpers (mounts, network, daemons, teardown) for up/down/restart-rest/
# kill-slurmd/start-slurmd/reconfigure. Sourced after lib.sh, never run.
#
# Layout while up (RUN_DIR = ${TIDEPOOL_RUN_DIR:-/run/tidepool}/slurm on the host):
#   RUN_DIR/etc        -> ROOT/etc/slurm   (slurm.conf, cgroup.conf, gres.conf, ...)
#   RUN_DIR/hosts      -> ROOT/etc/hosts
#   RUN_DIR            -> ROOT/tidepool    (logs, state, keys, sockets)
#   tmpfs              -> ROOT/run, ROOT/tmp;  proc -> ROOT/proc;  /dev -> ROOT/dev

PID_DIR=$RUN_DIR/pids
LOG_DIR=$RUN_DIR/log

# --- mounts ---------------------------------------------------------------------

is_mountpoint() { awk -v d="$1" '$2 == d { f = 1 } END { exit !f }' /proc/mounts; }

mount_root() {
  local root=$1
  mkdir -p "$root/proc" "$root/dev" "$root/run" "$root/tmp" "$root$IN_ROOT_RUN" "$root/etc/slurm"
  [[ -f $root/etc/hosts ]] || : >"$root/etc/hosts"
  is_mountpoint "$root/proc" || mount -t proc proc "$root/proc"
  is_mountpoint "$root/dev" || mount --bind /dev "$root/dev"
  is_mountpoint "$root/run" || mount -t tmpfs -o mode=755,size=64m tidepool-run "$root/run"
  is_mountpoint "$root/tmp" || mount -t tmpfs -o mode=1777,size=512m tidepool-tmp "$root/tmp"
  is_mountpoint "$root$IN_ROOT_RUN" || mount --bind "$RUN_DIR" "$root$IN_ROOT_RUN"
  is_mountpoint "$root/etc/slurm" || mount --bind "$RUN_DIR/etc" "$root/etc/slurm"
  is_mountpoint "$root/etc/hosts" || mount --bind "$RUN_DIR/hosts" "$root/etc/hosts"
}

# --- network ----------------------------------------------------------------------

node_addr_for_index() { # 1 -> 10.77.0.10, 247 -> 10.77.1.0, ...
  local h=$(($1 + 9))
  printf '%s.%d.%d\n' "$NET_PREFIX" $((h / 256)) $((h % 256))
}

net_mode() { state_get net || echo netns; }

# Can this machine do network namespaces and a bridge? Leaves nothing behind.
probe_netns() {
  local ns=${NETNS_PREFIX}probe$$ ok=0
  if ip netns add "$ns" 2>/dev/null; then
    if ip link add "${VETH_PREFIX}probe" type veth peer name "${VETH_PREFIX}probep" 2>/dev/null; then
      ip link set "${VETH_PREFIX}probep" netns "$ns" 2>/dev/null &&
        ip -n "$ns" link set lo up 2>/dev/null && ok=1
      ip link del "${VETH_PREFIX}probe" 2>/dev/null || true
    fi
    ip netns del "$ns" 2>/dev/null || true
  fi
  ((ok)) || return 1
  ip link show "$NET_BRIDGE" >/dev/null 2>&1 && return 0
  ip link add "$NET_BRIDGE" type bridge 2>/dev/null || return 1
  ip link del "$NET_BRIDGE" 2>/dev/null || true
}

bridge_up() {
  ip link show "$NET_BRIDGE" >/dev/null 2>&1 || ip link add "$NET_BRIDGE" type bridge
  ip addr show dev "$NET_BRIDGE" | grep -F " $NET_CTL_ADDR/" >/dev/null ||
    ip addr add "$NET_CTL_ADDR/16" dev "$NET_BRIDGE"
  ip link set "$NET_BRIDGE" up
}

# Scale mode (up --slurmd-every M): of the nodes in registration order only the 1st,
# (M+1)th, (2M+1)th, ... get a namespace and a slurmd; the others are "absent". An absent
# node's name resolves to ABSENT_ADDR, where nothing listens, so slurmctld's pings fail at
# once (connection refused) and it shows the node not responding (DOWN* after
# SlurmdTimeout). slurmctld still holds, schedules around and answers for every node.
ABSENT_ADDR=127.0.0.2
slurmd_every() { state_get slurmd_every || echo 1; }
node_absent() { [[ $(node_field "$1" 4) == absent ]]; }

# Registers the NODEs (arguments) that RUN_DIR/nodes lacks, in one pass: thousands of
# nodes cost one awk, not one per node. Prints "NODE real|absent" for each new one.
register_nodes() {
  (
    flock 9
    local lines
    lines=$(printf '%s\n' "$@" | awk -v every="$(slurmd_every)" -v prefix="$NET_PREFIX" \
      -v absent_addr="$ABSENT_ADDR" -v file="$RUN_DIR/nodes" '
      BEGIN {
        while ((getline line < file) > 0) {
          split(line, f, " "); known[f[1]] = 1; if (f[2] + 0 > max) max = f[2] + 0
        }
      }
      NF && !($1 in known) {
        known[$1] = 1; idx = ++max; h = idx + 9
        if ((idx - 1) % every) printf "%s %d %s absent\n", $1, idx, absent_addr
        else printf "%s %d %s.%d.%d\n", $1, idx, prefix, int(h / 256), h % 256
      }')
    [[ -n $lines ]] || exit 0
    printf '%s\n' "$lines" >>"$RUN_DIR/nodes"
    awk '{ print $1, ($4 == "absent" ? "absent" : "real") }' <<<"$lines"
  ) 9>"$RUN_DIR/net.lock"
}

# Registers NODE in RUN_DIR/nodes (stable index and address) and, in netns mode,
# creates its namespace and veth. Idempotent. One at a time: reconfigure and start-slurmd
# (run by a node agent's workers) may set up nodes, even the same node, at once.
node_net_up() {
  (
    flock 9
    node_net_up_unlocked "$1"
  ) 9>"$RUN_DIR/net.lock"
}

node_net_up_unlocked() {
  local node=$1 idx addr ns veth
  idx=$(node_field "$node" 2)
  if [[ -z $idx ]]; then
    idx=$(($(awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }' "$RUN_DIR/nodes" 2>/dev/null || echo 0) + 1))
    if (((idx - 1) % $(slurmd_every))); then
      printf '%s %s %s absent\n' "$node" "$idx" "$ABSENT_ADDR" >>"$RUN_DIR/nodes"
    else
      printf '%s %s %s\n' "$node" "$idx" "$(node_addr_for_index "$idx")" >>"$RUN_DIR/nodes"
    fi
  fi
  node_absent "$node" && return 0
  idx=$(node_field "$node" 2)
  addr=$(node_field "$node" 3)
  [[ $(net_mode) == netns ]] || return 0
  ns=$(netns_of "$node")
  veth=$VETH_PREFIX$idx
  ip netns list | awk '{print $1}' | grep -xF "$ns" >/dev/null || ip netns add "$ns"
  if ! ip -n "$ns" link show eth0 >/dev/null 2>&1; then
    # A pair left half made (a run killed between creating and moving it) is made anew.
    ip link del "$veth" 2>/dev/null || true
    ip link add "$veth" type veth peer name "${veth}p"
    ip link set "${veth}p" netns "$ns"
    ip -n "$ns" link set "${veth}p" name eth0
  fi
  ip -n "$ns" addr show dev eth0 | grep -F " $addr/" >/dev/null || ip -n "$ns" addr add "$addr/16" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
  ip link set "$veth" master "$NET_BRIDGE"
  ip link set "$veth" up
}

# RUN_DIR/hosts: the host's /etc/hosts plus the test network. Rewritten in place
# (same inode) because it is bind-mounted into the root.
write_hosts() {
  local tmp
  tmp=$(mktemp)
  {
    grep -v '# tidepool-testenv$' /etc/hosts || true
    if [[ $(net_mode) == netns ]]; then
      printf '%s %s # tidepool-testenv\n' "$NET_CTL_ADDR" "tidepool-ctl"
      awk '{ printf "%s %s # tidepool-testenv\n", $3, $1 }' "$RUN_DIR/nodes" 2>/dev/null || true
    fi
  } >"$tmp"
  cat "$tmp" >"$RUN_DIR/hosts"
  rm -f "$tmp"
}

# --- configuration ----------------------------------------------------------------

# Keys owned by the environment: removed from any input slurm.conf, then set here.
INJECTED_KEYS=(SlurmctldHost ControlMachine ControlAddr BackupController BackupAddr
  SlurmctldPort SlurmdPort SlurmUser SlurmdUser AuthType AuthAltTypes AuthAltParameters
  AuthInfo CredType StateSaveLocation SlurmdSpoolDir SlurmctldPidFile SlurmdPidFile
  SlurmctldLogFile SlurmdLogFile PluginDir ProctrackType TaskPlugin JobAcctGatherType
  AccountingStorageType AccountingStorageHost AccountingStoragePort AccountingStoragePass)

ctld_host_line() {
  if [[ $(net_mode) == netns ]]; then
    printf 'SlurmctldHost=%s(%s)\n' "$(hostname -s)" "$NET_CTL_ADDR"
  else
    printf 'SlurmctldHost=%s(127.0.0.1)\n' "$(hostname -s)"
  fi
}

# Rewrites slurm.conf (RUN_DIR/etc/slurm.conf, or the file given) and RUN_DIR/etc/cgroup.conf
# in place so they run here.
inject_config() {
  local with_dbd=$1 conf=${2:-$RUN_DIR/etc/slurm.conf} keys
  keys=$(IFS='|'; echo "${INJECTED_KEYS[*]}")
  sed -i -E "/^[[:space:]]*($keys)[[:space:]]*=/Id" "$conf"
  sed -i -E '/^# --- tidepool testenv: injected/,$d' "$conf"
  # Addresses and ports of nodes come from this environment.
  sed -i -E '/^[[:space:]]*NodeName[[:space:]]*=/I{
    s/[[:space:]]+(NodeAddr|NodeHostname|Port)[[:space:]]*=[^[:space:]]*//Ig
  }' "$conf"
  grep -qiE '^[[:space:]]*ClusterName[[:space:]]*=' "$conf" || sed -i '1i ClusterName=tidepool' "$conf"
  {
    echo "# --- tidepool testenv: injected by tools/testenv/slurm (do not edit below) ---"
    ctld_host_line
    echo "SlurmctldPort=$CTLD_PORT"
    echo "SlurmdPort=$SLURMD_PORT"
    echo "SlurmUser=slurm"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    echo "AuthAltTypes=auth/jwt"
    echo "AuthAltParameters=jwt_key=$IN_ROOT_RUN/jwt.key"
    echo "StateSaveLocation=$IN_ROOT_RUN/spool/slurmctld"
    echo "SlurmdSpoolDir=$IN_ROOT_RUN/spool/slurmd-%n"
    echo "SlurmctldPidFile=$IN_ROOT_RUN/spool/slurmctld/slurmctld.pid"
    echo "SlurmdPidFile=$IN_ROOT_RUN/pids/slurmd-%n.pidfile"
    echo "SlurmctldLogFile=$IN_ROOT_RUN/log/slurmctld.log"
    echo "SlurmdLogFile=$IN_ROOT_RUN/log/slurmd-%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    if ((with_dbd)); then
      echo "AccountingStorageType=accounting_storage/slurmdbd"
      echo "AccountingStorageHost=localhost"
      echo "AccountingStoragePort=$DBD_PORT"
    fi
  } >>"$conf"
  if [[ $(net_mode) == ports ]]; then
    inject_ports "$conf"
  fi
  # No cgroup filesystem here: slurmd only starts with the cgroup plugin disabled.
  local cg=$RUN_DIR/etc/cgroup.conf
  [[ -f $cg ]] || : >"$cg"
  sed -i -E '/^[[:space:]]*CgroupPlugin[[:space:]]*=/Id; /^# tidepool testenv$/d' "$cg"
  printf '# tidepool testenv\nCgroupPlugin=disabled\n' >>"$cg"
  chmod 644 "$conf" "$cg"
}

# Fallback without namespaces: every node on 127.0.0.1 with its own port.
inject_ports() {
  local conf=$1 tmp line names count port=17001
  tmp=$(mktemp)
  while IFS= read -r line || [[ -n $line ]]; do
    if [[ $line =~ ^[[:space:]]*[Nn][Oo][Dd][Ee][Nn][Aa][Mm][Ee][[:space:]]*=[[:space:]]*([^[:space:]]+) ]] &&
      [[ ${BASH_REMATCH[1],,} != default ]]; then
      names=${BASH_REMATCH[1]}
      count=$(chroot "$(current_root)" scontrol show hostnames "$names" | wc -l)
      if ((count == 1)); then
        line+=" NodeHostname=localhost NodeAddr=127.0.0.1 Port=$port"
      else
        line+=" NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$port-$((port + count - 1))]"
      fi
      port=$((port + count))
    fi
    printf '%s\n' "$line"
  done <"$conf" >"$tmp"
  cat "$tmp" >"$conf"
  rm -f "$tmp"
}

default_config() {
  local nodes=$1 hl
  hl=n-[01-$(printf '%02d' "$nodes")]
  ((nodes == 1)) && hl=n-01
  cat >"$RUN_DIR/etc/slurm.conf" <<EOF
# Generated by tools/testenv/slurm/up (default test cluster, $nodes nodes).
ClusterName=tidepool
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
# As Tidepool renders it: a node set DOWN stays DOWN when its slurmd registers again (each
# reconfigure restarts slurmctld, which asks every node to register).
ReturnToService=1
MaxNodeCount=1024
MpiDefault=none
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$hl CPUs=2 RealMemory=1024 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  printf 'CgroupPlugin=disabled\n' >"$RUN_DIR/etc/cgroup.conf"
}

# Node names of RUN_DIR/etc/slurm.conf (NodeName lines, DEFAULT excluded), one a line.
config_nodes() {
  local spec
  spec=$(sed -n -E 's/^[[:space:]]*NodeName[[:space:]]*=[[:space:]]*([^[:space:]]+).*/\1/Ip' "$RUN_DIR/etc/slurm.conf" |
    grep -vix default | paste -sd, -)
  [[ -n $spec ]] || return 0
  chroot "$(current_root)" scontrol show hostnames "$spec"
}

# --- daemons ----------------------------------------------------------------------

root_uid() { chroot "$(current_root)" id -u "$1"; }

start_munge() {
  local root uid
  root=$(current_root)
  pidfile_alive "$PID_DIR/munged" && return 0
  uid=$(root_uid munge)
  mkdir -p "$RUN_DIR/munge" "$root/run/munge"
  if [[ ! -f $RUN_DIR/munge/munge.key ]]; then
    head -c 1024 /dev/urandom >"$RUN_DIR/munge/munge.key"
  fi
  chown -R "$uid:$uid" "$RUN_DIR/munge" "$root/run/munge"
  chmod 700 "$RUN_DIR/munge"
  chmod 400 "$RUN_DIR/munge/munge.key"
  chmod 755 "$root/run/munge"
  log "starting munged"
  spawn "munged" chroot --userspec=munge:munge "$root" munged -F --force \
    --key-file="$IN_ROOT_RUN/munge/munge.key" --seed-file="$IN_ROOT_RUN/munge/munged.seed" \
    --pid-file="$IN_ROOT_RUN/munge/munged.pid" --log-file="$IN_ROOT_RUN/log/munged.log"
  wait_for 20 "munged" bash -c "chroot '$root' munge -n | chroot '$root' unmunge"
}

start_mariadb() {
  local root uid
  root=$(current_root)
  pidfile_alive "$PID_DIR/mariadbd" && return 0
  uid=$(root_uid mysql)
  mkdir -p "$RUN_DIR/mysql" "$root/run/mysqld" "$root/run/mariadbd"
  chown "$uid:$uid" "$RUN_DIR/mysql" "$root/run/mysqld" "$root/run/mariadbd"
  # Client libraries look for /run/mysqld (trixie) or /run/mariadbd (sid): serve both.
  ln -sfn ../mysqld/mysqld.sock "$root/run/mariadbd/mysqld.sock"
  if [[ ! -d $RUN_DIR/mysql/mysql ]]; then
    log "initialising MariaDB in $RUN_DIR/mysql"
    chroot "$root" mariadb-install-db --user=mysql --datadir="$IN_ROOT_RUN/mysql" \
      --auth-root-authentication-method=socket --skip-test-db >>"$LOG_DIR/mariadb-install.log" 2>&1 ||
      { tail -n 20 "$LOG_DIR/mariadb-install.log" >&2; return 1; }
  fi
  log "starting mariadbd (UNIX socket only)"
  spawn "mariadbd" chroot "$root" mariadbd --user=mysql --datadir="$IN_ROOT_RUN/mysql" \
    --socket=/run/mysqld/mysqld.sock --skip-networking --pid-file=/run/mysqld/mysqld.pid \
    --loose-innodb-snapshot-isolation=OFF --loose-innodb-lock-wait-timeout=900 \
    --log-error="$IN_ROOT_RUN/log/mariadb.log"
  wait_for 60 "mariadbd" chroot "$root" mariadb --socket=/run/mysqld/mysqld.sock -e 'SELECT 1'
  local pass
  pass=$(cat "$RUN_DIR/dbd.pass")
  chroot "$root" mariadb --socket=/run/mysqld/mysqld.sock <<SQL
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$pass';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
FLUSH PRIVILEGES;
SQL
}

write_dbd_config() {
  [[ -f $RUN_DIR/dbd.pass ]] || { head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$RUN_DIR/dbd.pass"; }
  chmod 600 "$RUN_DIR/dbd.pass"
  cat >"$RUN_DIR/etc/slurmdbd.conf" <<EOF
# Generated by tools/testenv/slurm/up
AuthType=auth/munge
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$IN_ROOT_RUN/jwt.key
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=slurm
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=$(cat "$RUN_DIR/dbd.pass")
StorageLoc=slurm_acct_db
LogFile=$IN_ROOT_RUN/log/slurmdbd.log
PidFile=$IN_ROOT_RUN/spool/slurmdbd/slurmdbd.pid
EOF
  chown "$(root_uid slurm)" "$RUN_DIR/etc/slurmdbd.conf"
  chmod 600 "$RUN_DIR/etc/slurmdbd.conf"
}

start_slurmdbd() {
  local root cluster
  root=$(current_root)
  pidfile_alive "$PID_DIR/slurmdbd" && return 0
  own_by_slurm "$RUN_DIR/spool/slurmdbd" "$LOG_DIR/slurmdbd.log"
  log "starting slurmdbd"
  spawn "slurmdbd" chroot "$root" slurmdbd -D
  wait_for 60 "slurmdbd" chroot "$root" sacctmgr -n show cluster
  cluster=$(sed -n -E 's/^[[:space:]]*ClusterName[[:space:]]*=[[:space:]]*([^[:space:]#]+).*/\1/Ip' "$RUN_DIR/etc/slurm.conf" | head -n 1)
  chroot "$root" sacctmgr -i add cluster "$cluster" >/dev/null 2>&1 || true
}

# own_by_slurm DIR LOGFILE: a state directory and a log file for a daemon that
# drops to SlurmUser (slurm) after start.
own_by_slurm() {
  local uid
  uid=$(root_uid slurm)
  mkdir -p "$1"
  touch "$2"
  chown "$uid:$uid" "$1" "$2"
  chmod 700 "$1"
  chmod 600 "$2"
}

# The JWT key: root-owned, group SlurmUser, not readable by others.
write_jwt_key() {
  head -c 32 /dev/urandom >"$RUN_DIR/jwt.key"
  chown "0:$(chroot "$(current_root)" id -g slurm)" "$RUN_DIR/jwt.key"
  chmod 640 "$RUN_DIR/jwt.key"
}

start_slurmctld() {
  local root
  root=$(current_root)
  pidfile_alive "$PID_DIR/slurmctld" && return 0
  own_by_slurm "$RUN_DIR/spool/slurmctld" "$LOG_DIR/slurmctld.log"
  log "starting slurmctld"
  spawn "slurmctld" chroot "$root" slurmctld -D -i
  wait_for 60 "slurmctld" bash -c "chroot '$root' scontrol ping | grep UP >/dev/null"
}

# start_slurmd NODE: in its own network (and UTS) namespace in netns mode.
start_slurmd() {
  local node=$1 root
  root=$(current_root)
  pidfile_alive "$PID_DIR/slurmd-$node" && return 0
  node_absent "$node" && return 0
  mkdir -p "$RUN_DIR/spool/slurmd-$node"
  if [[ $(net_mode) == netns ]]; then
    node_net_up "$node"
    # shellcheck disable=SC2016  # expanded by the inner sh
    spawn "slurmd-$node" nsenter --net="/run/netns/$(netns_of "$node")" \
      unshare --uts /bin/sh -c 'hostname "$1" && exec chroot "$2" slurmd -D -N "$1"' sh "$node" "$root"
  else
    spawn "slurmd-$node" chroot "$root" slurmd -D -N "$node"
  fi
}

rest_sources() {
  if (($(state_get with_dbd))); then echo openapi/slurmctld,openapi/slurmdbd; else echo openapi/slurmctld; fi
}

rest_url() { printf 'http://%s:%s\n' "$REST_ADDR" "$(state_get rest_port)"; }
rest_socket_path() { printf '%s/rest/slurmrestd.sock\n' "$RUN_DIR"; }

# JWT on TCP (as the unprivileged REST_USER); rest_auth/local on a UNIX socket (as
# root, so requests through the socket act as root) when the state says so. Both answer
# compact JSON, as the product's slurmrestd does (cluster-controller's restapi_builders.cc).
start_rest() {
  local root port
  root=$(current_root)
  port=$(state_get rest_port)
  if ! pidfile_alive "$PID_DIR/slurmrestd"; then
    log "starting slurmrestd (rest_auth/jwt) on $REST_ADDR:$port"
    spawn "slurmrestd" env SLURM_JWT=daemon SLURMRESTD_JSON=compact chroot --userspec="$REST_USER:$REST_USER" "$root" \
      slurmrestd -s "$(rest_sources)" -a rest_auth/jwt "$REST_ADDR:$port"
  fi
  if (($(state_get rest_socket))) && ! pidfile_alive "$PID_DIR/slurmrestd-socket"; then
    mkdir -p "$RUN_DIR/rest"
    chmod 755 "$RUN_DIR/rest"
    rm -f "$(rest_socket_path)"
    log "starting slurmrestd (rest_auth/local) on unix:$(rest_socket_path)"
    # Runs as root so that requests through the socket act as root. 26.05 refuses
    # disable_user_check outside development builds but accepts become_user (which
    # keeps root for a root client); 24.11 needs disable_user_check.
    local security=disable_user_check
    grep -aqF 'disable_user_check should only be used for development' "$root/usr/sbin/slurmrestd" &&
      security=become_user
    spawn "slurmrestd-socket" env SLURMRESTD_SECURITY=$security SLURMRESTD_JSON=compact chroot "$root" \
      slurmrestd -s "$(rest_sources)" -a rest_auth/local "unix:$IN_ROOT_RUN/rest/slurmrestd.sock"
  fi
  wait_rest
}

wait_rest() {
  local token
  token=$(mint_token root 300)
  wait_for 30 "slurmrestd on $(rest_url)" \
    curl -sf -H "X-SLURM-USER-TOKEN: $token" "$(rest_url)/openapi/v3"
  if (($(state_get rest_socket))); then
    wait_for 30 "slurmrestd on $(rest_socket_path)" \
      curl -sf --unix-socket "$(rest_socket_path)" http://localhost/openapi/v3
  fi
}

stop_rest() {
  stop_pidfile slurmrestd "$PID_DIR/slurmrestd" 10
  stop_pidfile "slurmrestd (socket)" "$PID_DIR/slurmrestd-socket" 10
  rm -f "$(rest_socket_path)"
}

mint_token() { # USER LIFESPAN
  chroot "$(current_root)" scontrol token username="$1" lifespan="$2" | sed -n 's/^SLURM_JWT=//p'
}

# --- teardown -----------------------------------------------------------------------

# PIDs of every process whose root directory is ROOT (daemons, slurmstepd, jobs).
pids_in_root() {
  find /proc -mindepth 2 -maxdepth 2 -name root -lname "$1" 2>/dev/null |
    awk -F/ '$3 ~ /^[0-9]+$/ && $3 != "'"$$"'" { print $3 }'
  return 0
}

kill_root_processes() {
  local root=$1 pids i
  mapfile -t pids < <(pids_in_root "$root")
  ((${#pids[@]})) || return 0
  log "terminating ${#pids[@]} leftover process(es) in $root"
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    mapfile -t pids < <(pids_in_root "$root")
    ((${#pids[@]})) || return 0
    sleep 0.1
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
  sleep 0.3
}

net_down() {
  local ns
  while read -r ns _; do
    [[ $ns == "$NETNS_PREFIX"* ]] || continue
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || log "warning: could not delete netns $ns"
  done < <(ip netns list 2>/dev/null)
  local l
  while read -r l; do
    ip link del "$l" 2>/dev/null || true
  done < <(ip -o link show 2>/dev/null | awk -F': ' -v p="$VETH_PREFIX" 'index($2, p) == 1 { sub(/@.*/, "", $2); print $2 }')
  if ip link show "$NET_BRIDGE" >/dev/null 2>&1; then
    ip link del "$NET_BRIDGE" || log "warning: could not delete bridge $NET_BRIDGE"
  fi
}

# Stops everything this environment may have started, in order, then sweeps.
teardown() {
  local f root roots=()
  if [[ -d $PID_DIR ]]; then
    stop_rest
    local slurmds=()
    for f in "$PID_DIR"/slurmd-*; do
      [[ -e $f && $f != *.pidfile ]] && slurmds+=("$f")
    done
    # TERM all slurmd at once, then wait for each
    for f in "${slurmds[@]}"; do
      kill -TERM "$(cat "$f")" 2>/dev/null || true
    done
    for f in "${slurmds[@]}"; do
      stop_pidfile "${f##*/}" "$f" 10
    done
    stop_pidfile slurmctld "$PID_DIR/slurmctld" 15
    stop_pidfile slurmdbd "$PID_DIR/slurmdbd" 15
    stop_pidfile mariadbd "$PID_DIR/mariadbd" 30
    stop_pidfile munged "$PID_DIR/munged" 10
  fi
  root=$(state_get root 2>/dev/null || true)
  [[ -n $root ]] && roots+=("$root")
  for f in "$ROOTS_DIR"/*/; do
    [[ -d $f ]] && roots+=("${f%/}")
  done
  for root in "${roots[@]}"; do
    kill_root_processes "$root"
    unmount_below "$root" || log "warning: mounts left below $root: $(mounts_below "$root" | paste -sd' ' -)"
  done
  net_down
  wait_reaped 50
  if [[ -d $RUN_DIR ]]; then
    if [[ -n $(mounts_below "$RUN_DIR") ]]; then
      log "warning: $RUN_DIR still has mounts, not removing it"
    else
      rm -rf --one-file-system "$RUN_DIR"
    fi
  fi
}
