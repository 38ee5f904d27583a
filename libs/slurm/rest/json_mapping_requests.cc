// Request bodies: node update, job submit, job update.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "slurm/rest/json_mapping.h"
#include "slurm/rest/json_mapping_rapidjson.h"

namespace tidepool::slurm::rest {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteString(Writer& w, const char* key, absl::string_view value) {
  w.Key(key);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void WriteStrings(Writer& w, const char* key, const std::vector<std::string>& values) {
  w.Key(key);
  w.StartArray();
  for (const std::string& v : values)
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  w.EndArray();
}

void WriteNumber(Writer& w, const char* key, int64_t value) {
  w.Key(key);
  w.StartObject();
  w.Key("set");
  w.Bool(true);
  w.Key("infinite");
  w.Bool(false);
  w.Key("number");
  w.Int64(value);
  w.EndObject();
}

}  // namespace

absl::string_view NodeUpdateStateName(NodeUpdate::State state) {
  switch (state) {
    case NodeUpdate::State::kNone:
      return "";
    case NodeUpdate::State::kDrain:
      return "DRAIN";
    case NodeUpdate::State::kUndrain:
      return "UNDRAIN";
    case NodeUpdate::State::kResume:
      return "RESUME";
    case NodeUpdate::State::kDown:
      return "DOWN";
    case NodeUpdate::State::kIdle:
      return "IDLE";
  }
  return "";
}

std::string NodeUpdateBody(const NodeUpdate& update) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  if (update.state != NodeUpdate::State::kNone) {
    w.Key("state");
    w.StartArray();
    const absl::string_view state = NodeUpdateStateName(update.state);
    w.String(state.data(), static_cast<rapidjson::SizeType>(state.size()));
    w.EndArray();
  }
  if (!update.reason.empty() || update.state != NodeUpdate::State::kNone) {
    WriteString(w, "reason", update.reason);
  }
  if (update.comment.has_value()) WriteString(w, "comment", *update.comment);
  // Slurm ignores an empty list; [""] clears. Clearing the available features clears the
  // active ones too (they must stay a subset), unless those are given.
  const std::vector<std::string> kClear = {""};
  if (update.features.has_value()) {
    WriteStrings(w, "features", update.features->empty() ? kClear : *update.features);
  }
  if (update.active_features.has_value()) {
    WriteStrings(w, "features_act",
                 update.active_features->empty() ? kClear : *update.active_features);
  } else if (update.features.has_value() && update.features->empty()) {
    WriteStrings(w, "features_act", kClear);
  }
  w.EndObject();
  return buffer.GetString();
}

namespace {

// job_desc "shared" flag names (Slurm's JOB_SHARED_* values).
absl::string_view JobSharingName(JobSharing sharing) {
  switch (sharing) {
    case JobSharing::kNone:
      return "none";
    case JobSharing::kUser:
      return "user";
    case JobSharing::kOk:
      return "oversubscribe";
    case JobSharing::kUnset:
      break;
  }
  return "";
}

}  // namespace

std::string JobSubmitBody(const JobSubmission& job) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("job");
  w.StartObject();
  if (job.external) {
    WriteStrings(w, "flags", {"EXTERNAL_JOB"});
  } else {
    WriteString(w, "script", job.script);
  }
  if (!job.name.empty()) WriteString(w, "name", job.name);
  if (!job.partition.empty()) WriteString(w, "partition", job.partition);
  if (!job.nodes.empty()) WriteString(w, "nodes", job.nodes);
  if (job.tasks.has_value()) {
    w.Key("tasks");
    w.Int64(*job.tasks);
  }
  if (job.cpus_per_task.has_value()) {
    w.Key("cpus_per_task");
    w.Int64(*job.cpus_per_task);
  }
  if (job.memory_per_node_mb.has_value()) {
    WriteNumber(w, "memory_per_node", *job.memory_per_node_mb);
  }
  if (!job.tres_per_node.empty()) WriteString(w, "tres_per_node", job.tres_per_node);
  if (job.time_limit_minutes.has_value()) WriteNumber(w, "time_limit", *job.time_limit_minutes);
  if (!job.account.empty()) WriteString(w, "account", job.account);
  if (!job.qos.empty()) WriteString(w, "qos", job.qos);
  if (!job.constraints.empty()) WriteString(w, "constraints", job.constraints);
  if (!job.required_nodes.empty()) WriteStrings(w, "required_nodes", job.required_nodes);
  if (!job.comment.empty()) WriteString(w, "comment", job.comment);
  WriteStrings(
      w, "environment",
      job.environment.empty() ? std::vector<std::string>{"PATH=/bin:/usr/bin"} : job.environment);
  WriteString(w, "current_working_directory", job.cwd.empty() ? "/tmp" : job.cwd);
  if (!job.standard_output.empty()) WriteString(w, "standard_output", job.standard_output);
  if (!job.reservation.empty()) WriteString(w, "reservation", job.reservation);
  // v0.0.42 to v0.0.45 all take job_desc "shared" as a flag list (v0.0.45 also has
  // "exclusive"/"oversubscribe" strings, which the older versions lack).
  if (job.sharing != JobSharing::kUnset) {
    WriteStrings(w, "shared", {std::string(JobSharingName(job.sharing))});
  }
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

std::string JobUpdateBody(const JobUpdate& update) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  if (update.time_limit_minutes.has_value()) {
    WriteNumber(w, "time_limit", *update.time_limit_minutes);
  }
  if (update.comment.has_value()) WriteString(w, "comment", *update.comment);
  w.EndObject();
  return buffer.GetString();
}

}  // namespace tidepool::slurm::rest
