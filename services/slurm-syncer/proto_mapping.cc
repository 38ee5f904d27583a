#include "proto_mapping.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tidepool::syncer {
namespace {

using slurm::rest::NodeState;

void SetTimestamp(absl::Time time, google::protobuf::Timestamp* out) {
  const int64_t seconds = absl::ToUnixSeconds(time);
  out->set_seconds(seconds);
  out->set_nanos(
      static_cast<int32_t>(absl::ToInt64Nanoseconds(time - absl::FromUnixSeconds(seconds))));
}

absl::Status NotNegative(absl::string_view field, int64_t value) {
  if (value >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", value, " is negative"));
}

std::optional<int64_t> PositiveOrUnset(int64_t value) {
  return value > 0 ? std::optional<int64_t>(value) : std::nullopt;
}

// A reservation name as Slurm writes it: no blanks, commas or control characters (a
// comma would ask for several reservations, which a placeholder job never does).
absl::Status ValidReservation(absl::string_view name) {
  constexpr size_t kMaxReservationName = 256;
  if (name.size() > kMaxReservationName) {
    return absl::InvalidArgumentError(
        absl::StrCat("job.reservation: longer than ", kMaxReservationName, " characters"));
  }
  for (char c : name) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c)) ||
        absl::ascii_iscntrl(static_cast<unsigned char>(c)) || c == ',') {
      return absl::InvalidArgumentError(
          absl::StrCat("job.reservation: \"", absl::CHexEscape(name),
                       "\" holds a blank, comma or control character; name one reservation"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<slurm::rest::JobSharing> SharingFromProto(v1::JobSpec::Exclusive exclusive) {
  switch (exclusive) {
    case v1::JobSpec::EXCLUSIVE_UNSPECIFIED:
      return slurm::rest::JobSharing::kUnset;
    case v1::JobSpec::EXCLUSIVE_NONE:
      return slurm::rest::JobSharing::kNone;
    case v1::JobSpec::EXCLUSIVE_USER:
      return slurm::rest::JobSharing::kUser;
    case v1::JobSpec::EXCLUSIVE_OK:
      return slurm::rest::JobSharing::kOk;
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("job.exclusive: ", static_cast<int>(exclusive),
                   " is not a known value (EXCLUSIVE_NONE, EXCLUSIVE_USER or EXCLUSIVE_OK)"));
}

}  // namespace

void ToProto(const slurm::rest::Node& node, v1::SlurmNode* out) {
  out->set_name(node.name);
  // ToString lists base states first ("IDLE+DRAIN"), the order the proto promises.
  for (absl::string_view state : absl::StrSplit(node.state.ToString(), '+', absl::SkipEmpty())) {
    out->add_states(std::string(state));
  }
  out->set_reason(node.reason);
  out->set_reason_set_by_user(node.reason_set_by_user);
  if (node.reason_changed_at.has_value()) {
    SetTimestamp(*node.reason_changed_at, out->mutable_reason_changed_at());
  }
  out->set_comment(node.comment);
  out->set_cpus(node.cpus);
  out->set_alloc_cpus(node.alloc_cpus);
  out->set_real_memory_mb(node.real_memory_mb);
  out->set_alloc_memory_mb(node.alloc_memory_mb);
  out->set_gres(node.gres);
  out->set_gres_used(node.gres_used);
  for (const std::string& f : node.features) out->add_features(f);
  for (const std::string& f : node.active_features) out->add_active_features(f);
  for (const std::string& p : node.partitions) out->add_partitions(p);
  out->set_address(node.address);
  out->set_slurmd_version(node.version);
  out->set_drain(node.state.Has(NodeState::kDrain));
  out->set_drained(out->drain() && !Busy(node));
  out->set_down(node.state.Has(NodeState::kDown));
  out->set_idle(node.state.Has(NodeState::kIdle));
  out->set_reason_owned_by_k8s(IsOwnedReason(node.reason));
}

void ToProto(const slurm::rest::Job& job, v1::SlurmJob* out) {
  out->set_job_id(job.id);
  out->set_name(job.name);
  for (const std::string& s : job.state) out->add_states(s);
  out->set_nodes(job.nodes);
  out->set_partition(job.partition);
  out->set_user(job.user);
  out->set_reason(job.reason);
  if (job.start_time.has_value()) SetTimestamp(*job.start_time, out->mutable_start_time());
  if (job.end_time.has_value()) SetTimestamp(*job.end_time, out->mutable_end_time());
  out->set_time_limit_minutes(job.time_limit_minutes.value_or(0));
  out->set_comment(job.comment);
  out->set_finished(job.Finished());
  out->set_exit_code(job.exit_code.return_code.value_or(0));
  out->set_exit_signal(job.exit_code.signal.value_or(0));
}

DrainRequest FromProto(const v1::UpdateNodeRequest& request) {
  DrainRequest out{.node = request.name(),
                   .reason = request.reason(),
                   .force = request.force(),
                   .if_reason = request.if_reason()};
  switch (request.action()) {
    case v1::UpdateNodeRequest::DRAIN:
      out.action = DrainRequest::Action::kDrain;
      break;
    case v1::UpdateNodeRequest::UNDRAIN:
      out.action = DrainRequest::Action::kUndrain;
      break;
    default:
      out.action = DrainRequest::Action::kUnspecified;
  }
  return out;
}

absl::StatusOr<slurm::rest::JobSubmission> FromProto(const v1::JobSpec& spec) {
  if (!absl::StartsWith(spec.script(), "#!")) {
    return absl::InvalidArgumentError(
        "job.script: required, and must start with an interpreter line (\"#!/bin/sh\")");
  }
  for (auto [field, value] : {std::pair<absl::string_view, int64_t>{"job.tasks", spec.tasks()},
                              {"job.cpus_per_task", spec.cpus_per_task()},
                              {"job.memory_per_node_mb", spec.memory_per_node_mb()},
                              {"job.time_limit_minutes", spec.time_limit_minutes()}}) {
    if (absl::Status s = NotNegative(field, value); !s.ok()) return s;
  }
  if (absl::Status s = ValidReservation(spec.reservation()); !s.ok()) return s;
  absl::StatusOr<slurm::rest::JobSharing> sharing = SharingFromProto(spec.exclusive());
  if (!sharing.ok()) return sharing.status();
  slurm::rest::JobSubmission job;
  job.script = spec.script();
  job.name = spec.name();
  job.partition = spec.partition();
  job.nodes = spec.nodes();
  job.tasks = PositiveOrUnset(spec.tasks());
  job.cpus_per_task = PositiveOrUnset(spec.cpus_per_task());
  job.memory_per_node_mb = PositiveOrUnset(spec.memory_per_node_mb());
  job.tres_per_node = spec.tres_per_node();
  job.time_limit_minutes = PositiveOrUnset(spec.time_limit_minutes());
  job.account = spec.account();
  job.qos = spec.qos();
  job.constraints = spec.constraints();
  job.required_nodes.assign(spec.required_nodes().begin(), spec.required_nodes().end());
  job.comment = spec.comment();
  job.environment.assign(spec.environment().begin(), spec.environment().end());
  job.cwd = spec.cwd();
  job.standard_output = spec.standard_output();
  job.reservation = spec.reservation();
  job.sharing = *sharing;
  job.external = spec.external();
  return job;
}

}  // namespace tidepool::syncer
