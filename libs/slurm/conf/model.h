#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tidepool::slurm {

// The typed parts of Slurm's configuration that Tidepool owns. Writers turn these into
// deterministic text; nothing here knows about Kubernetes.

struct ControllerHost {
  std::string hostname;
  std::string address;  // optional; written as SlurmctldHost=hostname(address)
};

struct AccountingConfig {
  std::string storage_type;  // "" (none) or "accounting_storage/slurmdbd"
  std::string host;
  uint16_t port = 6819;
};

// One compute node. Nodes with identical attributes share one NodeName line.
struct NodeConfig {
  std::string name;
  int cpus = 0;  // 0: omitted, slurmd reports it
  int64_t real_memory_mib = 0;
  std::vector<std::string> features;
  std::string gres;                          // e.g. "gpu:h100:8"; empty: none
  int weight = 0;                            // 0: omitted
  std::map<std::string, std::string> extra;  // extra key=value on the line
  std::string state = "UNKNOWN";
};

struct PartitionConfig {
  std::string name;
  std::vector<std::string> nodes;
  bool is_default = false;
  std::string max_time;                      // "" omitted; "INFINITE" or minutes etc.
  std::map<std::string, std::string> extra;  // extra key=value on the line
  std::string state = "UP";
};

struct SlurmConf {
  std::string cluster_name;
  std::vector<ControllerHost> controllers;
  std::string slurm_user = "slurm";
  uint16_t slurmctld_port = 6817;
  uint16_t slurmd_port = 6818;
  std::string auth_type = "auth/munge";
  std::string jwt_key_path;  // non-empty: AuthAltTypes=auth/jwt with this key
  std::string state_save_location = "/var/spool/slurmctld";
  std::string slurmd_spool_dir = "/var/spool/slurmd";
  std::string select_type = "select/cons_tres";
  std::string select_type_parameters = "CR_Core_Memory";
  std::string proctrack_type = "proctrack/cgroup";
  std::string task_plugin = "task/cgroup,task/affinity";
  std::string scheduler_type = "sched/backfill";
  std::vector<std::string> scheduler_parameters;
  std::string topology_plugin;  // "", "topology/tree" or "topology/block"
  std::vector<std::string> gres_types;
  std::vector<std::string> slurmctld_parameters;
  // 1: a node DOWN only for not responding returns when its slurmd registers. With 2, any
  // DOWN node would, including one a person set DOWN (a bad GPU), at the next slurmd
  // restart or slurmctld restart (every reconfigure restarts slurmctld, which asks all
  // nodes to register again). spec.slurmConfig may still set 2.
  int return_to_service = 1;
  int max_node_count = 0;  // 0: omitted
  AccountingConfig accounting;
  std::string prolog;  // path or glob; "" omitted
  std::string epilog;
  // Validated user settings (slurmConfig), written in key order after Tidepool's own.
  std::map<std::string, std::string> user_settings;
  std::vector<NodeConfig> nodes;
  std::vector<PartitionConfig> partitions;
  // Validated verbatim text appended at the end (extraConfig).
  std::string extra_config;
};

// One node's generic resources; gres.conf groups nodes with equal name, type and count.
struct NodeGres {
  std::string node;
  std::string name = "gpu";
  std::string type;  // e.g. "h100"; "" omitted
  int count = 0;
  std::string device_prefix = "/dev/nvidia";  // File=<prefix>[0-(count-1)]; "" omits File
};

struct GresConf {
  std::string auto_detect;  // "" (explicit lines), "nvidia" or "nvml"
  std::vector<NodeGres> nodes;
};

struct TreeSwitch {
  std::string name;
  std::vector<std::string> nodes;     // leaf switch
  std::vector<std::string> switches;  // upper-level switch
};

struct TopologyBlock {
  std::string name;
  std::vector<std::string> nodes;
};

struct TopologyConf {
  std::vector<TreeSwitch> switches;   // topology/tree
  std::vector<TopologyBlock> blocks;  // topology/block
  std::vector<int> block_sizes;
};

struct CgroupConf {
  std::string plugin = "autodetect";  // "disabled" where no cgroup filesystem exists
  bool constrain_cores = true;
  bool constrain_devices = true;
  bool constrain_ram_space = true;
};

}  // namespace tidepool::slurm
