// Jobs, submit, partitions, reservations, ping, diag, the replies that only report
// success, and the OpenAPI document: small replies, read from a document tree.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "slurm/rest/json_mapping.h"
#include "slurm/rest/json_mapping_rapidjson.h"
#include "slurm/rest/json_mapping_reader.h"

namespace tidepool::slurm::rest {
namespace {

using json_internal::Mapped;
using json_internal::ObjectReader;
using json_internal::ParseChecked;
using json_internal::ParseDocument;
using json_internal::TypeName;
using json_internal::Value;

absl::Status ReadJob(const Value& v, std::string path, Job* job) {
  ObjectReader r(v, std::move(path));
  int64_t id = 0;
  r.Int("job_id", &id);
  if (id < 0 || id > UINT32_MAX) {
    r.SetError(absl::InvalidArgumentError(absl::StrCat(r.Path("job_id"), ": out of range")));
  }
  job->id = static_cast<JobId>(id);
  r.String("name", &job->name);
  r.Strings("job_state", &job->state);
  r.String("nodes", &job->nodes);
  r.String("partition", &job->partition);
  r.String("user_name", &job->user);
  r.String("state_reason", &job->reason);
  r.OptTime("submit_time", &job->submit_time);
  r.OptTime("start_time", &job->start_time);
  r.OptTime("end_time", &job->end_time);
  r.OptInt("time_limit", &job->time_limit_minutes);
  r.String("comment", &job->comment);
  if (const Value* exit = r.Find("exit_code"); exit != nullptr) {
    if (exit->IsObject()) {
      ObjectReader e(*exit, r.Path("exit_code"));
      e.Strings("status", &job->exit_code.status);
      e.OptInt("return_code", &job->exit_code.return_code);
      if (const Value* signal = e.Object("signal"); signal != nullptr) {
        ObjectReader s(*signal, e.Path("signal"));
        s.OptInt("id", &job->exit_code.signal);
        if (!s.status().ok()) e.SetError(s.status());
      }
      if (!e.status().ok()) r.SetError(e.status());
    } else {
      // Older shapes: a plain number.
      std::optional<int64_t> code;
      r.OptInt("exit_code", &code);
      job->exit_code.return_code = code;
    }
  }
  return r.status();
}

// "123", "123_4", "123_[5-9]", "123+1" (or a plain number): the job record's id is the
// leading number.
absl::Status ReadJobStateEntry(const Value& v, std::string path, JobStateEntry* entry) {
  ObjectReader r(v, std::move(path));
  const Value* id = r.Find("job_id");
  int64_t number = -1;
  if (id == nullptr) {
    r.SetError(absl::InvalidArgumentError(absl::StrCat(r.Path("job_id"), ": missing")));
  } else if (id->IsString()) {
    entry->text.assign(id->GetString(), id->GetStringLength());
    const absl::string_view digits =
        absl::string_view(entry->text).substr(0, entry->text.find_first_of("_+"));
    if (digits.size() > 10 || !absl::SimpleAtoi(digits, &number)) number = -1;
  } else {
    r.Int("job_id", &number);
    entry->text = absl::StrCat(number);
  }
  if (r.status().ok() && (number <= 0 || number > UINT32_MAX)) {
    r.SetError(absl::InvalidArgumentError(
        absl::StrCat(r.Path("job_id"), ": not a job id: \"", entry->text, "\"")));
  }
  entry->id = static_cast<JobId>(std::max<int64_t>(number, 0));
  r.Strings("state", &entry->state);
  return r.status();
}

absl::Status ReadPartition(const Value& v, std::string path, Partition* p) {
  ObjectReader r(v, std::move(path));
  r.String("name", &p->name);
  if (const Value* nodes = r.Object("nodes"); nodes != nullptr) {
    ObjectReader n(*nodes, r.Path("nodes"));
    n.String("configured", &p->nodes);
    n.Int("total", &p->total_nodes);
    if (!n.status().ok()) r.SetError(n.status());
  }
  if (const Value* cpus = r.Object("cpus"); cpus != nullptr) {
    ObjectReader c(*cpus, r.Path("cpus"));
    c.Int("total", &p->total_cpus);
    if (!c.status().ok()) r.SetError(c.status());
  }
  if (const Value* part = r.Object("partition"); part != nullptr) {
    ObjectReader s(*part, r.Path("partition"));
    s.Strings("state", &p->state);
    if (!s.status().ok()) r.SetError(s.status());
  }
  if (r.Find("flags") != nullptr) {
    std::vector<std::string> flags;
    r.Strings("flags", &flags);
    p->is_default = std::find(flags.begin(), flags.end(), "DEFAULT") != flags.end();
  }
  if (const Value* max = r.Object("maximums"); max != nullptr) {
    ObjectReader m(*max, r.Path("maximums"));
    m.OptInt("time", &p->max_time_minutes);
    if (!m.status().ok()) r.SetError(m.status());
  }
  return r.status();
}

absl::Status ReadReservation(const Value& v, std::string path, Reservation* res) {
  ObjectReader r(v, std::move(path));
  r.String("name", &res->name);
  r.String("node_list", &res->node_list);
  r.Int("node_count", &res->node_count);
  r.OptTime("start_time", &res->start_time);
  r.OptTime("end_time", &res->end_time);
  r.Strings("flags", &res->flags);
  r.String("users", &res->users);
  r.String("partition", &res->partition);
  return r.status();
}

template <typename T, typename ReadFn>
absl::StatusOr<std::vector<T>> ReadList(const Value& doc, const char* key, const CallContext& call,
                                        ReadFn read) {
  ObjectReader r(doc, "");
  const Value* items = r.Array(key, /*required=*/true);
  if (items == nullptr) return Mapped(call, r.status());
  std::vector<T> out;
  out.reserve(items->Size());
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    const Value& item = (*items)[i];
    const std::string path = absl::StrCat(key, "[", i, "]");
    if (!item.IsObject()) {
      return MalformedReply(call, absl::StrCat(path, ": expected an object, got ", TypeName(item)));
    }
    T value;
    if (absl::Status s = read(item, path, &value); !s.ok()) return Mapped(call, s);
    out.push_back(std::move(value));
  }
  return out;
}

}  // namespace

