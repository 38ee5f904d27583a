// Real kubelet nodes (tools/testenv/k8s/up --with-nodes) running the project's own images:
// every image starts as a pod and says its version in `kubectl logs`; a ClusterIP Service
// and a headless Service resolve through CoreDNS and answer from another pod (kube-proxy);
// a PersistentVolumeClaim binds and its volume is written through `kubectl exec`.
#include <catch2/catch_test_macros.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nodes/kubectl_helpers.h"
#include "support/eventually.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

constexpr char kNamespace[] = "nodes-smoke";
constexpr char kRepository[] = "localhost/tidepool/";
constexpr absl::Duration kPodTimeout = absl::Seconds(120);

struct VersionProbe {
  std::vector<std::string> command;
  std::string expected;  // what its output must contain
};

// How an image tells its version. Slurm images are tagged with their Slurm version
// ("slurm-wlm 26.05.5"). slurmdbd and the clients read their configuration before they
// answer -V, so those images show their programs load and ask slurmd for the version.
VersionProbe ProbeFor(const std::string& image) {
  const std::string ref(absl::StripPrefix(image, kRepository));
  const std::vector<std::string> parts = absl::StrSplit(ref, ':');
  const std::string& name = parts[0];
  const std::string tag = parts.size() > 1 ? parts[1] : "";
  const std::string slurm_version = absl::StrCat(" ", tag, ".");
  if (name == "slurmctld" || name == "slurmd" || name == "slurmrestd") {
    return {{name, "-V"}, slurm_version};
  }
  auto all_load = [&](const std::string& programs) -> VersionProbe {
    return {{"sh", "-c",
             absl::StrCat("for p in ", programs,
                          "; do p=$(command -v $p) && ! ldd $p | grep 'not found' || exit 1; "
                          "done; slurmd -V")},
            slurm_version};
  };
  if (name == "slurmdbd") return all_load("slurmdbd");
  if (name == "login") return all_load("sshd sinfo sbatch squeue sacct scontrol srun");
  if (name == "mariadb") return {{"mariadbd", "--version"}, absl::StrCat("Ver ", tag, ".")};
  return {{absl::StrCat("/usr/local/bin/", name), "--version"}, name};
}

std::string PodNameFor(const std::string& image) {
  std::string name(absl::StripPrefix(image, kRepository));
  for (char& c : name) {
    if (c == ':' || c == '.') c = '-';
  }
  return absl::StrCat("image-", name);
}

std::string QuotedList(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const std::string& item : items) quoted.push_back(absl::StrCat("\"", item, "\""));
  return absl::StrCat("[", absl::StrJoin(quoted, ", "), "]");
}

std::string PodPhase(const KubernetesEnv& env, const std::string& pod) {
  return TryKubectl(env, {"-n", kNamespace, "get", "pod", pod, "-o", "jsonpath={.status.phase}"})
      .value_or("");
}

TEST_CASE("every project image runs as a pod on a real node and logs its version") {
  const KubernetesEnv env = RequireKubernetes();
  EnsureNamespace(env, kNamespace);
  const std::vector<std::string> images = ProjectImages(env);
  INFO("images on the nodes: " << absl::StrJoin(images, " "));
  // The five services, five Slurm roles for each of two Slurm versions, MariaDB.
  REQUIRE(images.size() >= 16);

  std::string manifest;
  for (const std::string& image : images) {
    absl::StrAppend(
        &manifest, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: ", PodNameFor(image),
        ", namespace: ", kNamespace,
        "}\nspec:\n  restartPolicy: Never\n  containers:\n  - name: main\n    image: ", image,
        "\n    imagePullPolicy: Never\n    command: ", QuotedList(ProbeFor(image).command), "\n");
  }
  Apply(env, manifest);

  for (const std::string& image : images) {
    const std::string pod = PodNameFor(image);
    const VersionProbe probe = ProbeFor(image);
    INFO("pod " << pod << " of " << image);
    std::string phase;
    REQUIRE(PollUntil(
        [&] {
          phase = PodPhase(env, pod);
          return phase == "Succeeded" || phase == "Failed";
        },
        kPodTimeout, absl::Milliseconds(500)));
    const std::string logs = MustKubectl(env, {"-n", kNamespace, "logs", pod});
    INFO("logs: " << logs);
    CHECK(phase == "Succeeded");
    CHECK(absl::StrContains(logs, probe.expected));
  }
}

