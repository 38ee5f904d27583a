#include "node_registrar.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "k8s/errors.h"
#include "k8s/resource.h"
#include "node_objects.h"

namespace tidepool::node_agent {
namespace {

constexpr char kFieldManager[] = "tidepool-node-agent";
constexpr int kConflictRetries = 5;

absl::Status EnsureLeaseNamespace(k8s::Client& client) {
  const std::string ns =
      absl::StrCat(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")",
                   kNodeLeaseNamespace, R"("}})");
  absl::StatusOr<std::string> created = client.Create(k8s::Namespaces(), "", ns);
  if (created.ok() || absl::IsAlreadyExists(created.status())) return absl::OkStatus();
  return created.status();
}

}  // namespace

NodeRegistrar::NodeRegistrar(k8s::Client& client, std::vector<SimNode> nodes,
                             NodeTemplate node_template, AgentTimings timings, common::Clock* clock)
    : client_(client),
      nodes_(std::move(nodes)),
      template_(std::move(node_template)),
      timings_(timings),
      clock_(clock) {}

absl::Status NodeRegistrar::RegisterAll() {
  // The API server makes kube-node-lease itself; a stripped-down one may not.
  if (absl::Status ns = EnsureLeaseNamespace(client_); !ns.ok()) return ns;
  for (const SimNode& node : nodes_) {
    if (absl::Status registered = Register(node); !registered.ok()) {
      return absl::Status(registered.code(),
                          absl::StrCat("Node ", node.name, ": ", registered.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status NodeRegistrar::Register(const SimNode& node) {
  if (absl::Status spec = EnsureSpec(node); !spec.ok()) return spec;
  if (absl::Status status = PostReadyStatus(node); !status.ok()) return status;
  // Again, now that the Node is Ready: its not-ready taint goes.
  if (absl::Status spec = EnsureSpec(node); !spec.ok()) return spec;
  if (absl::Status lease = RenewLease(node); !lease.ok()) return lease;
  common::LogInfo("node_registered", {{"node", node.name}, {"address", node.address}});
  return absl::OkStatus();
}

absl::Status NodeRegistrar::EnsureSpec(const SimNode& node) {
  const k8s::WriteOptions options{.field_manager = kFieldManager};
  for (int attempt = 0; attempt < kConflictRetries; ++attempt) {
    absl::StatusOr<std::string> existing = client_.Get(k8s::Nodes(), "", node.name);
    if (absl::IsNotFound(existing.status())) {
      absl::StatusOr<std::string> created =
          client_.Create(k8s::Nodes(), "", NewNodeJson(node, template_), options);
      if (absl::IsAlreadyExists(created.status())) continue;  // raced with another writer
      return created.status();
    }
    if (!existing.ok()) return existing.status();
    absl::StatusOr<std::optional<std::string>> updated =
        NodeWithAgentSpec(*existing, node, template_);
    if (!updated.ok()) return updated.status();
    if (!updated->has_value()) return absl::OkStatus();
    absl::StatusOr<std::string> written =
        client_.Update(k8s::Nodes(), "", node.name, **updated, options);
    if (!k8s::IsConflict(written.status())) return written.status();
  }
  return absl::AbortedError("conflicting updates, retries exhausted");
}

absl::Status NodeRegistrar::PostReadyStatus(const SimNode& node) {
  const k8s::WriteOptions options{.field_manager = kFieldManager};
  for (int attempt = 0; attempt < kConflictRetries; ++attempt) {
    absl::StatusOr<std::string> existing = client_.Get(k8s::Nodes(), "", node.name);
    if (!existing.ok()) return existing.status();
    absl::StatusOr<std::string> with_status =
        NodeWithReadyStatus(*existing, node, template_, clock_->Now());
    if (!with_status.ok()) return with_status.status();
    absl::StatusOr<std::string> written =
        client_.UpdateStatus(k8s::Nodes(), "", node.name, *with_status, options);
    if (!k8s::IsConflict(written.status())) return written.status();
  }
  return absl::AbortedError("conflicting status updates, retries exhausted");
}

absl::Status NodeRegistrar::RenewLease(const SimNode& node) {
  const k8s::WriteOptions options{.field_manager = kFieldManager};
  absl::StatusOr<std::string> renewed = client_.MergePatch(
      k8s::Leases(), kNodeLeaseNamespace, node.name, LeaseRenewPatch(clock_->Now()), options);
  if (!absl::IsNotFound(renewed.status())) return renewed.status();
  absl::StatusOr<std::string> owner = client_.Get(k8s::Nodes(), "", node.name);
  if (!owner.ok()) return owner.status();
  absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(*owner);
  if (!meta.ok()) return meta.status();
  absl::StatusOr<std::string> created =
      client_.Create(k8s::Leases(), kNodeLeaseNamespace,
                     NewNodeLeaseJson(node.name, meta->uid, clock_->Now()), options);
  return absl::IsAlreadyExists(created.status()) ? absl::OkStatus() : created.status();
}

void NodeRegistrar::RenewAllLeases() {
  for (const SimNode& node : nodes_) {
    if (absl::Status renewed = RenewLease(node); !renewed.ok()) {
      common::LogWarn("lease_renew_failed", {{"node", node.name}, {"error", renewed}});
    }
  }
}

void NodeRegistrar::PostAllHeartbeats() {
  for (const SimNode& node : nodes_) {
    absl::Status posted = PostReadyStatus(node);
    // A Node deleted under the agent is registered again, as kubelet does.
    if (absl::IsNotFound(posted)) posted = Register(node);
    if (!posted.ok()) common::LogWarn("heartbeat_failed", {{"node", node.name}, {"error", posted}});
  }
}

void NodeRegistrar::Start() {
  lease_worker_ = std::make_unique<common::PeriodicWorker>(timings_.lease_interval,
                                                           [this] { RenewAllLeases(); });
  heartbeat_worker_ = std::make_unique<common::PeriodicWorker>(timings_.heartbeat_interval,
                                                               [this] { PostAllHeartbeats(); });
}

void NodeRegistrar::Stop() {
  if (lease_worker_) lease_worker_->Stop();
  if (heartbeat_worker_) heartbeat_worker_->Stop();
}

void NodeRegistrar::DeleteAll() {
  for (const SimNode& node : nodes_) {
    // Explicitly: no garbage collector runs here to follow the Lease's ownerReference.
    (void)client_.Delete(k8s::Leases(), kNodeLeaseNamespace, node.name);
    absl::StatusOr<std::string> deleted = client_.Delete(k8s::Nodes(), "", node.name);
    if (!deleted.ok() && !absl::IsNotFound(deleted.status())) {
      common::LogWarn("node_delete_failed", {{"node", node.name}, {"error", deleted.status()}});
    } else {
      common::LogInfo("node_deleted", {{"node", node.name}});
    }
  }
}

}  // namespace tidepool::node_agent
