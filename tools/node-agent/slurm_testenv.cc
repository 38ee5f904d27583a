#include "slurm_testenv.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/log.h"
#include "process.h"

namespace tidepool::node_agent {
namespace {

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

// The State: letter of /proc/PID/status (R, S, T, Z, …), empty when there is no process.
std::string ProcessState(int pid) {
  std::optional<std::string> status = ReadFile(absl::StrCat("/proc/", pid, "/status"));
  if (!status) return "";
  for (absl::string_view line : absl::StrSplit(*status, '\n')) {
    if (absl::ConsumePrefix(&line, "State:")) {
      line = absl::StripLeadingAsciiWhitespace(line);
      return std::string(line.substr(0, 1));
    }
  }
  return "";
}

std::optional<int> PidFromFile(const std::string& pid_file) {
  std::optional<std::string> text = ReadFile(pid_file);
  int pid = 0;
  if (!text || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &pid) || pid <= 0) {
    return std::nullopt;
  }
  return pid;
}

}  // namespace

std::map<std::string, TestenvNode> ParseNodesFile(const std::string& content) {
  std::map<std::string, TestenvNode> nodes;
  for (absl::string_view line : absl::StrSplit(content, '\n', absl::SkipWhitespace())) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (fields.size() < 3) {
      continue;
    }
    nodes[std::string(fields[0])] = TestenvNode{
        .address = std::string(fields[2]), .absent = fields.size() > 3 && fields[3] == "absent"};
  }
  return nodes;
}

SlurmTestenv::SlurmTestenv(std::string scripts_dir, std::string run_dir, absl::Duration stop_grace)
    : scripts_dir_(std::move(scripts_dir)), run_dir_(std::move(run_dir)), stop_grace_(stop_grace) {}

absl::Status SlurmTestenv::CheckUp() const {
  if (!std::filesystem::exists(scripts_dir_ + "/start-slurmd")) {
    return absl::FailedPreconditionError(
        absl::StrCat("--slurm_testenv ", scripts_dir_, " has no start-slurmd script"));
  }
  if (!std::filesystem::exists(run_dir_ + "/state")) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the Slurm test environment is not up (no ", run_dir_,
        "/state); start it with tools/testenv/slurm/up or run without --slurm_testenv"));
  }
  return absl::OkStatus();
}

bool SlurmTestenv::KnowsNode(const std::string& node) const {
  absl::StatusOr<ProcessResult> shown =
      RunProcess({scripts_dir_ + "/exec", "scontrol", "show", "node", node}, absl::Seconds(20));
  return shown.ok() && shown->exit_code == 0;
}

std::optional<int> SlurmTestenv::SlurmdPid(const std::string& node) const {
  return PidFromFile(absl::StrCat(run_dir_, "/pids/slurmd-", node));
}

bool SlurmTestenv::SlurmdRunning(const std::string& node) const {
  std::optional<int> pid = SlurmdPid(node);
  if (!pid) return false;
  const std::string state = ProcessState(*pid);
  return !state.empty() && state != "Z";
}

std::shared_ptr<const std::map<std::string, TestenvNode>> SlurmTestenv::Nodes() const {
  const std::string path = run_dir_ + "/nodes";
  std::error_code error;
  const auto modified = std::filesystem::last_write_time(path, error);
  const auto size = error ? 0 : std::filesystem::file_size(path, error);
  const std::string stamp =
      error ? "" : absl::StrCat(modified.time_since_epoch().count(), "/", size);
  absl::MutexLock lock(&nodes_mutex_);
  if (nodes_ == nullptr || stamp.empty() || stamp != nodes_stamp_) {
    std::optional<std::string> content = ReadFile(path);
    nodes_ = std::make_shared<const std::map<std::string, TestenvNode>>(
        content ? ParseNodesFile(*content) : std::map<std::string, TestenvNode>{});
    nodes_stamp_ = stamp;
  }
  return nodes_;
}

std::map<std::string, std::string> SlurmTestenv::NodeAddresses() const {
  std::map<std::string, std::string> addresses;
  for (const auto& [name, node] : *Nodes()) {
    addresses[name] = node.address;
  }
  return addresses;
}

std::optional<std::string> SlurmTestenv::NodeAddress(const std::string& node) const {
  std::shared_ptr<const std::map<std::string, TestenvNode>> nodes = Nodes();
  auto found = nodes->find(node);
  if (found == nodes->end()) {
    return std::nullopt;
  }
  return found->second.address;
}

bool SlurmTestenv::SlurmdAbsent(const std::string& node) const {
  std::shared_ptr<const std::map<std::string, TestenvNode>> nodes = Nodes();
  auto found = nodes->find(node);
  return found != nodes->end() && found->second.absent;
}

absl::Status SlurmTestenv::StartSlurmd(const std::string& node) {
  return RunScript("start-slurmd", {node}, absl::Seconds(60));
}

absl::Status SlurmTestenv::KillSlurmd(const std::string& node) {
  return RunScript("kill-slurmd", {node}, absl::Seconds(30));
}

absl::Status SlurmTestenv::StopSlurmd(const std::string& node) {
  if (!SlurmdRunning(node)) return absl::OkStatus();
  absl::Status termed = RunScript("kill-slurmd", {"--signal", "TERM", node}, absl::Seconds(30));
  if (!termed.ok()) return termed;
  const absl::Time deadline = absl::Now() + stop_grace_;
  while (SlurmdRunning(node) && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(100));
  // Past the grace period: KILL, which also kills what else runs in the namespace.
  return SlurmdRunning(node) ? KillSlurmd(node) : absl::OkStatus();
}

absl::Status SlurmTestenv::Reconfigure(const std::string& config_dir, absl::Duration min_interval) {
  const int64_t seconds = absl::ToInt64Seconds(absl::Ceil(min_interval, absl::Seconds(1)));
  return RunScript("reconfigure",
                   {"--config-dir", config_dir, "--no-start",
                    absl::StrCat("--min-interval=", std::max<int64_t>(seconds, 0))},
                   absl::Seconds(180) + min_interval);
}

absl::Status SlurmTestenv::RunScript(const std::string& script,
                                     const std::vector<std::string>& args,
                                     absl::Duration timeout) const {
  std::vector<std::string> argv = {absl::StrCat(scripts_dir_, "/", script)};
  argv.insert(argv.end(), args.begin(), args.end());
  const std::string command = absl::StrJoin(argv, " ");
  absl::StatusOr<ProcessResult> result;
  {
    absl::MutexLock lock(&scripts_mutex_);
    result = RunProcess(argv, timeout);
  }
  if (!result.ok()) return result.status();
  common::LogDebug("script_ran", {{"command", command},
                                  {"exit_code", result->exit_code},
                                  {"output", absl::StripTrailingAsciiWhitespace(result->output)}});
  if (result->exit_code != 0) {
    return absl::InternalError(absl::StrCat(command, " exited with ", result->exit_code, ": ",
                                            absl::StripTrailingAsciiWhitespace(result->output)));
  }
  return absl::OkStatus();
}

}  // namespace tidepool::node_agent
