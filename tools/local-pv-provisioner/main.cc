// local-pv-provisioner: a dynamic provisioner of node-local hostPath PersistentVolumes for
// the test environment (README.md beside this file). main only wires the pieces together.

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/shutdown_signal.h"
#include "k8s/config.h"
#include "k8s/informer.h"
#include "k8s/resource.h"
#include "provisioner.h"
#include "flags.h"

namespace tidepool::local_pv {
namespace {

constexpr int kExitCannotStart = 1;
constexpr int kExitBadFlags = 2;
constexpr absl::Duration kSyncTimeout = absl::Seconds(60);
constexpr absl::Duration kResyncInterval = absl::Seconds(10);

int CannotStart(absl::string_view what, const absl::Status& status) {
  common::LogError("cannot_start", {{"what", what}, {"error", status}});
  return kExitCannotStart;
}

// Every change of a claim or a volume only asks for another pass.
void SignalOnChange(k8s::Informer& informer, Provisioner& provisioner) {
  informer.AddHandlers({
      .on_add = [&provisioner](const k8s::CachedObjectPtr&) { provisioner.Signal(); },
      .on_update = [&provisioner](const k8s::CachedObjectPtr&,
                                  const k8s::CachedObjectPtr&) { provisioner.Signal(); },
      .on_delete = [&provisioner](const k8s::CachedObjectPtr&) { provisioner.Signal(); },
  });
}

int Run(const ProvisionerOptions& options, common::ShutdownSignal& shutdown) {
  std::error_code error;
  std::filesystem::create_directories(options.volume_dir, error);
  if (error) {
    return CannotStart("volume_dir",
                       absl::InternalError(absl::StrCat("cannot create ", options.volume_dir, ": ",
                                                        error.message())));
  }
  absl::StatusOr<k8s::ClientConfig> config = k8s::LoadKubeconfig(options.kubeconfig);
  if (!config.ok()) return CannotStart("kubeconfig", config.status());
  config->user_agent = "tidepool-local-pv-provisioner";
  k8s::Client client(*config);

  k8s::Informer claims(client, k8s::PersistentVolumeClaims(), "");
  k8s::Informer volumes(client, k8s::PersistentVolumes(), "");
  Provisioner provisioner(
      client, claims, volumes,
      PlanConfig{.provisioner_name = options.provisioner_name, .volume_dir = options.volume_dir},
      kResyncInterval);
  SignalOnChange(claims, provisioner);
  SignalOnChange(volumes, provisioner);
  claims.Start();
  volumes.Start();
  if (!claims.WaitForSync(kSyncTimeout) || !volumes.WaitForSync(kSyncTimeout)) {
    return CannotStart("informers",
                       absl::UnavailableError("the PersistentVolumeClaim and PersistentVolume "
                                              "informers did not sync within 60 s"));
  }
  provisioner.Start();
  common::LogInfo("provisioner_started",
                  {{"provisioner", options.provisioner_name}, {"volume_dir", options.volume_dir}});

  const int signal_number = shutdown.Wait();
  common::LogInfo("shutting_down", {{"signal", signal_number}});
  provisioner.Stop();
  claims.Stop();
  volumes.Stop();
  common::LogInfo("stopped");
  return 0;
}

}  // namespace
}  // namespace tidepool::local_pv

int main(int argc, char** argv) {
  // Before any thread exists, so that only Wait() sees SIGTERM/SIGINT.
  tidepool::common::ShutdownSignal shutdown;
  absl::SetProgramUsageMessage(
      "Provisions hostPath PersistentVolumes under --volume_dir for the test environment's "
      "StorageClass (provisioner tidepool.dev/local-pv) and reclaims them when released.");
  const std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  absl::StatusOr<tidepool::common::LogLevel> level = tidepool::local_pv::ReadLogLevelFlag();
  absl::StatusOr<tidepool::local_pv::ProvisionerOptions> options =
      tidepool::local_pv::ReadProvisionerFlags();
  std::string problem;
  if (positional.size() > 1) {
    problem = absl::StrCat("unexpected argument \"", positional[1], "\" (flags only)");
  } else if (!level.ok()) {
    problem = std::string(level.status().message());
  } else if (!options.ok()) {
    problem = std::string(options.status().message());
  }
  if (!problem.empty()) {
    std::fprintf(stderr, "local-pv-provisioner: %s\n", problem.c_str());
    return tidepool::local_pv::kExitBadFlags;
  }
  tidepool::common::ConfigureLogging("local-pv-provisioner", *level);
  return tidepool::local_pv::Run(*options, shutdown);
}
