#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace tidepool::common {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view text);
absl::string_view LogLevelName(LogLevel level);

// One key=value pair of a log line. Values are rendered as text at construction.
class LogField {
 public:
  LogField(absl::string_view key, absl::string_view value);
  LogField(absl::string_view key, const char* value);
  LogField(absl::string_view key, const std::string& value);
  LogField(absl::string_view key, int64_t value);
  LogField(absl::string_view key, int value);
  LogField(absl::string_view key, uint64_t value);
  LogField(absl::string_view key, double value);
  LogField(absl::string_view key, bool value);
  LogField(absl::string_view key, const absl::Status& status);
  LogField(absl::string_view key, absl::Duration value);

  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }

 private:
  std::string key_;
  std::string value_;
};

// Renders one event as a logfmt line (no trailing newline):
//   ts=2026-12-02T08:00:00.123Z level=info service=x event=y key=value key2="a b"
std::string FormatLogLine(absl::Time time, LogLevel level, absl::string_view service,
                          absl::string_view event, std::initializer_list<LogField> fields);

// Process-wide logger settings; call once from main before threads start.
void ConfigureLogging(absl::string_view service, LogLevel min_level);
bool LogEnabled(LogLevel level);

// Writes one event line to stderr when `level` is enabled. Thread-safe.
void Log(LogLevel level, absl::string_view event, std::initializer_list<LogField> fields = {});

inline void LogDebug(absl::string_view event, std::initializer_list<LogField> fields = {}) {
  Log(LogLevel::kDebug, event, fields);
}
inline void LogInfo(absl::string_view event, std::initializer_list<LogField> fields = {}) {
  Log(LogLevel::kInfo, event, fields);
}
inline void LogWarn(absl::string_view event, std::initializer_list<LogField> fields = {}) {
  Log(LogLevel::kWarn, event, fields);
}
inline void LogError(absl::string_view event, std::initializer_list<LogField> fields = {}) {
  Log(LogLevel::kError, event, fields);
}

}  // namespace tidepool::common