absl::StatusOr<JobList> ParseJobsReply(absl::string_view body, const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  absl::StatusOr<std::vector<Job>> jobs = ReadList<Job>(doc, "jobs", call, ReadJob);
  if (!jobs.ok()) return jobs.status();
  JobList list;
  list.jobs = *std::move(jobs);
  ObjectReader r(doc, "");
  std::optional<absl::Time> last_update;
  r.OptTime("last_update", &last_update);
  if (!r.status().ok()) return Mapped(call, r.status());
  if (last_update.has_value()) list.last_update = *last_update;
  return list;
}

absl::StatusOr<std::vector<JobStateEntry>> ParseJobStatesReply(absl::string_view body,
                                                               const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  return ReadList<JobStateEntry>(doc, "jobs", call, ReadJobStateEntry);
}

absl::StatusOr<SubmitResult> ParseSubmitReply(absl::string_view body, const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  ObjectReader r(doc, "");
  SubmitResult result;
  int64_t id = -1;
  r.Int("job_id", &id);
  r.String("step_id", &result.step_id);
  if (const Value* warnings = r.Array("warnings", false); warnings != nullptr) {
    for (const Value& w : warnings->GetArray()) {
      if (w.IsObject() && w.HasMember("description") && w["description"].IsString()) {
        result.warnings.emplace_back(w["description"].GetString());
      }
    }
  }
  if (!r.status().ok()) return Mapped(call, r.status());
  if (id <= 0 || id > UINT32_MAX) return MalformedReply(call, "job_id: missing or out of range");
  result.job_id = static_cast<JobId>(id);
  return result;
}

absl::StatusOr<std::vector<Partition>> ParsePartitionsReply(absl::string_view body,
                                                            const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  return ReadList<Partition>(doc, "partitions", call, ReadPartition);
}

absl::StatusOr<std::vector<Reservation>> ParseReservationsReply(absl::string_view body,
                                                                const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  return ReadList<Reservation>(doc, "reservations", call, ReadReservation);
}

absl::StatusOr<std::vector<PingResult>> ParsePingReply(absl::string_view body,
                                                       const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  return ReadList<PingResult>(doc, "pings", call,
                              [](const Value& v, std::string path, PingResult* p) {
                                ObjectReader r(v, std::move(path));
                                r.String("hostname", &p->hostname);
                                r.Bool("responding", &p->responding);
                                r.Bool("primary", &p->primary);
                                r.Int("latency", &p->latency_us);
                                // Older replies: "pinged": "UP".
                                std::string pinged;
                                r.String("pinged", &pinged);
                                if (pinged == "UP") p->responding = true;
                                return r.status();
                              });
}

