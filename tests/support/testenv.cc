#include "support/testenv.h"

#include <signal.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "slurm/hostlist/hostlist.h"
#include "support/child_process.h"

#ifndef TIDEPOOL_SOURCE_DIR
#error "TIDEPOOL_SOURCE_DIR must be defined by the build"
#endif

namespace tidepool::testing {
namespace {

// ------------------------------------------------------------------ env file parsing --

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }

class EnvFileParser {
 public:
  explicit EnvFileParser(absl::string_view text) : text_(text) {}

  absl::StatusOr<EnvVars> Parse() {
    EnvVars vars;
    while (true) {
      SkipSpaceAndNewlines();
      if (AtEnd()) break;
      if (Peek() == '#') {
        SkipToEndOfLine();
        continue;
      }
      std::string name = ReadName();
      if (name == "export" && !AtEnd() && IsBlank(Peek())) {
        SkipBlanks();
        name = ReadName();
      }
      if (name.empty()) return Error("expected NAME=VALUE");
      if (AtEnd() || Peek() != '=') return Error(absl::StrCat("expected '=' after ", name));
      ++pos_;
      absl::StatusOr<std::string> value = ReadValue();
      if (!value.ok()) return value.status();
      SkipBlanks();
      if (!AtEnd() && Peek() == '#') SkipToEndOfLine();
      if (!AtEnd() && Peek() == ';') ++pos_;
      if (!AtEnd() && Peek() != '\n' && Peek() != '\r' && !IsBlank(Peek())) {
        return Error(absl::StrCat("unexpected text after the value of ", name));
      }
      vars[name] = *std::move(value);
    }
    return vars;
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  int LineAt(size_t pos) const {
    return 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + pos, '\n'));
  }
  // An error on the line of `at` (default: where parsing stands).
  absl::Status Error(absl::string_view what, size_t at = std::string::npos) const {
    return absl::InvalidArgumentError(
        absl::StrCat("line ", LineAt(at == std::string::npos ? pos_ : at), ": ", what));
  }
  void SkipBlanks() {
    while (!AtEnd() && IsBlank(Peek())) ++pos_;
  }
  void SkipSpaceAndNewlines() {
    while (!AtEnd() && (IsBlank(Peek()) || Peek() == '\n' || Peek() == '\r')) ++pos_;
  }
  void SkipToEndOfLine() {
    while (!AtEnd() && Peek() != '\n') ++pos_;
  }
  std::string ReadName() {
    const size_t start = pos_;
    if (!AtEnd() && IsNameStart(Peek())) {
      while (!AtEnd() && IsNameChar(Peek())) ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  // `$` starts an expansion when a name, `{` or `(` follows it.
  bool IsExpansion() const {
    const char next = Peek(1);
    return IsNameStart(next) || next == '{' || next == '(' ||
           std::isdigit(static_cast<unsigned char>(next)) || next == '?' || next == '$' ||
           next == '@' || next == '*' || next == '#' || next == '!' || next == '-';
  }

  absl::StatusOr<std::string> ReadValue() {
    std::string value;
    while (!AtEnd()) {
      const char c = Peek();
      if (IsBlank(c) || c == '\n' || c == '\r' || c == ';') break;
      if (c == '\\') {
        if (pos_ + 1 >= text_.size()) return Error("backslash at end of input");
        if (Peek(1) != '\n') value.push_back(Peek(1));  // backslash-newline continues the line
        pos_ += 2;
      } else if (c == '\'') {
        const size_t end = text_.find('\'', pos_ + 1);
        if (end == absl::string_view::npos) return Error("unterminated '");
        absl::StrAppend(&value, text_.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end + 1;
      } else if (c == '"') {
        absl::Status status = ReadDoubleQuoted(value);
        if (!status.ok()) return status;
      } else if (c == '$' && Peek(1) == '\'') {
        absl::Status status = ReadAnsiC(value);
        if (!status.ok()) return status;
      } else if (c == '`' || (c == '$' && IsExpansion())) {
        return Error("variable expansion and command substitution are not supported");
      } else {
        value.push_back(c);
        ++pos_;
      }
    }
    return value;
  }

  absl::Status ReadDoubleQuoted(std::string& value) {
    const size_t open = pos_++;
    while (!AtEnd()) {
      const char c = Peek();
      if (c == '"') {
        ++pos_;
        return absl::OkStatus();
      }
      if (c == '\\') {
        const char next = Peek(1);
        if (next == '$' || next == '`' || next == '"' || next == '\\') {
          value.push_back(next);
          pos_ += 2;
          continue;
        }
        if (next == '\n') {
          pos_ += 2;
          continue;
        }
        value.push_back(c);
        ++pos_;
        continue;
      }
      if (c == '`' || (c == '$' && IsExpansion())) {
        return Error("variable expansion and command substitution are not supported");
      }
      value.push_back(c);
      ++pos_;
    }
    return Error("unterminated \"", open);
  }

  absl::Status ReadAnsiC(std::string& value) {
    const size_t open = pos_;
    pos_ += 2;  // $'
    while (!AtEnd()) {
      const char c = Peek();
      if (c == '\'') {
        ++pos_;
        return absl::OkStatus();
      }
      if (c != '\\') {
        value.push_back(c);
        ++pos_;
        continue;
      }
      const char e = Peek(1);
      pos_ += 2;
      switch (e) {
        case 'n':
          value.push_back('\n');
          break;
        case 't':
          value.push_back('\t');
          break;
        case 'r':
          value.push_back('\r');
          break;
        case 'a':
          value.push_back('\a');
          break;
        case 'b':
          value.push_back('\b');
          break;
        case 'f':
          value.push_back('\f');
          break;
        case 'v':
          value.push_back('\v');
          break;
        case 'e':
        case 'E':
          value.push_back('\x1b');
          break;
        case '\\':
        case '\'':
        case '"':
        case '?':
          value.push_back(e);
          break;
        case 'x': {
          int code = 0, digits = 0;
          while (digits < 2 && std::isxdigit(static_cast<unsigned char>(Peek()))) {
            code = code * 16 + (std::isdigit(static_cast<unsigned char>(Peek()))
                                    ? Peek() - '0'
                                    : std::tolower(static_cast<unsigned char>(Peek())) - 'a' + 10);
            ++pos_;
            ++digits;
          }
          if (digits == 0) return Error("\\x without hex digits in $'...'");
          value.push_back(static_cast<char>(code));
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int code = e - '0', digits = 1;
            while (digits < 3 && Peek() >= '0' && Peek() <= '7') {
              code = code * 8 + (Peek() - '0');
              ++pos_;
              ++digits;
            }
            value.push_back(static_cast<char>(code));
          } else {
            value.push_back('\\');
            value.push_back(e);
          }
      }
    }
    return Error("unterminated $'", open);
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

// ------------------------------------------------------------------------- helpers --

std::optional<std::tuple<int, int, int>> ParseVersion(absl::string_view version) {
  if (!absl::ConsumePrefix(&version, "v")) return std::nullopt;
  std::vector<absl::string_view> parts = absl::StrSplit(version, '.');
  int a = 0, b = 0, c = 0;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &a) || !absl::SimpleAtoi(parts[1], &b) ||
      !absl::SimpleAtoi(parts[2], &c)) {
    return std::nullopt;
  }
  return std::make_tuple(a, b, c);
}

absl::StatusOr<std::string> Require(const EnvVars& vars, const std::string& key,
                                    absl::string_view file) {
  auto it = vars.find(key);
  if (it == vars.end() || it->second.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(file, " has no ", key, " (was it written by an older up script?)"));
  }
  return it->second;
}

std::string Optional(const EnvVars& vars, const std::string& key) {
  auto it = vars.find(key);
  return it == vars.end() ? "" : it->second;
}

bool FileExists(const std::string& path) { return std::ifstream(path).good(); }

std::string Tail(absl::string_view text, size_t lines) {
  size_t pos = text.size();
  for (size_t i = 0; i <= lines && pos != absl::string_view::npos && pos > 0; ++i) {
    pos = text.rfind('\n', pos - 1);
  }
  return std::string(pos == absl::string_view::npos ? text : text.substr(pos + 1));
}

bool KeepTestenv() {
  const char* keep = std::getenv("TIDEPOOL_KEEP_TESTENV");
  return keep != nullptr && std::string(keep) == "1";
}

std::string K8sEnvPath() { return TestenvRunDir() + "/k8s/env"; }
std::string SlurmEnvPath() { return TestenvRunDir() + "/slurm/env"; }

// What this process started and must stop at exit.
std::mutex start_mutex;
bool started_k8s = false;
bool started_slurm = false;
bool stop_registered = false;

void Say(const std::string& message) { std::fprintf(stderr, "testenv: %s\n", message.c_str()); }

void StopWhatWeStarted() {
  std::lock_guard<std::mutex> lock(start_mutex);
  const bool keep = KeepTestenv();
  auto stop = [&](bool& started, const std::string& part) {
    if (!started) return;
    started = false;
    const std::string script = SourceRoot() + "/tools/testenv/" + part + "/down";
    if (keep) {
      Say(absl::StrCat("leaving the ", part, " environment up (TIDEPOOL_KEEP_TESTENV=1); ", script,
                       " stops it"));
      return;
    }
    Say(absl::StrCat("stopping the ", part, " environment this process started: ", script));
    absl::StatusOr<CommandResult> result = RunCommand({script}, absl::Minutes(3));
    if (!result.ok() || result->exit_code != 0) {
      Say(absl::StrCat(script, " failed: ",
                       result.ok() ? Tail(result->output, 20) : result.status().ToString()));
    }
  };
  stop(started_slurm, "slurm");
  stop(started_k8s, "k8s");
}

// Runs an up script; the caller holds start_mutex.
absl::Status RunUp(const std::vector<std::string>& argv, const std::string& env_path) {
  Say(absl::StrCat("no ", env_path, "; starting the environment: ", absl::StrJoin(argv, " ")));
  const absl::Time start = absl::Now();
  // A cold start builds binaries or a Debian root first: allow for it.
  absl::StatusOr<CommandResult> result = RunCommand(argv, absl::Minutes(45));
  if (!result.ok()) return result.status();
  std::fputs(result->output.c_str(), stderr);
  if (result->exit_code != 0) {
    return absl::FailedPreconditionError(absl::StrCat(argv[0], " exited with ", result->exit_code,
                                                      "; last lines:\n", Tail(result->output, 30)));
  }
  Say(absl::StrCat("up in ",
                   absl::FormatDuration(absl::Trunc(absl::Now() - start, absl::Seconds(1))),
                   KeepTestenv() ? "; it stays up (TIDEPOOL_KEEP_TESTENV=1)"
                                 : "; it is stopped when this process exits"));
  if (!stop_registered) {
    stop_registered = true;
    std::atexit(StopWhatWeStarted);
  }
  return absl::OkStatus();
}

}  // namespace

// ---------------------------------------------------------------------- public API --

absl::StatusOr<EnvVars> ParseEnvFile(absl::string_view content) {
  return EnvFileParser(content).Parse();
}

absl::StatusOr<EnvVars> ReadEnvFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream content;
  content << file.rdbuf();
  absl::StatusOr<EnvVars> vars = ParseEnvFile(content.str());
  if (!vars.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", vars.status().message()));
  }
  return vars;
}

