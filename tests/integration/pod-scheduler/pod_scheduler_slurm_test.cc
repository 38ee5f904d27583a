// The pod-scheduler binary on the real API server, placing pods through the real
// slurm-syncer binary onto the Slurm testenv's nodes n-01..n-03. The test plays the
// nodeset-controller (slurmd pods n-0X, controlled by a NodeSet, on Nodes <ns>-a..c) and
// the kubelet (it finishes graceful deletions); no kubelet runs the pods.
#include <signal.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <map>
#include <set>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "grpcpp/create_channel.h"
#include "k8s/conditions.h"
#include "k8s/object_json.h"
#include "nodeset-controller/harness.h"
#include "support/http_get.h"
#include "support/ports.h"
#include "tidepool/v1/syncer.grpc.pb.h"

namespace tidepool::podsched::testing {
namespace {

using nodeset::testing::TestNamespace;
using nodeset::testing::WaitUntil;
using tidepool::testing::ChildProcess;
using tidepool::testing::SlurmEnv;
using tidepool::v1::SlurmSyncer;

const std::vector<std::string> kSlurmNodes = {"n-01", "n-02", "n-03"};
constexpr char kJobIdAnnotation[] = "tidepool.dev/slurm-job-id";

void RequireOk(const absl::Status& status) {
  INFO(status.ToString());
  REQUIRE(status.ok());
}

bool Ready(uint16_t http_port) {
  auto response =
      tidepool::testing::HttpGet(absl::StrCat("http://127.0.0.1:", http_port, "/readyz"));
  return response.ok() && response->status == 200;
}

// A slurm-syncer process on free loopback ports against the testenv's slurmrestd, Slurm
// side only (the pod-scheduler test does not exercise its two-way node sync).
class Syncer {
 public:
  // `user`: the Slurm user its jobs are (SlurmUser, as deployed); another user stands in
  // for a second cluster's Slurm, whose jobs this one's table never holds.
  explicit Syncer(const SlurmEnv& env, const std::string& user = "slurm") {
    const uint16_t grpc_port = tidepool::testing::FreeLoopbackPort().value();
    const uint16_t http_port = tidepool::testing::FreeLoopbackPort().value();
    address_ = absl::StrCat("127.0.0.1:", grpc_port);
    const char* binary = std::getenv("TIDEPOOL_SLURM_SYNCER");
    REQUIRE(binary != nullptr);
    absl::StatusOr<ChildProcess> process = ChildProcess::Spawn(
        binary, {"--listen_address=127.0.0.1", absl::StrCat("--grpc_port=", grpc_port),
                 absl::StrCat("--http_port=", http_port), "--job_poll_interval=500ms",
                 "--slurm_rest_url=" + env.rest_url, "--slurm_jwt_key_file=" + env.jwt_key_file,
                 // SlurmUser, as deployed: placeholder jobs are this user's, and the
                 // test's own sbatch (root) makes jobs of someone else.
                 "--slurm_jwt_user=" + user, "--sync_kubernetes=false"});
    RequireOk(process.status());
    process_.emplace(*std::move(process));
    stub_ = SlurmSyncer::NewStub(grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()));
    const bool ready = WaitUntil([&] { return Ready(http_port); });
    INFO(process_->Output());
    REQUIRE(ready);
  }
  ~Syncer() {
    (void)process_->Signal(SIGTERM);
    (void)process_->WaitForExit(absl::Seconds(15));
  }

  const std::string& address() const { return address_; }

  std::optional<tidepool::v1::SlurmJob> Job(uint32_t id) {
    tidepool::v1::GetJobRequest request;
    request.set_job_id(id);
    tidepool::v1::GetJobResponse response;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
    if (!stub_->GetJob(&context, request, &response).ok()) return std::nullopt;
    return response.job();
  }

