#include "common/service_runner.h"

#include <unistd.h>

#include <thread>
#include <variant>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/grpc_server.h"
#include "common/grpc_tls_in_use.h"
#include "common/grpc_tls_watch.h"
#include "common/heap_tuning.h"
#include "common/info_service.h"
#include "common/log.h"
#include "common/metrics.h"
#include "common/periodic_worker.h"
#include "common/shutdown_signal.h"

namespace tidepool::common {
namespace {

constexpr char kVersion[] = TIDEPOOL_VERSION;
constexpr int kExitStartFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitShutdownTimeout = 3;
// Beyond the configured grace, how long stopping the HTTP server and hooks may take.
constexpr absl::Duration kShutdownSlack = absl::Seconds(5);

// Ends the process if shutdown takes longer than its budget, so a stuck peer or hook
// cannot keep a pod in Terminating forever.
class ShutdownWatchdog {
 public:
  explicit ShutdownWatchdog(absl::Duration budget)
      : thread_([this, budget] {
          if (!done_.WaitForNotificationWithTimeout(budget)) {
            LogError("shutdown_timeout",
                     {{"budget", budget}, {"action", "exiting without finishing shutdown"}});
            _exit(kExitShutdownTimeout);
          }
        }) {}
  ~ShutdownWatchdog() {
    done_.Notify();
    thread_.join();
  }

 private:
  absl::Notification done_;
  std::thread thread_;
};

int Serve(ServiceContext& context, ShutdownSignal& shutdown_signal) {
  const ServiceOptions& options = context.options();
  auto http = HttpServer::Start(options.listen_address, options.http_port, context.shared_metrics(),
                                [&context] { return context.CheckReadiness(); });
  if (!http.ok()) {
    LogError("start_failed", {{"error", http.status()}});
    return kExitStartFailure;
  }
  auto grpc_server = GrpcServer::Start(options.listen_address, options.grpc_port,
                                       context.grpc_services(), {.tls = context.grpc_tls()});
  if (!grpc_server.ok()) {
    LogError("start_failed", {{"error", grpc_server.status()}});
    return kExitStartFailure;
  }
  LogInfo("started", {{"version", kVersion},
                      {"grpc", absl::StrCat(options.listen_address, ":", options.grpc_port)},
                      {"http", absl::StrCat(options.listen_address, ":", options.http_port)},
                      {"grpc_tls", context.grpc_tls().has_value() ? "mutual" : "off"}});
  if (!context.grpc_tls().has_value()) {
    LogWarn("grpc_plaintext", {{"risk", "any process that reaches the gRPC port may call it"},
                               {"fix", "set --grpc_tls_dir"}});
  }

  const int signal_number = shutdown_signal.Wait();
  LogInfo("stopping", {{"signal", strsignal(signal_number)}, {"grace", options.shutdown_timeout}});
  ShutdownWatchdog watchdog(options.shutdown_timeout + kShutdownSlack);
  context.RunStopServingHooks();
  (*grpc_server)->Shutdown(options.shutdown_timeout);
  LogDebug("grpc_stopped");
  context.RunShutdownHooks();
  LogDebug("shutdown_hooks_done");
  http->reset();
  LogDebug("http_stopped");
  LogInfo("stopped");
  return 0;
}

}  // namespace

ServiceContext::ServiceContext(std::string name, ServiceOptions options,
                               std::optional<GrpcTls> grpc_tls)
    : name_(std::move(name)),
      options_(std::move(options)),
      grpc_tls_(std::move(grpc_tls)),
      metrics_(std::make_shared<prometheus::Registry>()) {}

ChannelOptions ServiceContext::ChannelTo(std::string server) const {
  return ChannelOptions{.tls = grpc_tls_, .server_name = std::move(server)};
}

MethodAuthorizer ServiceContext::Authorizer(std::vector<MethodGrant> grants) const {
  return MethodAuthorizer(std::move(grants), grpc_tls_.has_value());
}

grpc::Service* ServiceContext::AddGrpcService(std::unique_ptr<grpc::Service> service) {
  services_.push_back(std::move(service));
  return services_.back().get();
}

void ServiceContext::AddReadinessCheck(std::string name, ReadinessCheck check) {
  readiness_checks_.emplace_back(std::move(name), std::move(check));
}

void ServiceContext::OnStopServing(std::function<void()> end_streams) {
  stop_serving_hooks_.push_back(std::move(end_streams));
}

void ServiceContext::RunStopServingHooks() {
  for (auto& hook : stop_serving_hooks_) hook();
  stop_serving_hooks_.clear();
}

void ServiceContext::OnShutdown(std::function<void()> stop) {
  shutdown_hooks_.push_back(std::move(stop));
}

std::vector<grpc::Service*> ServiceContext::grpc_services() const {
  std::vector<grpc::Service*> result;
  result.reserve(services_.size());
  for (const auto& service : services_) result.push_back(service.get());
  return result;
}

absl::Status ServiceContext::CheckReadiness() const {
  for (const auto& [name, check] : readiness_checks_) {
    absl::Status status = check();
    if (!status.ok()) return absl::UnavailableError(absl::StrCat(name, ": ", status.message()));
  }
  return absl::OkStatus();
}

void ServiceContext::RunShutdownHooks() {
  for (auto it = shutdown_hooks_.rbegin(); it != shutdown_hooks_.rend(); ++it) (*it)();
  shutdown_hooks_.clear();
}

int RunService(int argc, char** argv, const ServiceDefinition& definition) {
  ShutdownSignal shutdown_signal;  // before any thread starts, so all inherit the mask
  // Before any large block is allocated: the thresholds stop moving once set.
  const absl::Status heap_policy = ApplyHeapPolicy(definition.heap);
  ConfigureLogging(definition.name, LogLevel::kInfo);
  if (!heap_policy.ok()) LogWarn("heap_policy_not_applied", {{"error", heap_policy}});
  absl::SetProgramUsageMessage(
      absl::StrCat(definition.summary, "\n\nUsage: ", definition.name, " [flags]"));
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() > 1 && definition.command) {
    std::optional<int> exit_code =
        definition.command(std::vector<std::string>(positional.begin() + 1, positional.end()));
    if (exit_code.has_value()) return *exit_code;
  }
  if (positional.size() > 1) {
    LogError("invalid_arguments", {{"error", absl::StrCat("unexpected argument \"", positional[1],
                                                          "\"; see --help for the flags")}});
    return kExitUsage;
  }
  absl::StatusOr<ServiceOptions> options = ReadServiceFlags();
  if (!options.ok()) {
    LogError("invalid_flags", {{"error", options.status().message()}});
    return kExitUsage;
  }
  ConfigureLogging(definition.name, options->log_level);