absl::StatusOr<std::string> NewestVersionInRange(const std::vector<std::string>& versions,
                                                 absl::string_view oldest,
                                                 absl::string_view newest) {
  const auto low = ParseVersion(oldest);
  const auto high = ParseVersion(newest);
  if (!low || !high) {
    return absl::InvalidArgumentError(absl::StrCat("bad range ", oldest, "..", newest));
  }
  std::optional<std::tuple<int, int, int>> best;
  std::string best_name;
  for (const std::string& name : versions) {
    const auto version = ParseVersion(name);
    if (!version || *version < *low || *version > *high) continue;
    if (!best || *version > *best) {
      best = version;
      best_name = name;
    }
  }
  if (!best) {
    return absl::NotFoundError(absl::StrCat("none of [", absl::StrJoin(versions, " "),
                                            "] is within ", oldest, "..", newest));
  }
  return best_name;
}

std::string TestenvRunDir() {
  const char* dir = std::getenv("TIDEPOOL_RUN_DIR");
  return dir != nullptr && *dir != '\0' ? dir : "/run/tidepool";
}

std::string SourceRoot() {
  const char* root = std::getenv("TIDEPOOL_ROOT");
  return root != nullptr && *root != '\0' ? root : TIDEPOOL_SOURCE_DIR;
}

