#include "common/log.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::common {
namespace {

const absl::Time kTime = absl::FromUnixMillis(1764662400123);  // 2025-12-02T08:00:00.123Z

TEST_CASE("FormatLogLine renders logfmt with time, level, service and event first") {
  const std::string line =
      FormatLogLine(kTime, LogLevel::kInfo, "config-renderer", "started", {{"port", 50051}});
  CHECK(line ==
        "ts=2025-12-02T08:00:00.123Z level=info service=config-renderer event=started port=50051");
}

TEST_CASE("FormatLogLine quotes and escapes values that would break the line") {
  const std::string line = FormatLogLine(
      kTime, LogLevel::kError, "s", "e",
      {{"msg", "a b"}, {"q", "say \"hi\""}, {"nl", "one\ntwo"}, {"eq", "k=v"}, {"empty", ""}});
  CHECK(line.find(R"(msg="a b")") != std::string::npos);
  CHECK(line.find(R"(q="say \"hi\"")") != std::string::npos);
  CHECK(line.find(R"(nl="one\ntwo")") != std::string::npos);
  CHECK(line.find(R"(eq="k=v")") != std::string::npos);
  CHECK(line.find(R"(empty="")") != std::string::npos);
  CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("LogField renders statuses, durations and booleans") {
  CHECK(LogField("e", absl::NotFoundError("gone")).value() == "NOT_FOUND: gone");
  CHECK(LogField("d", absl::Milliseconds(1500)).value() == "1.5s");
  CHECK(LogField("b", true).value() == "true");
}

TEST_CASE("ParseLogLevel accepts the four levels in any case and rejects others") {
  CHECK(ParseLogLevel("DEBUG").value() == LogLevel::kDebug);
  CHECK(ParseLogLevel("info").value() == LogLevel::kInfo);
  CHECK(ParseLogLevel("warning").value() == LogLevel::kWarn);
  CHECK(ParseLogLevel("error").value() == LogLevel::kError);
  const auto bad = ParseLogLevel("verbose");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() == "log level \"verbose\" is not one of debug, info, warn, error");
}

TEST_CASE("LogEnabled follows the configured minimum level") {
  ConfigureLogging("test", LogLevel::kWarn);
  CHECK_FALSE(LogEnabled(LogLevel::kInfo));
  CHECK(LogEnabled(LogLevel::kWarn));
  CHECK(LogEnabled(LogLevel::kError));
  ConfigureLogging("test", LogLevel::kInfo);
}

}  // namespace
}  // namespace tidepool::common
