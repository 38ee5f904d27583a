// Protected deletion against real Slurm: the nodeset-controller binary drains through the
// real slurm-syncer binary (itself on the Slurm testenv's slurmrestd), keeps the pod while
// a job runs on its Slurm node, deletes it once the node is drained and idle, and clears
// its own drain when the pod is back and ready. A NodeSet with namePrefix "n" maps its
// pods onto the testenv's Slurm nodes n-01..n-03.
#include <signal.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "harness.h"
#include "k8s/object_json.h"
#include "k8s/ownership.h"
#include "support/http_get.h"
#include "support/ports.h"
#include "tidepool/resource_types.h"
#include "tidepool/v1/syncer.grpc.pb.h"

namespace tidepool::nodeset::testing {
namespace {

using tidepool::testing::SlurmEnv;
using tidepool::v1::SlurmSyncer;

const std::vector<std::string> kSlurmNodes = {"n-01", "n-02", "n-03"};
// The architecture's bound for a Slurm change to reach Kubernetes: the syncer's node poll
// (1 s here) + 250 ms; and room for the status read on a busy machine.
constexpr absl::Duration kSlurmToKubernetesTarget = absl::Milliseconds(1250);
constexpr absl::Duration kReadSlack = absl::Seconds(1);
constexpr char kPersonReason[] = "nodeset-controller test: maintenance";

std::unique_ptr<grpc::ClientContext> Deadline() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  return context;
}

// A slurm-syncer process on free loopback ports against the testenv's slurmrestd.
class Syncer {
 public:
  explicit Syncer(const SlurmEnv& env) {
    const uint16_t grpc_port = tidepool::testing::FreeLoopbackPort().value();
    http_port_ = tidepool::testing::FreeLoopbackPort().value();
    address_ = absl::StrCat("127.0.0.1:", grpc_port);
    const char* binary = std::getenv("TIDEPOOL_SLURM_SYNCER");
    REQUIRE(binary != nullptr);
    absl::StatusOr<ChildProcess> process = ChildProcess::Spawn(
        binary, {"--listen_address=127.0.0.1", absl::StrCat("--grpc_port=", grpc_port),
                 absl::StrCat("--http_port=", http_port_), "--node_poll_interval=1s",
                 "--slurm_rest_url=" + env.rest_url, "--slurm_jwt_key_file=" + env.jwt_key_file,
                 "--slurm_jwt_user=" + env.token_user,
                 // Only the Slurm side: the controller's own drains are under test, not
                 // the syncer's pod-readiness drains.
                 "--sync_kubernetes=false", "--force_callers=*"});
    REQUIRE(process.ok());
    process_.emplace(*std::move(process));
    stub_ = SlurmSyncer::NewStub(grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()));
    const bool ready = WaitUntil([&] {
      auto response =
          tidepool::testing::HttpGet(absl::StrCat("http://127.0.0.1:", http_port_, "/readyz"));
      return response.ok() && response->status == 200;
    });
    INFO(process_->Output());
    REQUIRE(ready);
  }
  ~Syncer() {
    (void)process_->Signal(SIGTERM);
    (void)process_->WaitForExit(absl::Seconds(15));
  }

  const std::string& address() const { return address_; }

  tidepool::v1::SlurmNode Node(const std::string& name) {
    tidepool::v1::GetNodesRequest request;
    request.set_fresh(true);
    request.add_names(name);
    tidepool::v1::GetNodesResponse response;
    grpc::Status status = stub_->GetNodes(Deadline().get(), request, &response);
    INFO(status.error_message());
    REQUIRE(status.ok());
    REQUIRE(response.nodes_size() == 1);
    return response.nodes(0);
  }

