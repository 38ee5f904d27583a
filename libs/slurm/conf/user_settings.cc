#include "slurm/conf/user_settings.h"

#include <array>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "slurm/conf/known_keys.h"

namespace tidepool::slurm {
namespace {

// Keys whose values Tidepool must control for the cluster to work as managed.
constexpr std::array<absl::string_view, 26> kOwnedKeys = {
    "accountingstoragehost",
    "accountingstorageport",
    "accountingstoragetype",
    "authaltparameters",
    "authalttypes",
    "authtype",
    "backupaddr",
    "backupcontroller",
    "clustername",
    "controladdr",
    "controlmachine",
    "downnodes",
    "frontendname",
    "grestypes",
    "include",
    "nodename",
    "nodeset",
    "partitionname",
    "selecttype",
    "slurmctldhost",
    "slurmctldport",
    "slurmdport",
    "slurmdspooldir",
    "slurmuser",
    "statesavelocation",
    "topologyplugin",
};

constexpr std::array<absl::string_view, 9> kNodeLineKeys = {
    "nodename", "cpus", "realmemory", "gres", "feature", "features", "weight", "state", "nodeaddr"};
constexpr std::array<absl::string_view, 5> kPartitionLineKeys = {"partitionname", "nodes",
                                                                 "default", "maxtime", "state"};

template <size_t N>
bool Contains(const std::array<absl::string_view, N>& keys, absl::string_view lower_key) {
  for (absl::string_view key : keys) {
    if (key == lower_key) return true;
  }
  return false;
}

// Slurm's longest key is 29 characters.
constexpr size_t kLongestKey = 64;

bool IsValidKey(absl::string_view key) {
  if (key.empty() || key.size() > kLongestKey || !absl::ascii_isalpha(key[0])) return false;
  for (char c : key) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

absl::Status ValidateValue(absl::string_view where, absl::string_view key,
                           absl::string_view value) {
  if (value.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", key, " has an empty value"));
  }
  for (char c : value) {
    if (absl::ascii_isspace(c) || c == '#' || absl::ascii_iscntrl(c)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": the value of ", key, " contains whitespace, '#' or a control character"));
    }
  }
  return absl::OkStatus();
}

// slurmctld does not start on a key it does not know: refused here, with the key meant.
absl::Status CheckKnown(absl::string_view where, KeyScope scope, absl::string_view key) {
  if (IsKnownKey(scope, key)) return absl::OkStatus();
  std::optional<std::string> meant = NearestKnownKey(scope, key);
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": ", key, " is not a key Slurm knows",
                   meant.has_value() ? absl::StrCat(" (did you mean ", *meant, "?)") : ""));
}

absl::Status ValidateKey(absl::string_view where, absl::string_view key) {
  if (!IsValidKey(key)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": \"", key, "\" is not a Slurm configuration key"));
  }
  if (Contains(kOwnedKeys, absl::AsciiStrToLower(std::string(key)))) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", key, " is set by Tidepool and cannot be overridden"));
  }
  return CheckKnown(where, KeyScope::kGlobal, key);
}

// One Key=Value per line: the lines that take several (NodeName, PartitionName, NodeSet,
// DownNodes) are Tidepool's to write.
absl::Status ValidateExtraLine(int line_number, absl::string_view line) {
  const std::string where = absl::StrCat("extraConfig line ", line_number);
  const std::vector<absl::string_view> tokens =
      absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  const absl::string_view token = tokens.front();
  const size_t equals = token.find('=');
  if (equals == absl::string_view::npos || equals == 0 || equals + 1 == token.size()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": \"", token, "\" is not Key=Value"));
  }
  const absl::string_view key = token.substr(0, equals);
  if (absl::Status status = ValidateKey(where, key); !status.ok()) return status;
  if (tokens.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": one Key=Value per line (", key,
                                                   " is followed by \"", tokens[1], "\")"));
  }
  return ValidateValue(where, key, token.substr(equals + 1));
}

absl::Status RefuseControlCharacters(int line_number, absl::string_view line) {
  for (char c : line) {
    if (absl::ascii_iscntrl(c) && c != '\t' && c != '\r') {
      return absl::InvalidArgumentError(
          absl::StrCat("extraConfig line ", line_number, ": control character ",
                       static_cast<int>(static_cast<unsigned char>(c)), " (only text is allowed)"));
    }
  }
  return absl::OkStatus();
}

absl::string_view ContentOf(absl::string_view line) { return absl::StripAsciiWhitespace(line); }

}  // namespace

absl::Status ValidateUserSettings(const std::map<std::string, std::string>& settings) {
  for (const auto& [key, value] : settings) {
    absl::Status status = ValidateKey("slurmConfig", key);
    if (status.ok()) status = ValidateValue("slurmConfig", key, value);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status ValidateExtraConfig(absl::string_view text) {
  int line_number = 0;
  for (absl::string_view raw_line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (absl::Status status = RefuseControlCharacters(line_number, raw_line); !status.ok()) {
      return status;
    }
    const absl::string_view line = ContentOf(raw_line);
    if (line.empty() || line[0] == '#') continue;
    if (absl::StrContains(line, '\\')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "extraConfig line ", line_number, ": line continuations ('\\') are not supported"));
    }
    absl::Status status = ValidateExtraLine(line_number, line);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status ValidateLineSettings(absl::string_view line_kind,
                                  const std::map<std::string, std::string>& settings) {
  const bool node_line = line_kind == "NodeName";
  const std::string where = absl::StrCat("extra ", line_kind, " settings");
  for (const auto& [key, value] : settings) {
    if (!IsValidKey(key)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": \"", key, "\" is not a Slurm configuration key"));
    }
    const std::string lower = absl::AsciiStrToLower(key);
    if (node_line ? Contains(kNodeLineKeys, lower) : Contains(kPartitionLineKeys, lower)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", key, " is set by Tidepool on the ", line_kind, " line"));
    }
    absl::Status known =
        CheckKnown(where, node_line ? KeyScope::kNodeLine : KeyScope::kPartitionLine, key);
    if (!known.ok()) return known;
    absl::Status status = ValidateValue(where, key, value);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::flat_hash_set<std::string> ConfigLineKeys(absl::string_view text) {
  absl::flat_hash_set<std::string> keys;
  for (absl::string_view raw_line : absl::StrSplit(text, '\n')) {
    const absl::string_view line = ContentOf(raw_line);
    if (line.empty() || line[0] == '#') continue;
    const size_t equals = line.find('=');
    if (equals == absl::string_view::npos) continue;
    keys.insert(absl::AsciiStrToLower(std::string(line.substr(0, equals))));
  }
  return keys;
}

absl::flat_hash_set<std::string> UserSetKeys(const std::map<std::string, std::string>& settings,
                                             absl::string_view extra_config) {
  absl::flat_hash_set<std::string> keys = ConfigLineKeys(extra_config);
  for (const auto& [key, value] : settings) keys.insert(absl::AsciiStrToLower(key));
  return keys;
}

}  // namespace tidepool::slurm