absl::StatusOr<std::string> SlurmEnv::RestVersion(absl::string_view oldest,
                                                  absl::string_view newest) const {
  return NewestVersionInRange(rest_versions, oldest, newest);
}

HttpsClient KubernetesClient(const KubernetesEnv& env) {
  return HttpsClient(HttpsClientOptions{.base_url = env.server,
                                        .ca_file = env.ca_file,
                                        .client_cert_file = env.client_cert_file,
                                        .client_key_file = env.client_key_file});
}

HttpsClient SlurmRestClient(const SlurmEnv& env) {
  return HttpsClient(
      HttpsClientOptions{.base_url = env.rest_url, .headers = {{"X-SLURM-USER-TOKEN", env.token}}});
}

absl::StatusOr<KubernetesEnv> KubernetesEnvFromVars(EnvVars vars) {
  const std::string file = "the k8s env file";
  KubernetesEnv env;
  for (auto [field, key] : std::initializer_list<std::pair<std::string*, const char*>>{
           {&env.server, "TIDEPOOL_K8S_SERVER"},
           {&env.ca_file, "TIDEPOOL_K8S_CA"},
           {&env.client_cert_file, "TIDEPOOL_K8S_CLIENT_CERT"},
           {&env.client_key_file, "TIDEPOOL_K8S_CLIENT_KEY"},
           {&env.kubeconfig, "KUBECONFIG"},
           {&env.bin_dir, "TIDEPOOL_K8S_BIN_DIR"}}) {
    absl::StatusOr<std::string> value = Require(vars, key, file);
    if (!value.ok()) return value.status();
    *field = *std::move(value);
  }
  env.kubectl = env.bin_dir + "/kubectl";
  env.vars = std::move(vars);
  return env;
}