 private:
  std::string address_;
  std::optional<ChildProcess> process_;
  std::unique_ptr<SlurmSyncer::Stub> stub_;
};

// The pod-scheduler binary for the namespace's SlurmCluster `cluster`, on free ports.
class Scheduler {
 public:
  Scheduler(const TestNamespace& ns, const std::string& syncer_address,
            const std::string& cluster = "research") {
    http_port_ = tidepool::testing::FreeLoopbackPort().value();
    const char* binary = std::getenv("TIDEPOOL_POD_SCHEDULER");
    REQUIRE(binary != nullptr);
    absl::StatusOr<ChildProcess> process = ChildProcess::Spawn(
        binary,
        {"--listen_address=127.0.0.1",
         absl::StrCat("--grpc_port=", tidepool::testing::FreeLoopbackPort().value()),
         absl::StrCat("--http_port=", http_port_), "--kubeconfig=" + ns.env().kubeconfig,
         "--syncer_address=" + syncer_address, "--slurm_cluster=" + ns.name() + "/" + cluster,
         "--leader_election_namespace=" + ns.name(),
         "--leader_election_id=pod-scheduler-" + cluster, "--log_level=debug"});
    RequireOk(process.status());
    process_.emplace(*std::move(process));
    const bool ready = WaitUntil([&] { return Ready(http_port_); });
    INFO(process_->Output());
    REQUIRE(ready);
  }
  ~Scheduler() {
    if (!killed_) {
      (void)process_->Signal(SIGTERM);
      (void)process_->WaitForExit(absl::Seconds(20));
    }
  }
  void Kill() {
    (void)process_->Signal(SIGKILL);
    (void)process_->WaitForExit(absl::Seconds(10));
    killed_ = true;
  }
  std::string Output() const { return process_->Output(); }
  std::string Metrics() {
    auto response =
        tidepool::testing::HttpGet(absl::StrCat("http://127.0.0.1:", http_port_, "/metrics"));
    return response.ok() ? response->body : "";
  }

 private:
  uint16_t http_port_ = 0;
  bool killed_ = false;
  std::optional<ChildProcess> process_;
};

std::string SchedulerName(const TestNamespace& ns) { return "tidepool-" + ns.name(); }

// The cluster's pod scheduler on, a NodeSet "compute" and its slurmd pods n-0X on the
// Nodes <ns>-a..c, as the nodeset-controller would make them. Returns Slurm node → Node.
std::map<std::string, std::string> SetUpCluster(TestNamespace& ns) {
  RequireOk(ns.client()
                .MergePatch(api::SlurmClusters(), ns.name(), "research",
                            absl::StrCat(R"({"spec":{"podScheduler":{"enabled":true,)",
                                         R"("schedulerName":")", SchedulerName(ns), R"("}}})"))
                .status());
  // A NodeSet no Node matches: no controller runs here, it only owns the slurmd pods.
  ns.CreateNodeSet("compute", "n", 0);
  const std::string uid = k8s::ParseObjectMeta(ns.NodeSet("compute"))->uid;
  std::map<std::string, std::string> nodes;
  const std::vector<std::string> suffixes = {"a", "b", "c"};
  for (size_t i = 0; i < kSlurmNodes.size(); ++i) {
    const std::string node = ns.CreateNode(suffixes[i]);
    nodes[kSlurmNodes[i]] = node;
    RequireOk(
        ns.client()
            .Create(k8s::Pods(), ns.name(),
                    absl::StrCat(
                        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", kSlurmNodes[i],
                        R"(","labels":{"tidepool.dev/component":"slurmd"},)",
                        R"("ownerReferences":[{"apiVersion":"tidepool.dev/v1alpha1",)",
                        R"("kind":"NodeSet","name":"compute","uid":")", uid,
                        R"(","controller":true}]},"spec":{"nodeName":")", node,
                        R"(","containers":[{"name":"slurmd","image":"example.invalid/slurmd"}]}})"))
            .status());
  }
  return nodes;
}

