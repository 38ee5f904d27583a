#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"

extern char** environ;

namespace tidepool::node_agent {
namespace {

// A pipe whose ends close on exec, so only the dup2'ed copies reach the child.
struct Pipe {
  int read_end = -1;
  int write_end = -1;
};

absl::StatusOr<Pipe> MakePipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  return Pipe{fds[0], fds[1]};
}

absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, int output_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, output_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, output_fd, STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attributes, &empty);
  posix_spawnattr_setpgroup(&attributes, 0);  // its own group, so a timeout kills it all
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, argv[0].c_str(), &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    return absl::InternalError(absl::StrCat("cannot start ", argv[0], ": ", std::strerror(error)));
  }
  return pid;
}

// Reads `fd` until end of file or `deadline`; true on end of file.
bool ReadUntilClosed(int fd, absl::Time deadline, std::string& output) {
  char buffer[4096];
  while (true) {
    const int64_t left_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (left_ms <= 0) return false;
    pollfd waiting{.fd = fd, .events = POLLIN, .revents = 0};
    const int ready = poll(&waiting, 1, static_cast<int>(std::min<int64_t>(left_ms, 1000)));
    if (ready < 0 && errno != EINTR) return false;
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return true;
    }
    output.append(buffer, static_cast<size_t>(n));
  }
}

int ExitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return -WTERMSIG(wait_status);
  return -1;
}

}  // namespace

absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         absl::Duration timeout) {
  if (argv.empty()) return absl::InvalidArgumentError("RunProcess: no program");
  absl::StatusOr<Pipe> pipe = MakePipe();
  if (!pipe.ok()) return pipe.status();
  absl::StatusOr<pid_t> pid = Spawn(argv, pipe->write_end);
  close(pipe->write_end);
  if (!pid.ok()) {
    close(pipe->read_end);
    return pid.status();
  }
  ProcessResult result;
  const bool closed = ReadUntilClosed(pipe->read_end, absl::Now() + timeout, result.output);
  close(pipe->read_end);
  if (!closed) kill(-*pid, SIGKILL);
  int wait_status = 0;
  while (waitpid(*pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (!closed) {
    return absl::DeadlineExceededError(absl::StrCat(absl::StrJoin(argv, " "), " ran over ",
                                                    absl::FormatDuration(timeout), ": ",
                                                    result.output));
  }
  result.exit_code = ExitCodeOf(wait_status);
  return result;
}

}  // namespace tidepool::node_agent