absl::StatusOr<SlurmEnv> SlurmEnvFromVars(EnvVars vars) {
  const std::string file = "the Slurm env file";
  SlurmEnv env;
  std::string versions, count;
  for (auto [field, key] : std::initializer_list<std::pair<std::string*, const char*>>{
           {&env.suite, "TIDEPOOL_SLURM_SUITE"},
           {&env.version, "TIDEPOOL_SLURM_VERSION"},
           {&env.rest_url, "TIDEPOOL_SLURM_REST_URL"},
           {&versions, "TIDEPOOL_SLURM_REST_VERSIONS"},
           {&env.jwt_key_file, "TIDEPOOL_SLURM_JWT_KEY"},
           {&env.token, "TIDEPOOL_SLURM_TOKEN"},
           {&env.nodes, "TIDEPOOL_SLURM_NODES"},
           {&count, "TIDEPOOL_SLURM_NODE_COUNT"},
           {&env.conf_dir, "TIDEPOOL_SLURM_CONF_DIR"},
           {&env.exec, "TIDEPOOL_SLURM_EXEC"}}) {
    absl::StatusOr<std::string> value = Require(vars, key, file);
    if (!value.ok()) return value.status();
    *field = *std::move(value);
  }
  env.rest_socket = Optional(vars, "TIDEPOOL_SLURM_REST_SOCKET");
  env.token_user = Optional(vars, "TIDEPOOL_SLURM_TOKEN_USER");
  env.cluster = Optional(vars, "TIDEPOOL_SLURM_CLUSTER");
  env.rest_versions = absl::StrSplit(versions, ' ', absl::SkipWhitespace());
  if (!absl::SimpleAtoi(count, &env.node_count) || env.node_count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("TIDEPOOL_SLURM_NODE_COUNT '", count, "' is not a number"));
  }
  if (!env.nodes.empty()) {
    absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(env.nodes);
    if (!names.ok()) return names.status();
    env.node_names = *std::move(names);
  }
  if (static_cast<int>(env.node_names.size()) != env.node_count) {
    return absl::InvalidArgumentError(absl::StrCat("TIDEPOOL_SLURM_NODES '", env.nodes, "' names ",
                                                   env.node_names.size(), " nodes, but ",
                                                   "TIDEPOOL_SLURM_NODE_COUNT is ", count));
  }
  env.vars = std::move(vars);
  return env;
}