// The notes of the namespace's events of `reason`, once there is one: the scheduler
// records events in the background, after the write that the test waited for.
std::vector<std::string> AwaitEventNotes(TestNamespace& ns, const std::string& reason) {
  std::vector<std::string> notes;
  WaitUntil([&] {
    notes = ns.EventNotes(reason);
    return !notes.empty();
  });
  return notes;
}

// A pod for the scheduler: one CPU, 64 MiB, five minutes, plus `annotations` (JSON
// members); bound to `node` when one is given.
std::string CreatePod(TestNamespace& ns, const std::string& name,
                      const std::string& annotations = "", const std::string& node = "") {
  absl::StatusOr<std::string> created = ns.client().Create(
      k8s::Pods(), ns.name(),
      absl::StrCat(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", name,
                   R"(","annotations":{"tidepool.dev/time-limit":"5")",
                   annotations.empty() ? "" : ",", annotations, R"(}},"spec":{)",
                   node.empty() ? "" : absl::StrCat(R"("nodeName":")", node, R"(",)"),
                   R"("schedulerName":")", SchedulerName(ns),
                   R"(","containers":[{"name":"work","image":"example.invalid/work",)",
                   R"("resources":{"requests":{"cpu":"1","memory":"64Mi"}}}]}})"));
  RequireOk(created.status());
  return k8s::ParseObjectMeta(*created)->uid;
}

std::string NodeNameOf(const std::string& pod_json) {
  rapidjson::Document pod = k8s::ParseJsonObject(pod_json, "pod").value();
  const rapidjson::Value* spec = k8s::FindMember(pod, "spec");
  return spec == nullptr ? "" : k8s::StringMember(*spec, "nodeName");
}

uint32_t JobIdOf(const std::string& pod_json) {
  uint32_t id = 0;
  (void)absl::SimpleAtoi(k8s::AnnotationOf(pod_json, kJobIdAnnotation), &id);
  return id;
}

// Slurm's ids of every job (any state) named for the pod uid.
std::vector<std::string> SlurmJobsNamed(const SlurmEnv& slurm, const std::string& uid) {
  auto result = tidepool::testing::SlurmExec(
      slurm, {"squeue", "--noheader", "--states=all", "--name=tidepool-pod-" + uid, "-o", "%i"});
  REQUIRE(result.ok());
  INFO(result->output);
  REQUIRE(result->exit_code == 0);
  return absl::StrSplit(absl::StripAsciiWhitespace(result->output), '\n', absl::SkipEmpty());
}

std::string FirstState(const std::optional<tidepool::v1::SlurmJob>& job) {
  return job.has_value() && job->states_size() > 0 ? job->states(0) : "";
}

// Waits until the pod is bound and returns its job id.
uint32_t WaitBound(TestNamespace& ns, const std::string& name, Scheduler& scheduler) {
  uint32_t id = 0;
  const bool bound = WaitUntil(
      [&] {
        std::optional<std::string> pod = ns.Pod(name);
        if (!pod.has_value() || NodeNameOf(*pod).empty()) return false;
        id = JobIdOf(*pod);
        return id != 0;
      },
      absl::Seconds(60));
  INFO(scheduler.Output());
  REQUIRE(bound);
  return id;
}

// Whether, within `wait`, the pod `name` went (or began to) or its job `id` stopped
// RUNNING: what must not happen to a running pod whose annotations or scheduler change.
bool Disturbed(TestNamespace& ns, Syncer& syncer, const std::string& name, uint32_t id,
               absl::Duration wait) {
  return WaitUntil(
      [&] {
        std::optional<std::string> pod = ns.Pod(name);
        return !pod.has_value() || k8s::ParseObjectMeta(*pod)->deleting ||
               FirstState(syncer.Job(id)) != "RUNNING";
      },
      wait);
}

