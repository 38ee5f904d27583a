// A leader-election candidate for the integration test: campaigns for one Lease with the
// product's LeaderElector and prints what happens, one line each, flushed at once:
//   new-leader <identity> | leading | stopped | exit
// SIGTERM/SIGINT stop it gracefully (the lease is released); SIGKILL is a crash.
//
//   lease_contender --kubeconfig=F --namespace=NS --name=LEASE --identity=ID
//                   [--lease=4s] [--renew=3s] [--retry=1s]
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/leader_election.h"

namespace {

void Say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

std::map<std::string, std::string> ParseFlags(int argc, char** argv) {
  std::map<std::string, std::string> flags = {{"lease", "4s"}, {"renew", "3s"}, {"retry", "1s"}};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (!absl::StartsWith(arg, "--") || eq == std::string::npos) continue;
    flags[arg.substr(2, eq - 2)] = arg.substr(eq + 1);
  }
  return flags;
}

absl::Duration DurationFlag(const std::map<std::string, std::string>& flags,
                            const std::string& name) {
  absl::Duration duration;
  if (!absl::ParseDuration(flags.at(name), &duration)) {
    std::fprintf(stderr, "--%s=%s is not a duration\n", name.c_str(), flags.at(name).c_str());
    std::exit(2);
  }
  return duration;
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, std::string> flags = ParseFlags(argc, argv);
  for (const char* required : {"kubeconfig", "namespace", "name", "identity"}) {
    if (flags.count(required) == 0) {
      std::fprintf(stderr, "--%s is required\n", required);
      return 2;
    }
  }
  absl::StatusOr<tidepool::k8s::ClientConfig> config =
      tidepool::k8s::LoadKubeconfig(flags.at("kubeconfig"));
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.status().ToString().c_str());
    return 1;
  }
  tidepool::k8s::Client client(*config);

  // Signals are taken by sigwait below, not by handlers: block them before any thread.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGUSR1);  // the elector ended by itself
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  tidepool::k8s::LeaderElector elector(
      client,
      {.lease_namespace = flags.at("namespace"),
       .lease_name = flags.at("name"),
       .identity = flags.at("identity"),
       .lease_duration = DurationFlag(flags, "lease"),
       .renew_deadline = DurationFlag(flags, "renew"),
       .retry_period = DurationFlag(flags, "retry"),
       .release_on_cancel = true,
       .callbacks = {.on_started_leading = [] { Say("leading"); },
                     .on_stopped_leading = [] { Say("stopped"); },
                     .on_new_leader = [](const std::string& id) { Say("new-leader " + id); }},
       .on_error = [](const absl::Status& s) {
         std::fprintf(stderr, "error %s\n", s.ToString().c_str());
       }});
  absl::Status result;
  std::jthread campaign([&](std::stop_token stop) {
    result = elector.Run(stop);
    kill(getpid(), SIGUSR1);
  });
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  campaign.request_stop();
  campaign.join();
  Say(result.ok() ? "exit" : "exit " + result.ToString());
  return result.ok() ? 0 : 1;
}
