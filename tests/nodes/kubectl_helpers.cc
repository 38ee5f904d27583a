#include "nodes/kubectl_helpers.h"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "support/eventually.h"

namespace tidepool::testing {

constexpr char kRepository[] = "localhost/tidepool/";

KubernetesEnv RequireKubernetes() {
  absl::StatusOr<KubernetesEnv> env = Kubernetes();
  INFO(env.status().ToString());
  REQUIRE(env.ok());
  return *std::move(env);
}

std::string MustKubectl(const KubernetesEnv& env, const std::vector<std::string>& args,
                        absl::Duration timeout) {
  absl::StatusOr<CommandResult> result = Kubectl(env, args, timeout);
  INFO("kubectl " << absl::StrJoin(args, " "));
  REQUIRE(result.ok());
  INFO(result->output);
  REQUIRE(result->exit_code == 0);
  return result->output;
}

std::optional<std::string> TryKubectl(const KubernetesEnv& env,
                                      const std::vector<std::string>& args) {
  absl::StatusOr<CommandResult> result = Kubectl(env, args, absl::Seconds(30));
  if (!result.ok() || result->exit_code != 0) return std::nullopt;
  return result->output;
}

void MustRun(const std::vector<std::string>& argv) {
  absl::StatusOr<CommandResult> result = RunCommand(argv, absl::Seconds(30));
  INFO(absl::StrJoin(argv, " "));
  REQUIRE(result.ok());
  INFO(result->output);
  REQUIRE(result->exit_code == 0);
}

void Apply(const KubernetesEnv& env, const std::string& manifest) {
  const std::string file = absl::StrCat(TestenvRunDir(), "/nodes-test-", getpid(), ".yaml");
  FILE* out = fopen(file.c_str(), "w");
  REQUIRE(out != nullptr);
  fputs(manifest.c_str(), out);
  fclose(out);
  MustKubectl(env, {"apply", "-f", file});
  unlink(file.c_str());
}

void EnsureNamespace(const KubernetesEnv& env, const std::string& ns) {
  Apply(env, absl::StrCat("apiVersion: v1\nkind: Namespace\nmetadata: {name: ", ns, "}\n"));
  // The controller-manager creates the default ServiceAccount a moment later.
  REQUIRE(PollUntil(
      [&] {
        return TryKubectl(env, {"-n", ns, "get", "sa", "default"}).has_value();
      },
      absl::Seconds(30), absl::Milliseconds(250)));
}

std::vector<std::string> ProjectImages(const KubernetesEnv& env) {
  const std::string names =
      MustKubectl(env, {"get", "nodes", "-l", "tidepool.dev/testenv-node=true", "-o",
                        "jsonpath={range .items[*].status.images[*]}{.names[*]}{\"\\n\"}{end}"});
  std::set<std::string> images;
  for (absl::string_view line : absl::StrSplit(names, absl::ByAnyChar("\n "), absl::SkipEmpty())) {
    if (absl::StartsWith(line, kRepository) && !absl::StrContains(line, "/pause:")) {
      images.insert(std::string(line));
    }
  }
  return {images.begin(), images.end()};
}

std::vector<std::string> SlurmTags(const KubernetesEnv& env, SlurmVersions which) {
  constexpr absl::string_view kSlurmctld = "localhost/tidepool/slurmctld:";
  std::vector<std::string> tags;
  for (const std::string& image : ProjectImages(env)) {
    if (absl::StartsWith(image, kSlurmctld)) {
      tags.push_back(std::string(absl::StripPrefix(image, kSlurmctld)));
    }
  }
  // Versions are "YY.MM": their text sorts as they do.
  std::sort(tags.begin(), tags.end());
  const char* all = std::getenv("TIDEPOOL_NODES_ALL_SLURM");
  const bool every = all != nullptr && std::string(all) == "1";
  if (which == SlurmVersions::kNewest && !every && tags.size() > 1) {
    tags.erase(tags.begin(), tags.end() - 1);
  }
  return tags;
}

std::string SlurmTagNamespace(const std::string& prefix, const std::string& tag) {
  return absl::StrCat(prefix, "-", absl::StrReplaceAll(tag, {{".", "-"}}));
}

}  // namespace tidepool::testing
