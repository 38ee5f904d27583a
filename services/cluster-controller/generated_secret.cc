#include "generated_secret.h"

#include "k8s/resource.h"

namespace tidepool::cluster {

absl::StatusOr<GeneratedSecretResult> EnsureGeneratedSecret(const SecretCalls& calls,
                                                            const GeneratedSecretSpec& secret) {
  absl::StatusOr<std::string> existing = calls.get();
  if (existing.ok()) return GeneratedSecretResult{.verdict = secret.check(*existing)};
  if (!absl::IsNotFound(existing.status())) return existing.status();
  absl::StatusOr<std::string> body = secret.make_body();
  if (!body.ok()) return body.status();
  absl::Status created = calls.create(*body);
  if (absl::IsAlreadyExists(created)) {
    existing = calls.get();
    if (!existing.ok()) return existing.status();
    return GeneratedSecretResult{.verdict = secret.check(*existing)};
  }
  if (!created.ok()) return created;
  return GeneratedSecretResult{.verdict = {.usable = true}, .created = true};
}

absl::StatusOr<GeneratedSecretResult> EnsureGeneratedSecret(k8s::Client& client,
                                                            const std::string& field_manager,
                                                            const std::string& ns,
                                                            const std::string& name,
                                                            const GeneratedSecretSpec& secret) {
  return EnsureGeneratedSecret(
      SecretCalls{.get = [&] { return client.Get(k8s::Secrets(), ns, name); },
                  .create =
                      [&](const std::string& body) {
                        return client
                            .Create(k8s::Secrets(), ns, body, {.field_manager = field_manager})
                            .status();
                      }},
      secret);
}

}  // namespace tidepool::cluster
