#include "slurm_testenv.h"

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

std::map<std::string, std::string> ParseNodeAddresses(const std::string& content) {
  std::map<std::string, std::string> addresses;
  for (absl::string_view line : absl::StrSplit(content, '\n', absl::SkipWhitespace())) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (fields.size() >= 3) addresses[std::string(fields[0])] = std::string(fields[2]);
  }
  return addresses;
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

std::map<std::string, std::string> SlurmTestenv::NodeAddresses() const {
  std::optional<std::string> content = ReadFile(run_dir_ + "/nodes");
  return content ? ParseNodeAddresses(*content) : std::map<std::string, std::string>{};
}

std::optional<std::string> SlurmTestenv::NodeAddress(const std::string& node) const {
  std::map<std::string, std::string> addresses = NodeAddresses();
  auto found = addresses.find(node);
  if (found == addresses.end()) return std::nullopt;
  return found->second;
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

absl::Status SlurmTestenv::Reconfigure(const std::string& config_dir) {
  return RunScript("reconfigure", {"--config-dir", config_dir, "--no-start"}, absl::Seconds(180));
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
