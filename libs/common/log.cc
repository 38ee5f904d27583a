#include "common/log.h"

#include <atomic>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/one_of.h"

namespace tidepool::common {
namespace {

struct LoggerState {
  absl::Mutex mutex;
  std::string service ABSL_GUARDED_BY(mutex) = "tidepool";
  std::atomic<int> min_level{static_cast<int>(LogLevel::kInfo)};
};

LoggerState& State() {
  static auto* state = new LoggerState();  // never destroyed: logging works during exit
  return *state;
}

bool NeedsQuoting(absl::string_view value) {
  if (value.empty()) return true;
  for (char c : value) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      return true;
    }
  }
  return false;
}

void AppendValue(std::string& out, absl::string_view value) {
  if (!NeedsQuoting(value)) {
    out.append(value.data(), value.size());
    return;
  }
  out.push_back('"');
  for (char c : value) {
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppend(&out, "\\x", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void AppendPair(std::string& out, absl::string_view key, absl::string_view value) {
  out.push_back(' ');
  out.append(key.data(), key.size());
  out.push_back('=');
  AppendValue(out, value);
}

}  // namespace

absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(std::string(text));
  if (lower == "warning") return LogLevel::kWarn;
  return ParseOneOf<LogLevel>("log level ", lower,
                              {{"debug", LogLevel::kDebug},
                               {"info", LogLevel::kInfo},
                               {"warn", LogLevel::kWarn},
                               {"error", LogLevel::kError}});
}

absl::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "unknown";
}

LogField::LogField(absl::string_view key, absl::string_view value) : key_(key), value_(value) {}
LogField::LogField(absl::string_view key, const char* value)
    : key_(key), value_(value == nullptr ? "" : value) {}
LogField::LogField(absl::string_view key, const std::string& value) : key_(key), value_(value) {}
LogField::LogField(absl::string_view key, int64_t value) : key_(key), value_(absl::StrCat(value)) {}
LogField::LogField(absl::string_view key, int value) : key_(key), value_(absl::StrCat(value)) {}
LogField::LogField(absl::string_view key, uint64_t value)
    : key_(key), value_(absl::StrCat(value)) {}
LogField::LogField(absl::string_view key, double value) : key_(key), value_(absl::StrCat(value)) {}
LogField::LogField(absl::string_view key, bool value)
    : key_(key), value_(value ? "true" : "false") {}
LogField::LogField(absl::string_view key, const absl::Status& status)
    : key_(key), value_(status.ToString()) {}
LogField::LogField(absl::string_view key, absl::Duration value)
    : key_(key), value_(absl::FormatDuration(value)) {}

std::string FormatLogLine(absl::Time time, LogLevel level, absl::string_view service,
                          absl::string_view event, std::initializer_list<LogField> fields) {
  std::string line =
      absl::StrCat("ts=", absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone()));
  AppendPair(line, "level", LogLevelName(level));
  AppendPair(line, "service", service);
  AppendPair(line, "event", event);
  for (const LogField& field : fields) AppendPair(line, field.key(), field.value());
  return line;
}

void ConfigureLogging(absl::string_view service, LogLevel min_level) {
  LoggerState& state = State();
  absl::MutexLock lock(&state.mutex);
  state.service = std::string(service);
  state.min_level.store(static_cast<int>(min_level));
}

bool LogEnabled(LogLevel level) {
  return static_cast<int>(level) >= State().min_level.load(std::memory_order_relaxed);
}

void Log(LogLevel level, absl::string_view event, std::initializer_list<LogField> fields) {
  if (!LogEnabled(level)) return;
  LoggerState& state = State();
  absl::MutexLock lock(&state.mutex);
  std::string line = FormatLogLine(absl::Now(), level, state.service, event, fields);
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace tidepool::common