  uint32_t SubmitOnAll(absl::string_view body) {
    tidepool::v1::SubmitJobRequest request;
    auto* job = request.mutable_job();
    job->set_script(absl::StrCat("#!/bin/sh\n", body, "\n"));
    job->set_name("nodeset-controller-test");
    job->set_nodes("3");
    for (const std::string& node : kSlurmNodes) job->add_required_nodes(node);
    job->set_time_limit_minutes(5);
    job->set_cwd("/tmp");
    tidepool::v1::SubmitJobResponse response;
    grpc::Status status = stub_->SubmitJob(Deadline().get(), request, &response);
    INFO(status.error_message());
    REQUIRE(status.ok());
    return response.job_id();
  }

  tidepool::v1::SlurmJob Job(uint32_t id) {
    tidepool::v1::GetJobRequest request;
    request.set_job_id(id);
    tidepool::v1::GetJobResponse response;
    grpc::Status status = stub_->GetJob(Deadline().get(), request, &response);
    INFO(status.error_message());
    REQUIRE(status.ok());
    return response.job();
  }

  void Cancel(uint32_t id) {
    tidepool::v1::CancelJobRequest request;
    request.set_job_id(id);
    tidepool::v1::CancelJobResponse response;
    (void)stub_->CancelJob(Deadline().get(), request, &response);
  }

  // Drains or clears a drain as a person would (a reason the syncer does not own).
  void PersonDrain(const std::string& node, const std::string& reason, bool drain) {
    tidepool::v1::UpdateNodeRequest request;
    request.set_name(node);
    request.set_force(true);
    if (drain) {
      request.set_action(tidepool::v1::UpdateNodeRequest::DRAIN);
      request.set_reason(reason);
    } else {
      request.set_action(tidepool::v1::UpdateNodeRequest::UNDRAIN);
      request.set_if_reason(reason);
    }
    tidepool::v1::UpdateNodeResponse response;
    grpc::Status status = stub_->UpdateNode(Deadline().get(), request, &response);
    INFO(status.error_message());
    REQUIRE(status.ok());
  }

  // Clears the drains this test's controller may have left (never anyone else's).
  void ClearOurDrains() {
    for (const std::string& node : kSlurmNodes) {
      for (const char* reason : {"k8s: scale-in", "k8s: update"}) {
        tidepool::v1::UpdateNodeRequest request;
        request.set_name(node);
        request.set_action(tidepool::v1::UpdateNodeRequest::UNDRAIN);
        request.set_if_reason(reason);
        tidepool::v1::UpdateNodeResponse response;
        (void)stub_->UpdateNode(Deadline().get(), request, &response);
      }
    }
  }

 private:
  uint16_t http_port_ = 0;
  std::string address_;
  std::optional<ChildProcess> process_;
  std::unique_ptr<SlurmSyncer::Stub> stub_;
};

// A slurm-syncer on the environment's Slurm for one test; the test's job (if any) and the
// drains its controller may have left are cleared when it ends.
struct SlurmSession {
  explicit SlurmSession(const SlurmEnv& env) : syncer(env) { syncer.ClearOurDrains(); }
  ~SlurmSession() {
    if (job_id != 0) syncer.Cancel(job_id);
    syncer.ClearOurDrains();
  }
  SlurmSession(const SlurmSession&) = delete;
  SlurmSession& operator=(const SlurmSession&) = delete;

  Syncer syncer;
  uint32_t job_id = 0;
};

bool Running(const tidepool::v1::SlurmJob& job) {
  return std::find(job.states().begin(), job.states().end(), "RUNNING") != job.states().end();
}

bool Terminating(const std::optional<std::string>& pod) {
  return pod.has_value() && k8s::ParseObjectMeta(*pod)->deleting;
}

void Scale(TestNamespace& ns, int replicas) {
  auto scaled = tidepool::testing::Kubectl(
      ns.env(),
      {"scale", "nodeset", "compute", "-n", ns.name(), absl::StrCat("--replicas=", replicas)});
  REQUIRE(scaled.ok());
  INFO(scaled->output);
  REQUIRE(scaled->exit_code == 0);
}

