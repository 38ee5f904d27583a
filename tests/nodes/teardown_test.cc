// Deleting a SlurmCluster on real kubelet nodes: the cluster-controller holds it with the
// tidepool.dev/teardown finalizer and stops its daemons one stage at a time (slurmrestd's
// pods are gone before slurmctld's StatefulSet is deleted), also across a restart of the
// controller mid-teardown; the state claim is kept unless tidepool.dev/delete-claims asks
// otherwise.
#include <catch2/catch_test_macros.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nodes/kubectl_helpers.h"
#include "nodes/research_cluster.h"
#include "nodes/tidepool_services.h"
#include "support/eventually.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

std::string Condition(const KubernetesEnv& env, const std::string& ns, const std::string& type,
                      const std::string& field) {
  return TryKubectl(env, {"-n", ns, "get", "slurmcluster", "research", "-o",
                          absl::StrCat("jsonpath={.status.conditions[?(@.type==\"", type, "\")].",
                                       field, "}")})
      .value_or("");
}

bool ClusterExists(const KubernetesEnv& env, const std::string& ns) {
  return TryKubectl(env, {"-n", ns, "get", "slurmcluster", "research", "-o", "name"}).has_value();
}

void ApplyAndAwaitAvailable(const KubernetesEnv& env, const std::string& ns,
                            const std::string& manifest, const TidepoolServices& services) {
  MustKubectl(env, {"apply", "-f", SourceRoot() + "/manifests/crds"});
  MustKubectl(env, {"wait", "--for=condition=Established", "--timeout=60s", "crd",
                    "slurmclusters.tidepool.dev", "nodesets.tidepool.dev"});
  Apply(env, manifest);
  const bool available =
      PollUntil(
          [&] {
            return Condition(env, ns, "ControllerAvailable", "status") == "True" &&
                   Condition(env, ns, "RestApiAvailable", "status") == "True";
          },
          absl::Seconds(180), absl::Seconds(1))
          .has_value();
  INFO(TryKubectl(env, {"-n", ns, "get", "slurmcluster,all", "-o", "wide"}).value_or("")
       << "\n"
       << services.Logs());
  REQUIRE(available);
  CHECK(TryKubectl(env, {"-n", ns, "get", "slurmcluster", "research", "-o",
                         "jsonpath={.metadata.finalizers}"})
            .value_or("")
            .find("tidepool.dev/teardown") != std::string::npos);
}

// What one look at the cluster's workloads and pods saw.
struct Snapshot {
  bool restapi_pods = false;      // a slurmrestd pod exists
  bool restapi_going = false;     // its Deployment is deleting or gone
  bool controller_going = false;  // slurmctld's StatefulSet is deleting or gone
  bool controller_pods = false;
};

