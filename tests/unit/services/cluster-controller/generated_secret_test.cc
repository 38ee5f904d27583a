#include "generated_secret.h"

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

namespace tidepool::cluster {
namespace {

// The API server as the helper sees it: one Secret or none, and what creating one does.
struct FakeSecrets {
  std::vector<absl::StatusOr<std::string>> gets;  // answered in order, the last repeated
  absl::Status create_result = absl::OkStatus();
  int get_calls = 0;
  std::vector<std::string> created;

  SecretCalls Calls() {
    return {.get = [this]() -> absl::StatusOr<std::string> {
              const size_t i = std::min<size_t>(get_calls++, gets.size() - 1);
              return gets[i];
            },
            .create =
                [this](const std::string& body) {
                  created.push_back(body);
                  return create_result;
                }};
  }
};

// Counts the keys made and the Secrets checked; accepts only "ours".
struct Spec {
  int bodies_made = 0;
  std::vector<std::string> checked;

  GeneratedSecretSpec Get() {
    return {.make_body = [this]() -> absl::StatusOr<std::string> {
              ++bodies_made;
              return "new-body";
            },
            .check =
                [this](absl::string_view json) {
                  checked.emplace_back(json);
                  return json == "ours" ? SecretVerdict{.usable = true}
                                        : SecretVerdict{.problem = "not ours"};
                }};
  }
};

TEST_CASE("an absent Secret is created from a key made just then") {
  FakeSecrets server{.gets = {absl::NotFoundError("no")}};
  Spec spec;
  absl::StatusOr<GeneratedSecretResult> result = EnsureGeneratedSecret(server.Calls(), spec.Get());
  REQUIRE(result.ok());
  CHECK(result->created);
  CHECK(result->verdict.usable);
  CHECK(server.created == std::vector<std::string>{"new-body"});
  CHECK(spec.bodies_made == 1);
  CHECK(spec.checked.empty());
}

TEST_CASE("an existing Secret is checked, never rewritten, and no key is made for it") {
  Spec spec;
  SECTION("usable") {
    FakeSecrets server{.gets = {std::string("ours")}};
    absl::StatusOr<GeneratedSecretResult> result =
        EnsureGeneratedSecret(server.Calls(), spec.Get());
    REQUIRE(result.ok());
    CHECK(result->verdict.usable);
    CHECK_FALSE(result->created);
    CHECK(server.created.empty());
  }
  SECTION("unusable: reported as the check says") {
    FakeSecrets server{.gets = {std::string("someone else's")}};
    absl::StatusOr<GeneratedSecretResult> result =
        EnsureGeneratedSecret(server.Calls(), spec.Get());
    REQUIRE(result.ok());
    CHECK_FALSE(result->verdict.usable);
    CHECK(result->verdict.problem == "not ours");
    CHECK(server.created.empty());
  }
  CHECK(spec.bodies_made == 0);
}

TEST_CASE("a Secret another writer created meanwhile is read and checked, not overwritten") {
  FakeSecrets server{.gets = {absl::NotFoundError("no"), std::string("someone else's")},
                     .create_result = absl::AlreadyExistsError("exists")};
  Spec spec;
  absl::StatusOr<GeneratedSecretResult> result = EnsureGeneratedSecret(server.Calls(), spec.Get());
  REQUIRE(result.ok());
  CHECK_FALSE(result->created);
  CHECK_FALSE(result->verdict.usable);
  CHECK(spec.checked == std::vector<std::string>{"someone else's"});
  CHECK(server.get_calls == 2);
  CHECK(server.created.size() == 1);  // the one attempt, refused
}

TEST_CASE("API server and key generation failures are returned, to be retried") {
  Spec spec;
  SECTION("reading") {
    FakeSecrets server{.gets = {absl::UnavailableError("down")}};
    CHECK(absl::IsUnavailable(EnsureGeneratedSecret(server.Calls(), spec.Get()).status()));
    CHECK(server.created.empty());
  }
  SECTION("creating") {
    FakeSecrets server{.gets = {absl::NotFoundError("no")},
                       .create_result = absl::PermissionDeniedError("rbac")};
    CHECK(absl::IsPermissionDenied(EnsureGeneratedSecret(server.Calls(), spec.Get()).status()));
  }
  SECTION("reading back after AlreadyExists") {
    FakeSecrets server{.gets = {absl::NotFoundError("no"), absl::UnavailableError("down")},
                       .create_result = absl::AlreadyExistsError("exists")};
    CHECK(absl::IsUnavailable(EnsureGeneratedSecret(server.Calls(), spec.Get()).status()));
  }
  SECTION("making the key") {
    FakeSecrets server{.gets = {absl::NotFoundError("no")}};
    GeneratedSecretSpec failing = spec.Get();
    failing.make_body = []() -> absl::StatusOr<std::string> {
      return absl::InternalError("no entropy");
    };
    CHECK(absl::IsInternal(EnsureGeneratedSecret(server.Calls(), failing).status()));
    CHECK(server.created.empty());
  }
}

}  // namespace
}  // namespace tidepool::cluster
