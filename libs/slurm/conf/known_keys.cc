#include "slurm/conf/known_keys.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <span>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace tidepool::slurm {
namespace {

// Key names as Slurm's parser tables list them (facts of its configuration language).
constexpr std::array<absl::string_view, 256> kGlobalKeys = {
    "AccountingStorageBackupHost",
    "AccountingStorageEnforce",
    "AccountingStorageExternalHost",
    "AccountingStorageHost",
    "AccountingStorageLoc",
    "AccountingStorageParameters",
    "AccountingStoragePass",
    "AccountingStoragePort",
    "AccountingStorageTRES",
    "AccountingStorageType",
    "AccountingStorageUser",
    "AccountingStoreFlags",
    "AccountingStoreJobComment",
    "AcctGatherEnergyType",
    "AcctGatherFilesystemType",
    "AcctGatherInfinibandType",
    "AcctGatherInterconnectType",
    "AcctGatherNodeFreq",
    "AcctGatherProfileType",
    "AllowSpecResourcesUsage",
    "AuthAltParameters",
    "AuthAltTypes",
    "AuthInfo",
    "AuthType",
    "BackupAddr",
    "BackupController",
    "BatchStartTimeout",
    "BcastExclude",
    "BcastParameters",
    "BurstBufferParameters",
    "BurstBufferType",
    "CertgenParameters",
    "CertgenType",
    "CertmgrParameters",
    "CertmgrType",
    "CliFilterParameters",
    "CliFilterPlugins",
    "ClusterName",
    "CommunicationParameters",
    "CompleteWait",
    "ControlAddr",
    "ControlMachine",
    "CoreSpecPlugin",
    "CpuFreqDef",
    "CpuFreqGovernors",
    "CredType",
    "CryptoType",
    "DataParserParameters",
    "DebugFlags",
    "DefCPUPerGPU",
    "DefMemPerCPU",
    "DefMemPerGPU",
    "DefMemPerNode",
    "DefRuntimePlugin",
    "DependencyParameters",
    "DisableRootJobs",
    "DownNodes",
    "EioTimeout",
    "EnforcePartLimits",
    "Epilog",
    "EpilogMsgTime",
    "EpilogSlurmctld",
    "EpilogTimeout",
    "ExtSensorsFreq",
    "ExtSensorsType",
    "FairShareDampeningFactor",
    "FastSchedule",
    "FederationParameters",
    "FirstJobId",
    "FrontendName",
    "GetEnvTimeout",
    "GpuFreqDef",
    "GresTypes",
    "GroupUpdateForce",
    "GroupUpdateTime",
    "HashPlugin",
    "HealthCheckInterval",
    "HealthCheckNodeState",
    "HealthCheckProgram",
    "HealthCheckTimeout",
    "HttpParserType",
    "InactiveLimit",
    "InteractiveStepOptions",
    "JobAcctGatherFrequency",
    "JobAcctGatherParams",
    "JobAcctGatherType",
    "JobCompHost",
    "JobCompLoc",
    "JobCompParams",
    "JobCompPass",
    "JobCompPassScript",
    "JobCompPort",
    "JobCompType",
    "JobCompUser",
    "JobContainerType",
    "JobCredentialPrivateKey",
    "JobCredentialPublicCertificate",
    "JobFileAppend",
    "JobRequeue",
    "JobSubmitPlugins",
    "KeepAliveTime",
    "KillOnBadExit",
    "KillWait",
    "LaunchParameters",
    "LaunchType",
    "LicenseParameters",
    "Licenses",
    "LogTimeFormat",
    "MailDomain",
    "MailProg",
    "MaxArraySize",
    "MaxBatchRequeue",
    "MaxDBDMsgs",
    "MaxJobCount",
    "MaxJobId",
    "MaxMemPerCPU",
    "MaxMemPerNode",
    "MaxNodeCount",
    "MaxStepCount",
    "MaxTasksPerNode",
    "MCSParameters",
    "MCSPlugin",
    "MessageTimeout",
    "MetricsAuthUsers",
    "MetricsParameters",
    "MetricsType",
    "MinJobAge",
    "MpiDefault",
    "MpiParams",
    "NamespaceType",
    "NodeFeaturesPlugins",
    "NodeName",
    "NodeSet",
    "OverTimeLimit",
    "PartitionName",
    "PluginDir",
    "PlugStackConfig",
    "PowerAction",
    "PowerParameters",
    "PowerPlugin",
    "PreemptExemptTime",
    "PreemptMode",
    "PreemptParameters",
    "PreemptType",
    "PrEpParameters",
    "PrEpPlugins",
    "PriorityCalcPeriod",
    "PriorityDecayHalfLife",
    "PriorityFavorSmall",
    "PriorityFlags",
    "PriorityMaxAge",
    "PriorityParameters",
    "PrioritySiteFactorParameters",
    "PrioritySiteFactorPlugin",
    "PriorityType",
    "PriorityUsageResetPeriod",
    "PriorityWeightAge",
    "PriorityWeightAssoc",
    "PriorityWeightFairshare",
    "PriorityWeightJobSize",
    "PriorityWeightPartition",
    "PriorityWeightQOS",
    "PriorityWeightTRES",
    "PrivateData",
    "ProctrackType",
    "Prolog",
    "PrologEpilogTimeout",
    "PrologFlags",
    "PrologSlurmctld",
    "PrologTimeout",
    "PropagatePrioProcess",
    "PropagateResourceLimits",
    "PropagateResourceLimitsExcept",
    "RebootProgram",
    "ReconfigFlags",
    "RequeueExit",
    "RequeueExitHold",
    "ResumeFailProgram",
    "ResumeProgram",
    "ResumeRate",
    "ResumeTimeout",
    "ResvEpilog",
    "ResvOverRun",
    "ResvProlog",
    "ReturnToService",
    "RoutePlugin",
    "SallocDefaultCommand",
    "SbcastParameters",
    "SchedulerParameters",
    "SchedulerTimeSlice",
    "SchedulerType",
    "ScronParameters",
    "SelectType",
    "SelectTypeParameters",
    "SerializerParameters",
    "SerializerPlugins",
    "SlurmctldAddr",
    "SlurmctldDebug",
    "SlurmctldHost",
    "SlurmctldHttpAuthParameters",
    "SlurmctldLogFile",
    "SlurmctldParameters",
    "SlurmctldPidFile",
    "SlurmctldPort",
    "SlurmctldPrimaryOffProg",
    "SlurmctldPrimaryOnProg",
    "SlurmctldSyslogDebug",
    "SlurmctldTimeout",
    "SlurmdDebug",
    "SlurmdHttpAuthParameters",
    "SlurmdLogFile",
    "SlurmdParameters",
    "SlurmdPidFile",
    "SlurmdPort",
    "SlurmdSpoolDir",
    "SlurmdSyslogDebug",
    "SlurmdTimeout",
    "SlurmdUser",
    "SlurmrestdHttpAuthParameters",
    "SlurmrestdParameters",
    "SlurmSchedLogFile",
    "SlurmSchedLogLevel",
    "SlurmstepdParameters",
    "SlurmUser",
    "SrunEpilog",
    "SrunPortRange",
    "SrunProlog",
    "StateSaveLocation",
    "SuspendExcNodes",
    "SuspendExcParts",
    "SuspendExcStates",
    "SuspendProgram",
    "SuspendRate",
    "SuspendTime",
    "SuspendTimeout",
    "SwitchParameters",
    "SwitchType",
    "TaskEpilog",
    "TaskPlugin",
    "TaskPluginParam",
    "TaskProlog",
    "TCPTimeout",
    "TLSParameters",
    "TLSType",
    "TmpFS",
    "TopologyParam",
    "TopologyPlugin",
    "TrackWCKey",
    "TreeWidth",
    "UnkillableStepProgram",
    "UnkillableStepTimeout",
    "UrlParserType",
    "UsePAM",
    "VSizeFactor",
    "WaitTime",
    "X11Parameters",
};

constexpr std::array<absl::string_view, 29> kNodeKeys = {
    "BcastAddr", "Boards",          "CoreSpecCount", "CoresPerSocket", "CpuBind",
    "CPUs",      "CPUSpecList",     "Feature",       "Features",       "Gres",
    "GresConf",  "MemSpecLimit",    "NodeAddr",      "NodeHostname",   "Parameters",
    "Port",      "Procs",           "RealMemory",    "Reason",         "RestrictedCoresPerGPU",
    "Sockets",   "SocketsPerBoard", "State",         "SuspendTime",    "ThreadsPerCore",
    "TmpDisk",   "Topology",        "TRESWeights",   "Weight",
};

constexpr std::array<absl::string_view, 46> kPartitionKeys = {
    "AllocNodes",      "AllowAccounts",
    "AllowGroups",     "AllowQos",
    "Alternate",       "CpuBind",
    "Default",         "DefaultTime",
    "DefCPUPerGPU",    "DefMemPerCPU",
    "DefMemPerGPU",    "DefMemPerNode",
    "DenyAccounts",    "DenyQos",
    "DisableRootJobs", "ExclusiveTopo",
    "ExclusiveUser",   "GraceTime",
    "Hidden",          "LLN",
    "MaxCPUsPerNode",  "MaxCPUsPerSocket",
    "MaxMemPerCPU",    "MaxMemPerNode",
    "MaxNodes",        "MaxTime",
    "MinNodes",        "Nodes",
    "OverSubscribe",   "OverTimeLimit",
    "PowerDownOnIdle", "PreemptMode",
    "Priority",        "PriorityJobFactor",
    "PriorityTier",    "QOS",
    "ReqResv",         "ResumeTimeout",
    "RootOnly",        "SelectTypeParameters",
    "Shared",          "State",
    "SuspendTime",     "SuspendTimeout",
    "Topology",        "TRESBillingWeights",
};

std::span<const absl::string_view> KeysOf(KeyScope scope) {
  switch (scope) {
    case KeyScope::kGlobal:
      return kGlobalKeys;
    case KeyScope::kNodeLine:
      return kNodeKeys;
    case KeyScope::kPartitionLine:
      return kPartitionKeys;
  }
  return {};
}

// Levenshtein distance, case ignored; one row of the table at a time.
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = absl::ascii_tolower(a[i - 1]) == absl::ascii_tolower(b[j - 1]);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

bool IsKnownKey(KeyScope scope, absl::string_view key) {
  for (absl::string_view known : KeysOf(scope)) {
    if (absl::EqualsIgnoreCase(known, key)) return true;
  }
  return false;
}

std::optional<std::string> NearestKnownKey(KeyScope scope, absl::string_view key) {
  // Keys are bounded (the caller checked their characters); a long one is not a typo.
  constexpr size_t kLongest = 64;
  if (key.empty() || key.size() > kLongest) return std::nullopt;
  const size_t allowed = std::max<size_t>(1, key.size() / 4);
  std::optional<std::string> nearest;
  size_t best = allowed + 1;
  for (absl::string_view known : KeysOf(scope)) {
    const size_t distance = EditDistance(key, known);
    if (distance < best) {
      best = distance;
      nearest = std::string(known);
    }
  }
  return nearest;
}

}  // namespace tidepool::slurm
