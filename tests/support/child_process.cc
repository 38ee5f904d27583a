#include "support/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace tidepool::testing {
namespace {

std::string NewOutputPath() {
  std::string pattern = "/tmp/tidepool-child-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd >= 0) close(fd);
  return pattern;
}

}  // namespace

absl::StatusOr<ChildProcess> ChildProcess::Spawn(const std::string& program,
                                                 const std::vector<std::string>& args) {
  std::string output_path = NewOutputPath();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);

  // The child must not inherit a blocked SIGTERM/SIGINT from the test process.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attributes, &empty);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, program.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    return absl::InternalError(absl::StrCat("cannot start ", program, ": ", std::strerror(error)));
  }
  return ChildProcess(pid, std::move(output_path));
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), output_path_(std::move(other.output_path_)), exit_code_(other.exit_code_) {
  other.pid_ = -1;
  other.output_path_.clear();
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    KillAndReap();
    pid_ = other.pid_;
    output_path_ = std::move(other.output_path_);
    exit_code_ = other.exit_code_;
    other.pid_ = -1;
    other.output_path_.clear();
  }
  return *this;
}

ChildProcess::~ChildProcess() { KillAndReap(); }

void ChildProcess::KillAndReap() {
  if (pid_ > 0 && !exit_code_.has_value()) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  if (!output_path_.empty()) unlink(output_path_.c_str());
  pid_ = -1;
}

absl::Status ChildProcess::Signal(int signal_number) {
  if (exit_code_.has_value()) return absl::FailedPreconditionError("process already exited");
  if (kill(pid_, signal_number) != 0) {
    return absl::InternalError(absl::StrCat("kill(", pid_, "): ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> ChildProcess::WaitForExit(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!exit_code_.has_value()) {
    int status = 0;
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
      break;
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("pid ", pid_, " still running after ", absl::FormatDuration(timeout)));
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  return *exit_code_;
}

bool ChildProcess::Running() { return !WaitForExit(absl::ZeroDuration()).ok(); }

std::string ChildProcess::Output() const {
  std::ifstream file(output_path_);
  std::ostringstream content;
  content << file.rdbuf();
  return content.str();
}

}  // namespace tidepool::testing