Snapshot Look(const KubernetesEnv& env, const std::string& ns) {
  // kind name component deletionTimestamp, one object per line.
  const std::optional<std::string> listed =
      TryKubectl(env, {"-n", ns, "get", "pods,statefulsets,deployments", "-l",
                       "tidepool.dev/cluster=research", "-o",
                       "jsonpath={range .items[*]}{.kind} {.metadata.name} "
                       "{.metadata.labels.tidepool\\.dev/component} "
                       "{.metadata.deletionTimestamp}{\"\\n\"}{end}"});
  Snapshot s{.restapi_going = true, .controller_going = true};
  if (!listed.has_value()) return {.restapi_pods = true};  // unknown: assume nothing went
  for (absl::string_view line : absl::StrSplit(*listed, '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    f.resize(4);
    const bool deleting = !f[3].empty();
    if (f[0] == "Pod" && f[2] == "slurmrestd") s.restapi_pods = true;
    if (f[0] == "Pod" && f[2] == "slurmctld") s.controller_pods = true;
    if (f[0] == "Deployment" && f[1] == "research-restapi" && !deleting) s.restapi_going = false;
    if (f[0] == "StatefulSet" && f[1] == "research-controller" && !deleting) {
      s.controller_going = false;
    }
  }
  return s;
}

TEST_CASE("deleting a SlurmCluster stops slurmrestd then slurmctld and keeps the state claim") {
  const KubernetesEnv env = RequireKubernetes();
  ForEachSlurmVersion(
      env, SlurmVersions::kNewest, "teardown", [&](const std::string& tag, const std::string& ns) {
        TidepoolServices services(env, ns);
        // slurmrestd and slurmctld only: the stages this test watches.
        ApplyAndAwaitAvailable(
            env, ns, ResearchClusterManifest({.ns = ns, .slurm_tag = tag, .compute = false}),
            services);

        MustKubectl(env, {"-n", ns, "delete", "slurmcluster", "research", "--wait=false"});
        bool out_of_order = false;
        bool saw_terminating = false;
        bool restarted = false;
        std::string terminating_message;
        std::string while_down;
        const bool gone =
            PollUntil(
                [&] {
                  const Snapshot s = Look(env, ns);
                  // slurmctld's StatefulSet may go only after every slurmrestd pod.
                  if (s.controller_going && s.restapi_pods) out_of_order = true;
                  if (Condition(env, ns, "Ready", "reason") == "Terminating") {
                    saw_terminating = true;
                    // Read apart from the reason: the cluster may be gone by now.
                    const std::string message = Condition(env, ns, "Ready", "message");
                    if (!message.empty()) terminating_message = message;
                  }
                  if (!restarted && s.restapi_going) {
                    // Mid-teardown: the controller dies; nothing moves on while
                    // it is down, and a new one finishes the job.
                    services.KillClusterController();
                    absl::SleepFor(absl::Seconds(4));
                    while_down = absl::StrCat("exists=", ClusterExists(env, ns),
                                              " slurmctld_pods=", Look(env, ns).controller_pods);
                    services.StartClusterController();
                    restarted = true;
                  }
                  return !ClusterExists(env, ns);
                },
                absl::Seconds(240), absl::Milliseconds(300))
                .has_value();
        INFO(
            TryKubectl(env, {"-n", ns, "get", "slurmcluster,all,pvc", "-o", "wide"}).value_or("")
            << "\n"
            << TryKubectl(env, {"-n", ns, "get", "events", "--sort-by=.metadata.creationTimestamp"})
                   .value_or("")
            << "\n"
            << services.Logs());
        REQUIRE(gone);
        CHECK(restarted);
        // Killed while slurmrestd stopped: the cluster waits for the next controller (its
        // slurmctld pod too, unless the old one deleted it in the moment before it died).
        CHECK(absl::StartsWith(while_down, "exists=1"));
        WARN("while the controller was down: " << while_down);
        CHECK_FALSE(out_of_order);
        CHECK(saw_terminating);
        CHECK(absl::StrContains(terminating_message, "waiting for"));
        // Everything else it owned goes by garbage collection; the state claim stays.
        CHECK(PollUntil(
            [&] {
              return TryKubectl(env,
                                {"-n", ns, "get", "statefulsets,deployments,pods", "-o", "name"})
                         .value_or("x") == "";
            },
            absl::Seconds(60), absl::Seconds(1)));
        CHECK(TryKubectl(env, {"-n", ns, "get", "pvc", "research-controller-state"}).has_value());
        const std::string events =
            TryKubectl(env, {"-n", ns, "get", "events", "--sort-by=.metadata.creationTimestamp",
                             "-o", "jsonpath={range .items[*]}{.reason}: {.message}{\"\\n\"}{end}"})
                .value_or("");
        INFO(events);
        CHECK(absl::StrContains(events, "StoppingComponent: teardown: stopping slurmctld"));
        CHECK(absl::StrContains(events, "TeardownComplete"));
        // The event the killed controller queued for slurmrestd may not have been written.
        const size_t restapi = events.find("stopping slurmrestd");
        if (restapi != std::string::npos) {
          CHECK(restapi < events.find("stopping slurmctld"));
        }
      });
}

TEST_CASE("with tidepool.dev/delete-claims the teardown deletes the state claim too") {
  const KubernetesEnv env = RequireKubernetes();
  const std::vector<std::string> tags = SlurmTags(env, SlurmVersions::kNewest);
  REQUIRE(!tags.empty());
  const std::string ns = "teardown-claims";
  EnsureNamespace(env, ns);
  ReleaseNamespaceOnExit release{env, ns};
  TidepoolServices services(env, ns);
  ApplyAndAwaitAvailable(
      env, ns,
      ResearchClusterManifest({.ns = ns,
                               .slurm_tag = tags.front(),
                               .compute = false,
                               .annotations = {{"tidepool.dev/delete-claims", "true"}}}),
      services);
  REQUIRE(TryKubectl(env, {"-n", ns, "get", "pvc", "research-controller-state"}).has_value());
  MustKubectl(env,
              {"-n", ns, "delete", "slurmcluster", "research", "--wait=true", "--timeout=180s"},
              absl::Seconds(190));
  const bool claim_gone =
      PollUntil(
          [&] {
            return !TryKubectl(env, {"-n", ns, "get", "pvc", "research-controller-state"})
                        .has_value();
          },
          absl::Seconds(60), absl::Seconds(1))
          .has_value();
  INFO(TryKubectl(env, {"-n", ns, "get", "events"}).value_or("") << "\n" << services.Logs());
  CHECK(claim_gone);
  CHECK(absl::StrContains(
      TryKubectl(env, {"-n", ns, "get", "events", "--field-selector", "reason=ClaimsDeleted", "-o",
                       "jsonpath={.items[*].message}"})
          .value_or(""),
      "research-controller-state"));
}

}  // namespace
}  // namespace tidepool::testing
