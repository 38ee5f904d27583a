#pragma once

// A namespace where pods can be created in the test API server, which runs without
// kube-controller-manager: nobody else makes the "default" ServiceAccount there, and
// the ServiceAccount admission plugin refuses pods until it exists.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "k8s/client.h"
#include "k8s/resource.h"

namespace tidepool::testing {

inline absl::Status EnsurePodNamespace(k8s::Client& client, const std::string& ns) {
  const absl::Status created =
      client
          .Create(k8s::Namespaces(), "",
                  absl::StrCat(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")", ns,
                               R"("}})"))
          .status();
  if (!created.ok() && !absl::IsAlreadyExists(created)) return created;
  const absl::Status account =
      client
          .Create(k8s::ResourceType{"", "v1", "serviceaccounts", true}, ns,
                  R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}})")
          .status();
  if (!account.ok() && !absl::IsAlreadyExists(account)) return account;
  return absl::OkStatus();
}

}  // namespace tidepool::testing
