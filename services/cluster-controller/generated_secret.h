#pragma once

// A Secret the controller generates once and never overwrites (the auth keys, the managed
// database's credentials, the login host key): read first, and checked when it is there;
// created only when absent, with the key made just before the write; after AlreadyExists
// (a former leader made it meanwhile, and its key may already be in use) the one there is
// read and checked instead. What is generated and what makes an existing one usable is the
// caller's; a Secret that cannot be used is reported, never replaced: a person decides.

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "auth_builders.h"
#include "k8s/client.h"

namespace tidepool::cluster {

struct GeneratedSecretSpec {
  // The create body with a new key; called only when the Secret is about to be created,
  // so nothing is generated that is not written.
  std::function<absl::StatusOr<std::string>()> make_body;
  // Whether an existing Secret (an earlier sync's, a former leader's or someone else's)
  // can be used; its problem names the Secret, never its content.
  std::function<SecretVerdict(absl::string_view secret_json)> check;
};

struct GeneratedSecretResult {
  SecretVerdict verdict;
  bool created = false;  // this call wrote it (worth a log line or an event)
};

// ns/name as above; API server failures are returned to be retried.
absl::StatusOr<GeneratedSecretResult> EnsureGeneratedSecret(k8s::Client& client,
                                                            const std::string& field_manager,
                                                            const std::string& ns,
                                                            const std::string& name,
                                                            const GeneratedSecretSpec& secret);

// The two calls the above makes, apart so its decisions are tested without a server.
struct SecretCalls {
  std::function<absl::StatusOr<std::string>()> get;
  std::function<absl::Status(const std::string& body)> create;
};
absl::StatusOr<GeneratedSecretResult> EnsureGeneratedSecret(const SecretCalls& calls,
                                                            const GeneratedSecretSpec& secret);

}  // namespace tidepool::cluster