  std::optional<GrpcTls> grpc_tls;
  std::unique_ptr<GrpcTlsInUse> tls_in_use;  // outlives the context's server and channels
  if (!options->grpc_tls_dir.empty()) {
    absl::StatusOr<GrpcTls> loaded =
        LoadGrpcTlsDir(options->grpc_tls_dir, options->grpc_tls_reload_interval);
    absl::StatusOr<std::unique_ptr<GrpcTlsInUse>> in_use =
        loaded.ok() ? GrpcTlsInUse::Create(*loaded)
                    : absl::StatusOr<std::unique_ptr<GrpcTlsInUse>>(loaded.status());
    if (!in_use.ok()) {
      LogError("start_failed", {{"error", in_use.status()}});
      return kExitStartFailure;
    }
    tls_in_use = *std::move(in_use);
    // One provider for the server and every channel of this process.
    loaded->provider = tls_in_use->provider();
    grpc_tls = *std::move(loaded);
  }
  ServiceContext context(definition.name, *options, std::move(grpc_tls));
  RegisterBuildInfo(context.metrics(), definition.name, kVersion);
  std::optional<GrpcTlsWatch> tls_watch;
  std::optional<PeriodicWorker> tls_watcher;  // declared after what it calls: stops first
  if (context.grpc_tls().has_value()) {
    tls_watch.emplace(definition.name, *context.grpc_tls(), context.metrics(), tls_in_use.get());
    tls_watcher.emplace(context.grpc_tls()->reload_every, [&tls_watch] { tls_watch->Check(); });
  }
  context.AddGrpcService(std::make_unique<InfoServiceImpl>(definition.name, kVersion, absl::Now()));
  if (definition.setup) {
    absl::Status setup = definition.setup(context);
    if (!setup.ok()) {
      LogError("setup_failed", {{"error", setup}});
      return setup.code() == absl::StatusCode::kInvalidArgument ? kExitUsage : kExitStartFailure;
    }
  }
  std::optional<FreedHeapReturner> heap_returner;
  if (const auto* returned = std::get_if<ReturnHeap>(&definition.heap);
      returned != nullptr && returned->every > absl::ZeroDuration()) {
    heap_returner.emplace(returned->every);
  }
  return Serve(context, shutdown_signal);
}

}  // namespace tidepool::common