TEST_CASE("scale-in drains, waits for the running job, deletes; scale-out clears the drain") {
  absl::StatusOr<SlurmEnv> slurm = tidepool::testing::Slurm();
  INFO(slurm.status().ToString());
  REQUIRE(slurm.ok());
  for (const std::string& node : kSlurmNodes) {
    REQUIRE(std::find(slurm->node_names.begin(), slurm->node_names.end(), node) !=
            slurm->node_names.end());
  }
  SlurmSession session(*slurm);
  Syncer& syncer = session.syncer;
  uint32_t& job_id = session.job_id;
  TestNamespace ns;
  const std::vector<std::string> nodes = {ns.CreateNode("a"), ns.CreateNode("b"),
                                          ns.CreateNode("c")};
  Controller controller(ns, syncer.address());
  ns.CreateNodeSet("compute", "n", std::nullopt);
  const bool created = WaitUntil([&] { return ns.PodNames() == kSlurmNodes; });
  INFO(controller.Output());
  REQUIRE(created);
  ns.MarkAllReady();
  REQUIRE(WaitUntil([&] {
    return ns.StatusField("compute", "numberReady") == 3 &&
           ns.StatusField("compute", "slurmIdle") == 3;
  }));
  CHECK(ns.ConditionReason("compute", "SlurmUnreachable") == "False/SyncerConnected");

  // The Slurm counts follow a change in Slurm from the syncer's node watch, within a poll
  // (not a periodic resync), both ways.
  syncer.PersonDrain("n-01", kPersonReason, true);
  absl::Cleanup undrain = [&] { syncer.PersonDrain("n-01", kPersonReason, false); };
  CHECK(WaitUntil([&] { return ns.StatusField("compute", "numberDrain") == 1; },
                  kSlurmToKubernetesTarget + kReadSlack));
  syncer.PersonDrain("n-01", kPersonReason, false);
  std::move(undrain).Cancel();
  CHECK(WaitUntil(
      [&] {
        return ns.StatusField("compute", "numberDrain") == 0 &&
               ns.StatusField("compute", "slurmIdle") == 3;
      },
      kSlurmToKubernetesTarget + kReadSlack));

  job_id = syncer.SubmitOnAll("sleep 20");
  REQUIRE(WaitUntil([&] { return Running(syncer.Job(job_id)); }));
  CHECK(WaitUntil([&] { return ns.StatusField("compute", "slurmAllocated") == 3; }));

  // Every node runs the job: the victim is the highest ordinal, drained but kept.
  Scale(ns, 2);
  REQUIRE(WaitUntil([&] {
    const tidepool::v1::SlurmNode node = syncer.Node("n-03");
    return node.drain() && node.reason() == "k8s: scale-in";
  }));
  CHECK_FALSE(syncer.Node("n-01").drain());
  CHECK_FALSE(syncer.Node("n-02").drain());
  CHECK(WaitUntil([&] { return !ns.EventNotes("WaitingForJobs").empty(); }));
  CHECK(WaitUntil([&] { return ns.StatusField("compute", "numberDrain") == 1; }));
  CHECK(ns.ConditionReason("compute", "Progressing") == "True/WaitingForJobs");

  // While the job runs, the pod stays; once it ended, the pod goes.
  bool kept_while_running = true;
  const bool deleted = WaitUntil(
      [&] {
        const bool running = Running(syncer.Job(job_id));
        const std::optional<std::string> pod = ns.Pod("n-03");
        if (running && (!pod.has_value() || Terminating(pod))) kept_while_running = false;
        return !pod.has_value();
      },
      absl::Seconds(90));
  INFO(controller.Output());
  REQUIRE(deleted);
  CHECK(kept_while_running);
  CHECK(syncer.Job(job_id).finished());
  CHECK(ns.PodNames() == std::vector<std::string>{"n-01", "n-02"});
  const std::vector<std::string> deletions = ns.EventNotes("SuccessfulDelete");
  REQUIRE(deletions.size() == 1);
  CHECK(absl::StrContains(deletions[0], "n-03"));
  // The node left the NodeSet drained; the controller does not clear that.
  CHECK(syncer.Node("n-03").reason() == "k8s: scale-in");

  // Back to three: the Node gets its pod (and name) back; ready, the drain is cleared.
  Scale(ns, 3);
  REQUIRE(WaitUntil([&] { return ns.Pod("n-03").has_value(); }));
  rapidjson::Document pod = k8s::ParseJsonObject(*ns.Pod("n-03"), "pod").value();
  CHECK(k8s::StringMember(pod["spec"], "nodeName") == nodes[2]);
  absl::SleepFor(absl::Seconds(2));
  CHECK(syncer.Node("n-03").drain());  // not before the pod is ready
  ns.MarkReady("n-03");
  CHECK(WaitUntil([&] { return !syncer.Node("n-03").drain(); }));
  CHECK(WaitUntil([&] { return !ns.EventNotes("Undrained").empty(); }));
  CHECK(WaitUntil([&] { return ns.StatusField("compute", "numberDrain") == 0; }));
}

