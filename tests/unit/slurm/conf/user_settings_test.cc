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
  CHECK(MessageOf(ValidateExtraConfig("MessageTimeout=30\nPartitionName=x Nodes=ALL\n")) ==
        "extraConfig line 2: PartitionName is set by Tidepool and cannot be overridden");
  CHECK(MessageOf(ValidateExtraConfig("JustAWord\n")) ==
        "extraConfig line 1: \"JustAWord\" is not Key=Value");
  CHECK(MessageOf(ValidateExtraConfig("MessageTimeout=30 \\\n")) ==
        "extraConfig line 1: line continuations ('\\') are not supported");
}

// slurmctld does not start on a key it does not know.
TEST_CASE("keys Slurm does not know are refused with the one meant") {
  CHECK(MessageOf(ValidateUserSettings({{"SchedulerParamters", "bf_continue"}})) ==
        "slurmConfig: SchedulerParamters is not a key Slurm knows (did you mean "
        "SchedulerParameters?)");
  CHECK(MessageOf(ValidateUserSettings({{"Frobnicate", "1"}})) ==
        "slurmConfig: Frobnicate is not a key Slurm knows");
  // Slurm reads keys case-insensitively.
  CHECK(ValidateUserSettings({{"defmempercpu", "4096"}}).ok());
  CHECK(MessageOf(ValidateExtraConfig("MesageTimeout=30\n")) ==
        "extraConfig line 1: MesageTimeout is not a key Slurm knows (did you mean "
        "MessageTimeout?)");
  CHECK(MessageOf(ValidateLineSettings("NodeName", {{"CoresPerSokcet", "32"}})) ==
        "extra NodeName settings: CoresPerSokcet is not a key Slurm knows (did you mean "
        "CoresPerSocket?)");
  CHECK(MessageOf(ValidateLineSettings("PartitionName", {{"OverSubscrbe", "NO"}})) ==
        "extra PartitionName settings: OverSubscrbe is not a key Slurm knows (did you mean "
        "OverSubscribe?)");
  CHECK_FALSE(ValidateUserSettings({{std::string(65, 'A'), "1"}}).ok());
}

TEST_CASE("extraConfig takes one Key=Value per line and no control characters") {
  CHECK(MessageOf(ValidateExtraConfig("MessageTimeout=30 SchedulerParameters=bf_continue\n")) ==
        "extraConfig line 1: one Key=Value per line (MessageTimeout is followed by "
        "\"SchedulerParameters=bf_continue\")");
  CHECK(MessageOf(ValidateExtraConfig("# ok\nMessageTimeout=3\x1b[0m\n")) ==
        "extraConfig line 2: control character 27 (only text is allowed)");
  CHECK(MessageOf(ValidateExtraConfig("# a comment \x07 too\n")) ==
        "extraConfig line 1: control character 7 (only text is allowed)");
  CHECK(MessageOf(ValidateExtraConfig("MessageTimeout=3#0\n")) ==
        "extraConfig line 1: the value of MessageTimeout contains whitespace, '#' or a control "
        "character");
  CHECK(ValidateExtraConfig("MessageTimeout=30\r\n\tTCPTimeout=5\n").ok());
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