// Slurm's ids of every job (any state) whose comment names the pod group.
std::vector<std::string> SlurmJobsOfGroup(const SlurmEnv& slurm, const std::string& ns,
                                          const std::string& group) {
  auto result =
      tidepool::testing::SlurmExec(slurm, {"squeue", "--noheader", "--states=all", "-o", "%i|%k"});
  REQUIRE(result.ok());
  REQUIRE(result->exit_code == 0);
  std::vector<std::string> ids;
  for (absl::string_view line : absl::StrSplit(result->output, '\n', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> parts = absl::StrSplit(line, '|');
    if (parts.second == absl::StrCat("group ", ns, "/", group)) ids.emplace_back(parts.first);
  }
  return ids;
}

// Cancels the jobs the test's pods left (the scheduler cancels them when it sees the pods
// go; this is for a failed test).
void CancelLeftovers(const SlurmEnv& slurm, const std::vector<std::string>& uids) {
  for (const std::string& uid : uids) {
    (void)tidepool::testing::SlurmExec(slurm, {"scancel", "--name=tidepool-pod-" + uid});
  }
}

TEST_CASE("pods become Slurm jobs, are bound where Slurm runs them and torn down both ways") {
  absl::StatusOr<SlurmEnv> slurm = tidepool::testing::Slurm();
  INFO(slurm.status().ToString());
  REQUIRE(slurm.ok());
  Syncer syncer(*slurm);
  TestNamespace ns;
  const std::map<std::string, std::string> node_of = SetUpCluster(ns);
  std::vector<std::string> uids;
  absl::Cleanup cancel_leftovers = [&] { CancelLeftovers(*slurm, uids); };
  Scheduler scheduler(ns, syncer.address());

  SECTION("a pod's job runs in Slurm and the pod is bound to that Slurm node's Node") {
    const absl::Time start = absl::Now();
    uids.push_back(CreatePod(ns, "single"));
    const uint32_t id = WaitBound(ns, "single", scheduler);
    const absl::Duration took = absl::Now() - start;
    std::optional<tidepool::v1::SlurmJob> job = syncer.Job(id);
    REQUIRE(FirstState(job) == "RUNNING");
    CHECK(job->name() == "tidepool-pod-" + uids.back());
    CHECK(job->comment() == absl::StrCat("pod ", ns.name(), "/single"));
    REQUIRE(node_of.contains(job->nodes()));
    CHECK(NodeNameOf(*ns.Pod("single")) == node_of.at(job->nodes()));
    CHECK(SlurmJobsNamed(*slurm, uids.back()).size() == 1);
    CHECK_FALSE(AwaitEventNotes(ns, "JobSubmitted").empty());
    CHECK_FALSE(AwaitEventNotes(ns, "Bound").empty());
    CHECK(absl::StrContains(scheduler.Metrics(), "tidepool_pod_scheduler_jobs_submitted_total 1"));
    WARN("created -> bound: " << absl::FormatDuration(took));

    // The pod deleted: its job is cancelled.
    RequireOk(ns.client().Delete(k8s::Pods(), ns.name(), "single").status());
    const bool cancelled = WaitUntil([&] { return FirstState(syncer.Job(id)) == "CANCELLED"; });
    INFO(scheduler.Output());
    CHECK(cancelled);
  }

  SECTION("a running pod keeps its job: it names a pod group, the scheduler renamed or disabled") {
    uids.push_back(CreatePod(ns, "joins"));
    const uint32_t id = WaitBound(ns, "joins", scheduler);
    RequireOk(ns.client()
                  .MergePatch(k8s::Pods(), ns.name(), "joins",
                              R"({"metadata":{"annotations":{"tidepool.dev/pod-group":"late",)"
                              R"("tidepool.dev/pod-group-size":"2"}}})")
                  .status());
    // Longer than a missing job is waited for (9 s): neither the pod's sync nor the
    // group's may take it for a group member without its job.
    const bool disturbed = Disturbed(ns, syncer, "joins", id, absl::Seconds(15));
    {
      INFO(scheduler.Output());
      CHECK_FALSE(disturbed);
    }
    // The scheduler renamed: pods it placed keep their jobs (before, each such job was
    // cancelled as "its pod is gone").
    RequireOk(ns.client()
                  .MergePatch(api::SlurmClusters(), ns.name(), "research",
                              R"({"spec":{"podScheduler":{"schedulerName":"renamed"}}})")
                  .status());
    const bool cancelled =
        WaitUntil([&] { return FirstState(syncer.Job(id)) != "RUNNING"; }, absl::Seconds(10));
    {
      INFO(scheduler.Output());
      CHECK_FALSE(cancelled);
    }
    // Disabled: the pod keeps its job; once the pod is gone its job is cancelled (before,
    // a disabled scheduler touched nothing, and the job held its node for good).
    RequireOk(ns.client()
                  .MergePatch(api::SlurmClusters(), ns.name(), "research",
                              R"({"spec":{"podScheduler":{"enabled":false}}})")
                  .status());
    CHECK_FALSE(
        WaitUntil([&] { return FirstState(syncer.Job(id)) != "RUNNING"; }, absl::Seconds(5)));
    RequireOk(ns.client().Delete(k8s::Pods(), ns.name(), "joins").status());
    const bool released = WaitUntil([&] { return FirstState(syncer.Job(id)) == "CANCELLED"; });
    INFO(scheduler.Output());
    CHECK(released);
  }

  SECTION("a later cluster's scheduler of the same name places nothing; pods record theirs") {
    ns.CreateCluster("later");
    RequireOk(ns.client()
                  .MergePatch(api::SlurmClusters(), ns.name(), "later",
                              absl::StrCat(R"({"spec":{"podScheduler":{"enabled":true,)",
                                           R"("schedulerName":")", SchedulerName(ns), R"("}}})"))
                  .status());
    // Its own Slurm, as another cluster's would be (here: another Slurm user's jobs).
    Syncer later_syncer(*slurm, slurm->token_user);
    Scheduler later(ns, later_syncer.address(), "later");
    // The later one says so at once, before any pod asks for the name.
    const bool yielded =
        WaitUntil([&] { return absl::StrContains(later.Output(), "event=scheduler_name_taken"); });
    CHECK_FALSE(AwaitEventNotes(ns, "SchedulerNameTaken").empty());
    uids.push_back(CreatePod(ns, "shared"));
    const uint32_t id = WaitBound(ns, "shared", scheduler);
    CHECK(k8s::AnnotationOf(*ns.Pod("shared"), "tidepool.dev/slurm-cluster") ==
          ns.name() + "/research");
    absl::SleepFor(absl::Seconds(3));  // time for a second scheduler to submit, were it to
    INFO(later.Output());
    CHECK(yielded);
    CHECK(SlurmJobsNamed(*slurm, uids.back()).size() == 1);
    CHECK(FirstState(syncer.Job(id)) == "RUNNING");
  }

  SECTION("a job cancelled in Slurm deletes its pod with the reason") {
    uids.push_back(CreatePod(ns, "cancelled"));
    const uint32_t id = WaitBound(ns, "cancelled", scheduler);
    auto scancel = tidepool::testing::SlurmExec(*slurm, {"scancel", absl::StrCat(id)});
    REQUIRE(scancel.ok());
    REQUIRE(scancel->exit_code == 0);
    const bool deleted = WaitUntil([&] {
      std::optional<std::string> pod = ns.Pod("cancelled");
      return !pod.has_value() || k8s::ParseObjectMeta(*pod)->deleting;
    });
    INFO(scheduler.Output());
    REQUIRE(deleted);
    const std::vector<std::string> notes = AwaitEventNotes(ns, "JobEnded");
    REQUIRE_FALSE(notes.empty());
    CHECK(absl::StrContains(notes.front(), "CANCELLED"));
  }

  SECTION("a pod recorded with a job Slurm lacks is deleted only once the job stays missing") {
    // A job view can trail Slurm (a job just submitted, one bad reply): a job missing from
    // one view must not take the pod with it.
    const absl::Time start = absl::Now();
    uids.push_back(CreatePod(ns, "lost", R"("tidepool.dev/slurm-job-id":"60000000")"));
    // Placed before pods recorded their cluster, by another cluster whose scheduler had
    // the same name, on a Node without a slurmd pod of this one: its job is in the other
    // Slurm, and this scheduler must not delete it (before, it did, as "job gone").
    uids.push_back(CreatePod(ns, "elsewhere", R"("tidepool.dev/slurm-job-id":"60000001")",
                             ns.name() + "-elsewhere"));
    const auto deleted = [&](const std::string& name) {
      std::optional<std::string> pod = ns.Pod(name);
      return !pod.has_value() || k8s::ParseObjectMeta(*pod)->deleting;
    };
    CHECK_FALSE(WaitUntil([&] { return deleted("lost"); }, absl::Seconds(6)));
    const bool went = WaitUntil([&] { return deleted("lost"); }, absl::Seconds(30));
    INFO(scheduler.Output());
    REQUIRE(went);
    CHECK(absl::Now() - start >= absl::Seconds(9));
    CHECK_FALSE(WaitUntil([&] { return deleted("elsewhere"); }, absl::Seconds(3)));
    const std::vector<std::string> notes = AwaitEventNotes(ns, "JobEnded");
    REQUIRE_FALSE(notes.empty());
    CHECK(absl::StrContains(notes.front(), "Slurm job 60000000 is gone from Slurm"));
  }

  SECTION("an invalid annotation: PodScheduled False, an event naming it, and no job") {
    uids.push_back(CreatePod(ns, "invalid", R"("tidepool.dev/exclusive":"always")"));
    std::string reason;
    const bool marked = WaitUntil([&] {
      std::optional<std::string> pod = ns.Pod("invalid");
      if (!pod.has_value()) return false;
      const auto conditions = k8s::ReadConditions(k8s::ParseJsonObject(*pod, "pod").value());
      auto it = conditions.find("PodScheduled");
      if (it == conditions.end()) return false;
      reason = it->second.status + "/" + it->second.reason + ": " + it->second.message;
      return true;
    });
    INFO(scheduler.Output());
    REQUIRE(marked);
    CHECK(absl::StartsWith(reason, "False/InvalidPlacement: annotation tidepool.dev/exclusive"));
    const std::vector<std::string> notes = AwaitEventNotes(ns, "InvalidPlacement");
    REQUIRE_FALSE(notes.empty());
    CHECK(absl::StrContains(notes.front(), "\"always\""));
    CHECK(SlurmJobsNamed(*slurm, uids.back()).empty());
    CHECK(k8s::AnnotationOf(*ns.Pod("invalid"), kJobIdAnnotation).empty());

    // An account the cluster's placement policy does not list for the namespace: the
    // same, although Slurm would take it from slurm-syncer's user.
    uids.push_back(CreatePod(ns, "account", R"("tidepool.dev/account":"root")"));
    const bool refused = WaitUntil([&] {
      std::optional<std::string> pod = ns.Pod("account");
      if (!pod.has_value()) return false;
      const auto conditions = k8s::ReadConditions(k8s::ParseJsonObject(*pod, "pod").value());
      auto it = conditions.find("PodScheduled");
      return it != conditions.end() && it->second.reason == "InvalidPlacement" &&
             absl::StrContains(it->second.message, "tidepool.dev/account: \"root\" is not allowed");
    });
    INFO(scheduler.Output());
    CHECK(refused);
    CHECK(SlurmJobsNamed(*slurm, uids.back()).empty());
  }

  SECTION("a GPU pod on a cluster without GPUs: Slurm refuses its job, the pod says why") {
    absl::StatusOr<std::string> created = ns.client().Create(
        k8s::Pods(), ns.name(),
        absl::StrCat(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu"},)",
                     R"("spec":{"schedulerName":")", SchedulerName(ns),
                     R"(","containers":[{"name":"work","image":"example.invalid/work",)",
                     R"("resources":{"limits":{"nvidia.com/gpu":"2"}}}]}})"));
    RequireOk(created.status());
    uids.push_back(k8s::ParseObjectMeta(*created)->uid);
    std::string condition;
    const bool marked = WaitUntil([&] {
      const auto conditions =
          k8s::ReadConditions(k8s::ParseJsonObject(*ns.Pod("gpu"), "pod").value());
      auto it = conditions.find("PodScheduled");
      if (it == conditions.end()) return false;
      condition = it->second.status + "/" + it->second.reason + ": " + it->second.message;
      return true;
    });
    INFO(scheduler.Output());
    REQUIRE(marked);
    WARN(condition);
    CHECK(absl::StartsWith(condition, "False/FailedSubmit: submitting the placeholder job"));
    CHECK_FALSE(AwaitEventNotes(ns, "FailedSubmit").empty());
    CHECK(SlurmJobsNamed(*slurm, uids.back()).empty());
    CHECK(NodeNameOf(*ns.Pod("gpu")).empty());
  }

  SECTION("a pod group becomes one job when complete, bound together, torn down together") {
    const std::string group =
        R"("tidepool.dev/pod-group":"train","tidepool.dev/pod-group-size":"3")";
    uids.push_back(CreatePod(ns, "train-0", group));
    uids.push_back(CreatePod(ns, "train-1", group));
    // Two of three: nothing goes to Slurm (give the scheduler time to do the wrong thing).
    absl::SleepFor(absl::Seconds(3));
    CHECK(SlurmJobsOfGroup(*slurm, ns.name(), "train").empty());
    CHECK(NodeNameOf(*ns.Pod("train-0")).empty());
    uids.push_back(CreatePod(ns, "train-2", group));
    std::set<std::string> nodes;
    std::set<uint32_t> ids;
    for (const char* name : {"train-0", "train-1", "train-2"}) {
      ids.insert(WaitBound(ns, name, scheduler));
      nodes.insert(NodeNameOf(*ns.Pod(name)));
    }
    REQUIRE(ids.size() == 1);
    const uint32_t id = *ids.begin();
    CHECK(nodes.size() == 3);
    CHECK(SlurmJobsOfGroup(*slurm, ns.name(), "train") ==
          std::vector<std::string>{absl::StrCat(id)});
    std::optional<tidepool::v1::SlurmJob> job = syncer.Job(id);
    REQUIRE(FirstState(job) == "RUNNING");
    std::set<std::string> expected;
    for (const auto& [slurm_node, node] : node_of) expected.insert(node);
    CHECK(nodes == expected);  // the job holds all three Slurm nodes

    // A member's group annotations removed while it runs: it stays with the group's job
    // (before, it was taken for a single pod whose job is gone, deleted after the
    // missing-job wait of 9 s, and the group's job cancelled as "the pods changed").
    RequireOk(ns.client()
                  .MergePatch(k8s::Pods(), ns.name(), "train-0",
                              R"({"metadata":{"annotations":{"tidepool.dev/pod-group":null,)"
                              R"("tidepool.dev/pod-group-size":null}}})")
                  .status());
    const bool disturbed = Disturbed(ns, syncer, "train-0", id, absl::Seconds(12));
    {
      INFO(scheduler.Output());
      CHECK_FALSE(disturbed);
    }

    // One member deleted: the job is cancelled and the others (train-0 too, which names
    // the group no more) are deleted with it.
    RequireOk(ns.client().Delete(k8s::Pods(), ns.name(), "train-1").status());
    const bool cancelled = WaitUntil([&] { return FirstState(syncer.Job(id)) == "CANCELLED"; });
    {
      INFO(scheduler.Output());
      CHECK(cancelled);
    }
    const bool all_gone = WaitUntil([&] {
      for (const char* name : {"train-0", "train-2"}) {
        std::optional<std::string> pod = ns.Pod(name);
        if (pod.has_value() && !k8s::ParseObjectMeta(*pod)->deleting) return false;
      }
      return true;
    });
    INFO(scheduler.Output());  // the log up to now: what was decided after the cancel
    CHECK(all_gone);
  }

  SECTION("a job whose pod went while no scheduler ran is cancelled by the next one") {
    uids.push_back(CreatePod(ns, "orphan"));
    const uint32_t id = WaitBound(ns, "orphan", scheduler);
    scheduler.Kill();
    RequireOk(
        ns.client().Delete(k8s::Pods(), ns.name(), "orphan", {.grace_period_seconds = 0}).status());
    REQUIRE(WaitUntil([&] { return !ns.Pod("orphan").has_value(); }));
    REQUIRE(FirstState(syncer.Job(id)) == "RUNNING");
    Scheduler again(ns, syncer.address());
    const bool cancelled = WaitUntil([&] { return FirstState(syncer.Job(id)) == "CANCELLED"; });
    INFO(again.Output());
    CHECK(cancelled);
  }

  SECTION("another user's job named and commented like a placeholder job is left alone") {
    uids.push_back(CreatePod(ns, "real"));
    const uint32_t real = WaitBound(ns, "real", scheduler);
    CHECK(syncer.Job(real)->user() == "slurm");
    // One for a pod that does not exist (the reaper's case), one for the pod above (where
    // it would be bound).
    std::vector<uint32_t> fakes;
    for (const auto& [name, comment] : std::vector<std::pair<std::string, std::string>>{
             {"tidepool-pod-00000000-0000-0000-0000-000000000000", "pod " + ns.name() + "/gone"},
             {"tidepool-pod-" + uids.back(), "pod " + ns.name() + "/real"}}) {
      auto sbatch =
          tidepool::testing::SlurmExec(*slurm, {"sbatch", "--parsable", "-J", name, "--comment",
                                                comment, "-t", "5", "--wrap", "sleep 300"});
      REQUIRE(sbatch.ok());
      INFO(sbatch->output);
      REQUIRE(sbatch->exit_code == 0);
      uint32_t id = 0;
      REQUIRE(absl::SimpleAtoi(absl::StripAsciiWhitespace(sbatch->output), &id));
      fakes.push_back(id);
    }
    absl::Cleanup cancel_fakes = [&] {
      for (uint32_t id : fakes)
        (void)tidepool::testing::SlurmExec(*slurm, {"scancel", absl::StrCat(id)});
    };
    // The scheduler sees them within a poll (500 ms); give it time to do the wrong thing.
    absl::SleepFor(absl::Seconds(4));
    INFO(scheduler.Output());
    for (uint32_t id : fakes) {
      std::optional<tidepool::v1::SlurmJob> job = syncer.Job(id);
      REQUIRE(job.has_value());
      CHECK(job->user() == "root");
      CHECK(FirstState(job) != "CANCELLED");
    }
    CHECK(JobIdOf(*ns.Pod("real")) == real);
    CHECK(FirstState(syncer.Job(real)) == "RUNNING");
    CHECK(absl::StrContains(scheduler.Metrics(), "tidepool_pod_scheduler_jobs_cancelled_total 0"));
  }

  SECTION("a scheduler killed just after submitting and started again makes no second job") {
    uids.push_back(CreatePod(ns, "restart"));
    // Kill it as soon as Slurm has the job, before or after it wrote the job id.
    const bool submitted =
        WaitUntil([&] { return !SlurmJobsNamed(*slurm, uids.back()).empty(); }, absl::Seconds(30));
    scheduler.Kill();
    REQUIRE(submitted);
    Scheduler again(ns, syncer.address());
    const uint32_t id = WaitBound(ns, "restart", again);
    CHECK(SlurmJobsNamed(*slurm, uids.back()) == std::vector<std::string>{absl::StrCat(id)});
    RequireOk(ns.client().Delete(k8s::Pods(), ns.name(), "restart").status());
    const bool cancelled = WaitUntil([&] { return FirstState(syncer.Job(id)) == "CANCELLED"; });
    INFO(again.Output());
    CHECK(cancelled);
  }
}

}  // namespace
}  // namespace tidepool::podsched::testing