TEST_CASE("a NodeSet deleted drains its nodes and goes once each pod was deleted idle") {
  absl::StatusOr<SlurmEnv> slurm = tidepool::testing::Slurm();
  INFO(slurm.status().ToString());
  REQUIRE(slurm.ok());
  SlurmSession session(*slurm);
  Syncer& syncer = session.syncer;
  uint32_t& job_id = session.job_id;
  TestNamespace ns;
  for (const char* suffix : {"a", "b", "c"}) ns.CreateNode(suffix);
  Controller controller(ns, syncer.address());
  ns.CreateNodeSet("compute", "n", std::nullopt);
  REQUIRE(WaitUntil([&] { return ns.PodNames() == kSlurmNodes; }));
  ns.MarkAllReady();
  REQUIRE(WaitUntil([&] { return ns.StatusField("compute", "slurmIdle") == 3; }));
  REQUIRE(WaitUntil(
      [&] { return k8s::HasFinalizer(ns.NodeSet("compute"), "tidepool.dev/drain-pods"); }));

  job_id = syncer.SubmitOnAll("sleep 15");
  REQUIRE(WaitUntil([&] { return Running(syncer.Job(job_id)); }));
  const absl::Status deleting = ns.client().Delete(api::NodeSets(), ns.name(), "compute").status();
  INFO(deleting.ToString());
  REQUIRE(deleting.ok());

  // Each node is drained; no pod goes while the job runs; all go once it ended.
  CHECK(WaitUntil([&] {
    return std::all_of(kSlurmNodes.begin(), kSlurmNodes.end(), [&](const std::string& node) {
      return syncer.Node(node).reason() == "k8s: scale-in";
    });
  }));
  bool kept_while_running = true;
  const bool deleted = WaitUntil(
      [&] {
        const bool running = Running(syncer.Job(job_id));
        for (const std::string& name : kSlurmNodes) {
          const std::optional<std::string> pod = ns.Pod(name);
          if (running && (!pod.has_value() || Terminating(pod))) kept_while_running = false;
        }
        return ns.PodNames().empty();
      },
      absl::Seconds(90));
  INFO(controller.Output());
  REQUIRE(deleted);
  CHECK(kept_while_running);
  CHECK(syncer.Job(job_id).finished());
  CHECK(WaitUntil([&] {
    return absl::IsNotFound(ns.client().Get(api::NodeSets(), ns.name(), "compute").status());
  }));
  CHECK(WaitUntil([&] { return !ns.EventNotes("DeletionReleased").empty(); }));
  CHECK_FALSE(ns.EventNotes("DrainingForDeletion").empty());
}

}  // namespace
}  // namespace tidepool::nodeset::testing
