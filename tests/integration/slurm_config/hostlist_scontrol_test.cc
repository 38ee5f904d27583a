// libs/slurm/hostlist against the real `scontrol show hostnames` and `scontrol show
// hostlist` of the running Slurm, over thousands of generated cases.
#include <catch2/catch_test_macros.hpp>
#include <fstream>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hostlist_cases.h"
#include "slurm/hostlist/hostlist.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

constexpr char kSeparator[] = "@@tidepool@@";

// Runs `scontrol show <what> <case>` for every case in one process inside the Slurm root
// and returns each case's output lines.
std::vector<std::vector<std::string>> Scontrol(const SlurmEnv& env, const std::string& what,
                                               const std::vector<std::string>& cases) {
  const std::string file_name = "tidepool-hostlist-cases-" + what + ".txt";
  {
    std::ofstream file(env.conf_dir + "/" + file_name);
    for (const std::string& line : cases) file << line << "\n";
    REQUIRE(file.good());
  }
  auto result =
      SlurmExec(env,
                {"/bin/sh", "-c",
                 "while IFS= read -r e; do scontrol show " + what + " \"$e\" 2>&1; echo '" +
                     kSeparator + "'; done < /etc/slurm/" + file_name},
                absl::Minutes(5));
  REQUIRE(result.ok());
  REQUIRE(result->exit_code == 0);
  std::vector<std::vector<std::string>> outputs(1);
  for (absl::string_view line : absl::StrSplit(result->output, '\n', absl::SkipEmpty())) {
    if (line == kSeparator) {
      outputs.emplace_back();
    } else {
      outputs.back().emplace_back(line);
    }
  }
  outputs.pop_back();
  REQUIRE(outputs.size() == cases.size());
  return outputs;
}

TEST_CASE("ExpandHostlist matches scontrol show hostnames on 1,500 expressions") {
  auto env = Slurm();
  REQUIRE(env.ok());
  const std::vector<std::string> expressions =
      slurm::testing::GenerateHostExpressions(1500, 20261202);
  const auto outputs = Scontrol(*env, "hostnames", expressions);
  int compared = 0;
  for (size_t i = 0; i < expressions.size(); ++i) {
    CAPTURE(expressions[i]);
    auto ours = slurm::ExpandHostlist(expressions[i]);
    REQUIRE(ours.ok());
    CHECK(*ours == outputs[i]);
    ++compared;
  }
  CHECK(compared == 1500);
}

TEST_CASE("CompressHostNames (as given) matches scontrol show hostlist on 1,500 name sets") {
  auto env = Slurm();
  REQUIRE(env.ok());
  std::vector<std::string> lists;
  std::vector<std::vector<std::string>> name_sets;
  for (uint64_t seed = 1; seed <= 1500; ++seed) {
    name_sets.push_back(slurm::testing::GenerateHostNames(1 + seed % 40, seed));
    lists.push_back(absl::StrJoin(name_sets.back(), ","));
  }
  const auto outputs = Scontrol(*env, "hostlist", lists);
  for (size_t i = 0; i < lists.size(); ++i) {
    CAPTURE(lists[i]);
    auto ours = slurm::CompressHostNames(name_sets[i], {.order = slurm::HostlistOrder::kAsGiven});
    REQUIRE(ours.ok());
    REQUIRE(outputs[i].size() == 1);
    CHECK(*ours == outputs[i][0]);
  }
}

}  // namespace
}  // namespace tidepool::testing
