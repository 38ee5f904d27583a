#include "slurm/conf/user_settings.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::slurm {
namespace {

std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

TEST_CASE("ValidateUserSettings accepts ordinary settings") {
  CHECK(ValidateUserSettings({{"DefMemPerCPU", "4096"}, {"SchedulerParameters", "bf_continue"}})
            .ok());
}

TEST_CASE("ValidateUserSettings refuses keys Tidepool owns, in any case") {
  const auto status = ValidateUserSettings({{"clustername", "other"}});
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(MessageOf(status) ==
        "slurmConfig: clustername is set by Tidepool and cannot be overridden");
  CHECK_FALSE(ValidateUserSettings({{"SlurmctldHost", "x"}}).ok());
  CHECK_FALSE(ValidateUserSettings({{"NodeName", "x"}}).ok());
  CHECK_FALSE(ValidateUserSettings({{"Include", "/etc/other.conf"}}).ok());
}

TEST_CASE("ValidateUserSettings refuses malformed keys and values") {
  CHECK(MessageOf(ValidateUserSettings({{"Bad Key", "1"}})) ==
        "slurmConfig: \"Bad Key\" is not a Slurm configuration key");
  CHECK(MessageOf(ValidateUserSettings({{"DefMemPerCPU", "1\nNodeName=evil"}})) ==
        "slurmConfig: the value of DefMemPerCPU contains whitespace, '#' or a control character");
  CHECK(MessageOf(ValidateUserSettings({{"DefMemPerCPU", ""}})) ==
        "slurmConfig: DefMemPerCPU has an empty value");
}

TEST_CASE("ValidateExtraConfig accepts comments, blank lines and Key=Value lines") {
  CHECK(ValidateExtraConfig("# tuning\n\nSchedulerParameters=bf_continue\n"
                            "  MessageTimeout=30 \n")
            .ok());
}

TEST_CASE("ValidateExtraConfig refuses NodeSet lines, which belong to Tidepool") {
  CHECK_FALSE(ValidateExtraConfig("# tuning\n\nSchedulerParameters=bf_continue\n"
                                  "NodeSet=extra Feature=x\n")
                  .ok());
}

TEST_CASE("ValidateExtraConfig names the line and key it refuses") {
  CHECK(MessageOf(ValidateExtraConfig("A=1\nPartitionName=x Nodes=ALL\n")) ==
        "extraConfig line 2: PartitionName is set by Tidepool and cannot be overridden");
  CHECK(MessageOf(ValidateExtraConfig("JustAWord\n")) ==
        "extraConfig line 1: \"JustAWord\" is not Key=Value");
  CHECK(MessageOf(ValidateExtraConfig("A=1 \\\n")) ==
        "extraConfig line 1: line continuations ('\\') are not supported");
}

TEST_CASE("ValidateLineSettings refuses keys Tidepool writes on that line") {
  CHECK(ValidateLineSettings("NodeName", {{"CoresPerSocket", "32"}}).ok());
  CHECK(MessageOf(ValidateLineSettings("NodeName", {{"RealMemory", "1"}})) ==
        "extra NodeName settings: RealMemory is set by Tidepool on the NodeName line");
  CHECK(ValidateLineSettings("PartitionName", {{"OverSubscribe", "NO"}}).ok());
  CHECK_FALSE(ValidateLineSettings("PartitionName", {{"Nodes", "ALL"}}).ok());
}

TEST_CASE("UserSetKeys collects lower-cased keys from settings and extra config") {
  const auto keys =
      UserSetKeys({{"ProctrackType", "proctrack/linuxproc"}}, "# c\nTaskPlugin=task/none\n\n");
  CHECK(keys.contains("proctracktype"));
  CHECK(keys.contains("taskplugin"));
  CHECK(keys.size() == 2);
}

}  // namespace
}  // namespace tidepool::slurm