absl::StatusOr<DiagInfo> ParseDiagReply(absl::string_view body, const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  ObjectReader top(doc, "");
  const Value* stats = top.Object("statistics");
  if (stats == nullptr) {
    return Mapped(
        call, top.status().ok() ? absl::InvalidArgumentError("statistics: missing") : top.status());
  }
  ObjectReader r(*stats, "statistics");
  DiagInfo d;
  r.OptTime("req_time", &d.req_time);
  r.Int("server_thread_count", &d.server_thread_count);
  r.Int("agent_queue_size", &d.agent_queue_size);
  r.Int("jobs_submitted", &d.jobs_submitted);
  r.Int("jobs_started", &d.jobs_started);
  r.Int("jobs_completed", &d.jobs_completed);
  r.Int("jobs_canceled", &d.jobs_canceled);
  r.Int("jobs_failed", &d.jobs_failed);
  r.Int("jobs_pending", &d.jobs_pending);
  r.Int("jobs_running", &d.jobs_running);
  r.Int("schedule_cycle_last", &d.schedule_cycle_last_us);
  r.Int("schedule_cycle_max", &d.schedule_cycle_max_us);
  r.Int("schedule_cycle_mean", &d.schedule_cycle_mean_us);
  r.Int("schedule_cycle_per_minute", &d.schedule_cycles_per_minute);
  r.Int("schedule_queue_length", &d.schedule_queue_length);
  r.Bool("bf_active", &d.backfill_active);
  r.Int("bf_cycle_last", &d.backfill_cycle_last_us);
  r.Int("bf_cycle_mean", &d.backfill_cycle_mean_us);
  r.Int("bf_queue_len", &d.backfill_queue_length);
  r.Int("bf_backfilled_jobs", &d.backfilled_jobs);
  r.Int("dbd_agent_queue_size", &d.dbd_agent_queue_size);
  if (!r.status().ok()) return Mapped(call, r.status());
  return d;
}

absl::Status ParseEmptyReply(absl::string_view body, const CallContext& call) {
  rapidjson::Document doc;
  return ParseChecked(body, call, &doc);
}

absl::Status ParseSignalReply(absl::string_view body, const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  ObjectReader r(doc, "");
  const Value* status = r.Array("status", false);
  if (!r.status().ok()) return Mapped(call, r.status());
  if (status == nullptr) return absl::OkStatus();
  std::vector<SlurmError> errors;
  for (rapidjson::SizeType i = 0; i < status->Size(); ++i) {
    const Value& item = (*status)[i];
    if (!item.IsObject()) continue;
    ObjectReader s(item, absl::StrCat("status[", i, "]"));
    const Value* error = s.Object("error");
    if (error == nullptr) {
      if (!s.status().ok()) return Mapped(call, s.status());
      continue;
    }
    ObjectReader e(*error, s.Path("error"));
    SlurmError err;
    e.Int("code", &err.error_number);
    e.String("string", &err.error);
    e.String("message", &err.description);
    std::string step;
    s.String("step_id", &step);
    if (!e.status().ok()) return Mapped(call, e.status());
    if (err.error_number != 0) {
      err.source = absl::StrCat("job ", step);
      errors.push_back(std::move(err));
    }
  }
  if (!errors.empty()) return SlurmErrorStatus(call, errors);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> ParseOpenApiVersions(absl::string_view body,
                                                              const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseDocument(body, call, &doc); !s.ok()) return s;
  ObjectReader r(doc, "");
  const Value* paths = r.Object("paths");
  if (paths == nullptr) {
    return Mapped(call,
                  r.status().ok() ? absl::InvalidArgumentError("paths: missing") : r.status());
  }
  std::vector<std::pair<int, std::string>> found;
  for (auto it = paths->MemberBegin(); it != paths->MemberEnd(); ++it) {
    absl::string_view path(it->name.GetString(), it->name.GetStringLength());
    if (!absl::ConsumePrefix(&path, "/slurm/v0.0.")) continue;
    const size_t slash = path.find('/');
    if (slash == absl::string_view::npos) continue;
    int minor = 0;
    if (!absl::SimpleAtoi(path.substr(0, slash), &minor)) continue;
    std::string version = absl::StrCat("v0.0.", minor);
    if (std::find_if(found.begin(), found.end(), [&](const auto& f) { return f.first == minor; }) ==
        found.end()) {
      found.emplace_back(minor, std::move(version));
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> versions;
  for (auto& [minor, version] : found) versions.push_back(std::move(version));
  return versions;
}

}  // namespace tidepool::slurm::rest
