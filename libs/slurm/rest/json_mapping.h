#pragma once

// The one place where Slurm's REST JSON becomes the types of model.h and back.
//
// Every Parse* function takes a reply body and its call (for messages), fails with the
// reply's errors[] if it has any (slurmrestd reports errors with HTTP 200 too), and
// fails with an Internal error naming the path ("nodes[3].cpus: expected a number, got
// a string") for JSON it does not expect; it never crashes on input. Fields it does not
// know are ignored, so newer data_parser versions map too.
//
// Numbers may come as plain numbers or as {"set":…,"infinite":…,"number":…}; both are
// read. Unset or infinite numbers map to nullopt (or 0 for non-optional counts), and
// times of 0 to nullopt.
//
// This header is the facade; the mapping lives in json_mapping_reader.cc (what the readers
// share, ErrorsInBody), json_mapping_nodes.cc (the streamed nodes reply),
// json_mapping_replies.cc (every other reply) and json_mapping_requests.cc (bodies).

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "slurm/rest/errors.h"
#include "slurm/rest/model.h"

namespace tidepool::slurm::rest {

// Replies of GET nodes/ and node/{name}. Streamed (no document tree): a 10,000-node
// reply is large.
absl::StatusOr<NodeList> ParseNodesReply(absl::string_view body, const CallContext& call);
// The same, parsing in place in `body` (no copy of a large reply).
absl::StatusOr<NodeList> ParseNodesReply(std::string&& body, const CallContext& call);
absl::StatusOr<JobList> ParseJobsReply(absl::string_view body, const CallContext& call);
// GET jobs/state/.
absl::StatusOr<std::vector<JobStateEntry>> ParseJobStatesReply(absl::string_view body,
                                                               const CallContext& call);
absl::StatusOr<SubmitResult> ParseSubmitReply(absl::string_view body, const CallContext& call);
absl::StatusOr<std::vector<Partition>> ParsePartitionsReply(absl::string_view body,
                                                            const CallContext& call);
absl::StatusOr<std::vector<Reservation>> ParseReservationsReply(absl::string_view body,
                                                                const CallContext& call);
absl::StatusOr<std::vector<PingResult>> ParsePingReply(absl::string_view body,
                                                       const CallContext& call);
absl::StatusOr<DiagInfo> ParseDiagReply(absl::string_view body, const CallContext& call);
// A reply that only reports success: node update/delete, job update, reconfigure.
absl::Status ParseEmptyReply(absl::string_view body, const CallContext& call);
// DELETE job/{id}: errors[] and also status[].error (code ≠ 0) per signalled job.
absl::Status ParseSignalReply(absl::string_view body, const CallContext& call);

// The errors[] of any reply body that is JSON (empty for other bodies).
std::vector<SlurmError> ErrorsInBody(absl::string_view body);

// GET /openapi/v3: the data_parser versions served under /slurm/, oldest first
// ("v0.0.40", …, "v0.0.42").
absl::StatusOr<std::vector<std::string>> ParseOpenApiVersions(absl::string_view body,
                                                              const CallContext& call);

// Request bodies.
std::string NodeUpdateBody(const NodeUpdate& update);
std::string JobSubmitBody(const JobSubmission& job);
std::string JobUpdateBody(const JobUpdate& update);

// "DRAIN" for NodeUpdate::State::kDrain, … ("" for kNone).
absl::string_view NodeUpdateStateName(NodeUpdate::State state);

}  // namespace tidepool::slurm::rest