std::string WorkloadsManifest(const std::string& renderer_image, const std::string& shell_image) {
  return absl::StrCat(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: renderer, namespace: )",
                      kNamespace, R"(}
spec:
  replicas: 1
  selector: {matchLabels: {app: renderer}}
  template:
    metadata: {labels: {app: renderer}}
    spec:
      containers:
      - name: config-renderer
        image: )",
                      renderer_image, R"(
        imagePullPolicy: Never
        ports: [{containerPort: 8080, name: http}, {containerPort: 50051, name: grpc}]
        readinessProbe: {httpGet: {path: /readyz, port: 8080}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: renderer, namespace: )",
                      kNamespace, R"(}
spec:
  selector: {app: renderer}
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: state, namespace: )",
                      kNamespace, R"(}
spec:
  clusterIP: None
  selector: {app: state}
  ports: [{name: unused, port: 1}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: state, namespace: )",
                      kNamespace, R"(}
spec:
  serviceName: state
  replicas: 1
  selector: {matchLabels: {app: state}}
  template:
    metadata: {labels: {app: state}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: shell
        image: )",
                      shell_image, R"(
        imagePullPolicy: Never
        command: [sleep, infinity]
        volumeMounts: [{name: data, mountPath: /data}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
)");
}

std::string FirstImageNamed(const std::vector<std::string>& images, absl::string_view name) {
  for (const std::string& image : images) {
    if (absl::StartsWith(image, absl::StrCat(kRepository, name, ":"))) return image;
  }
  return "";
}

TEST_CASE("Services resolve and answer across pods, and a PersistentVolumeClaim binds") {
  const KubernetesEnv env = RequireKubernetes();
  EnsureNamespace(env, kNamespace);
  const std::vector<std::string> images = ProjectImages(env);
  const std::string renderer = FirstImageNamed(images, "config-renderer");
  const std::string shell = FirstImageNamed(images, "slurmd");
  REQUIRE(!renderer.empty());
  REQUIRE(!shell.empty());
  Apply(env, WorkloadsManifest(renderer, shell));

  MustKubectl(env, {"-n", kNamespace, "rollout", "status", "deployment/renderer", "--timeout=120s"},
              absl::Seconds(130));
  MustKubectl(env, {"-n", kNamespace, "rollout", "status", "statefulset/state", "--timeout=120s"},
              absl::Seconds(130));

  SECTION("the PersistentVolumeClaim is bound and its volume is writable") {
    CHECK(MustKubectl(env, {"-n", kNamespace, "get", "pvc", "data-state-0", "-o",
                            "jsonpath={.status.phase}"}) == "Bound");
    const std::string written =
        MustKubectl(env, {"-n", kNamespace, "exec", "state-0", "--", "sh", "-c",
                          "echo tidepool >/data/probe && cat /data/probe"});
    CHECK(absl::StrContains(written, "tidepool"));
  }

  SECTION("a ClusterIP Service answers by its DNS name from another pod") {
    // bash's /dev/tcp resolves through the pod's resolv.conf (CoreDNS) and connects to the
    // Service address, which kube-proxy's rules send to the renderer pod.
    const std::string script =
        "exec 3<>/dev/tcp/renderer." + std::string(kNamespace) +
        ".svc.cluster.local/80 && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3";
    std::optional<std::string> answer;
    REQUIRE(PollUntil(
        [&] {
          answer =
              TryKubectl(env, {"-n", kNamespace, "exec", "state-0", "--", "bash", "-c", script});
          return answer && absl::StrContains(*answer, "200 OK");
        },
        absl::Seconds(30), absl::Milliseconds(500)));
  }

  SECTION("a headless Service gives the StatefulSet pod its own DNS name") {
    const std::string pod_ip = MustKubectl(
        env, {"-n", kNamespace, "get", "pod", "state-0", "-o", "jsonpath={.status.podIP}"});
    REQUIRE(!pod_ip.empty());
    std::optional<std::string> resolved;
    REQUIRE(PollUntil(
        [&] {
          resolved =
              TryKubectl(env, {"-n", kNamespace, "exec", "state-0", "--", "getent", "hosts",
                               absl::StrCat("state-0.state.", kNamespace, ".svc.cluster.local")});
          return resolved && absl::StrContains(*resolved, pod_ip);
        },
        absl::Seconds(30), absl::Milliseconds(500)));
  }
}

}  // namespace
}  // namespace tidepool::testing
