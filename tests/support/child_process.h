#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tidepool::testing {

// A child process whose stderr and stdout go to a file; killed (SIGKILL) and reaped if it is
// still running when destroyed.
class ChildProcess {
 public:
  static absl::StatusOr<ChildProcess> Spawn(const std::string& program,
                                            const std::vector<std::string>& args);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  absl::Status Signal(int signal_number);
  // The exit code, or -signal if killed by a signal; DeadlineExceeded if still running.
  absl::StatusOr<int> WaitForExit(absl::Duration timeout);
  bool Running();
  // Everything the child wrote to stdout and stderr so far.
  std::string Output() const;
  pid_t pid() const { return pid_; }

 private:
  ChildProcess(pid_t pid, std::string output_path)
      : pid_(pid), output_path_(std::move(output_path)) {}
  void KillAndReap();

  pid_t pid_ = -1;
  std::string output_path_;
  std::optional<int> exit_code_;
};

}  // namespace tidepool::testing