absl::StatusOr<KubernetesEnv> Kubernetes() {
  std::lock_guard<std::mutex> lock(start_mutex);
  static std::optional<absl::Status> start_error;
  if (start_error) return *start_error;
  const std::string path = K8sEnvPath();
  if (!FileExists(path)) {
    absl::Status status = RunUp({SourceRoot() + "/tools/testenv/k8s/up"}, path);
    if (!status.ok()) {
      start_error = status;
      return status;
    }
    started_k8s = true;
  }
  absl::StatusOr<EnvVars> vars = ReadEnvFile(path);
  if (!vars.ok()) return vars.status();
  return KubernetesEnvFromVars(*std::move(vars));
}

absl::StatusOr<SlurmEnv> Slurm() {
  std::lock_guard<std::mutex> lock(start_mutex);
  static std::optional<absl::Status> start_error;
  if (start_error) return *start_error;
  const char* wanted = std::getenv("TIDEPOOL_SLURM_SUITE");
  const std::string suite = wanted != nullptr && *wanted != '\0' ? wanted : "sid";
  const std::string path = SlurmEnvPath();
  if (!FileExists(path)) {
    absl::Status status = RunUp({SourceRoot() + "/tools/testenv/slurm/up", "--suite", suite,
                                 "--nodes", "3", "--rest-socket"},
                                path);
    if (!status.ok()) {
      start_error = status;
      return status;
    }
    started_slurm = true;
  }
  absl::StatusOr<EnvVars> vars = ReadEnvFile(path);
  if (!vars.ok()) return vars.status();
  absl::StatusOr<SlurmEnv> env = SlurmEnvFromVars(*std::move(vars));
  if (env.ok() && wanted != nullptr && *wanted != '\0' && env->suite != suite) {
    return absl::FailedPreconditionError(
        absl::StrCat("the Slurm environment that is up runs suite ", env->suite,
                     ", but TIDEPOOL_SLURM_SUITE=", suite, "; run tools/testenv/slurm/down first"));
  }
  return env;
}

absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         absl::Duration timeout) {
  if (argv.empty()) return absl::InvalidArgumentError("RunCommand: empty argv");
  absl::StatusOr<ChildProcess> child =
      ChildProcess::Spawn(argv[0], std::vector<std::string>(argv.begin() + 1, argv.end()));
  if (!child.ok()) return child.status();
  absl::StatusOr<int> exit_code = child->WaitForExit(timeout);
  if (!exit_code.ok()) {
    (void)child->Signal(SIGTERM);
    (void)child->WaitForExit(absl::Seconds(5));
    return absl::DeadlineExceededError(absl::StrCat(absl::StrJoin(argv, " "), ": not done after ",
                                                    absl::FormatDuration(timeout), "; output:\n",
                                                    Tail(child->Output(), 30)));
  }
  return CommandResult{*exit_code, child->Output()};
}

absl::StatusOr<CommandResult> Kubectl(const KubernetesEnv& env,
                                      const std::vector<std::string>& args,
                                      absl::Duration timeout) {
  std::vector<std::string> argv = {env.kubectl, "--kubeconfig=" + env.kubeconfig};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, timeout);
}

absl::StatusOr<CommandResult> SlurmExec(const SlurmEnv& env, const std::vector<std::string>& args,
                                        absl::Duration timeout) {
  std::vector<std::string> argv = {env.exec};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, timeout);
}

absl::StatusOr<std::string> TestenvTool(const std::string& binary) {
  const std::string build = SourceRoot() + "/tools/testenv/k8s/build";
  absl::StatusOr<CommandResult> built = RunCommand({build, binary}, absl::Minutes(20));
  if (!built.ok()) return built.status();
  if (built->exit_code != 0) {
    return absl::InternalError(absl::StrCat("tools/testenv/k8s/build ", binary, " failed (exit ",
                                            built->exit_code, "):\n", built->output));
  }
  absl::StatusOr<CommandResult> dir = RunCommand({build, "--print-bin-dir"}, absl::Seconds(30));
  if (!dir.ok()) return dir.status();
  return absl::StrCat(absl::StripAsciiWhitespace(dir->output), "/", binary);
}

}  // namespace tidepool::testing
