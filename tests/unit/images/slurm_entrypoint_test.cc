// images/slurm/entrypoint writes slurmdbd.conf from the database's host and name and the
// credentials Secret's files, each through slurm_conf_value. This runs that function of
// the script and reads what it wrote as Slurm's parser reads a line
// (src/common/parse_config.c: the line ends at a "#" preceded by an even number of
// backslashes, then every backslash escapes the character after it).
#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

std::string Entrypoint() {
  std::ifstream in(SourceRoot() + "/images/slurm/entrypoint");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The script's line defining slurm_conf_value.
std::string EscapeFunction() {
  for (absl::string_view line : absl::StrSplit(Entrypoint(), '\n')) {
    line = absl::StripLeadingAsciiWhitespace(line);
    if (absl::StartsWith(line, "slurm_conf_value() {")) return std::string(line);
  }
  FAIL("images/slurm/entrypoint defines no slurm_conf_value");
  return "";
}

std::string Escaped(const std::string& value) {
  absl::StatusOr<CommandResult> run = RunCommand(
      {"/bin/sh", "-c", absl::StrCat(EscapeFunction(), "\nprintf '%s' \"$1\" | slurm_conf_value"),
       "sh", value},
      absl::Seconds(10));
  REQUIRE(run.ok());
  REQUIRE(run->exit_code == 0);
  return run->output;
}

// The value of a "Key=value" line as Slurm reads it.
std::string SlurmReads(std::string line) {
  int backslashes = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && backslashes % 2 == 0) {
      line.resize(i);
      break;
    }
    backslashes = line[i] == '\\' ? backslashes + 1 : 0;
  }
  std::string unescaped;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') ++i;
    if (i < line.size()) unescaped += line[i];
  }
  return unescaped.substr(unescaped.find('=') + 1);
}

TEST_CASE("Slurm's parser cuts an unescaped # and drops single backslashes") {
  // Why the values need escaping at all (and that the reading below is not the identity).
  CHECK(SlurmReads("StorageLoc=acct#1") == "acct");
  CHECK(SlurmReads(R"(StoragePass=a\b)") == "ab");
  CHECK(SlurmReads(R"(StoragePass=a\\#b)") == R"(a\)");
}

TEST_CASE("every value slurm_conf_value escapes reads back unchanged") {
  for (const std::string value : {"slurm_acct_db", "acct#1", "#", "##lead", R"(a\b)", R"(x\#y)",
                                  R"(trailing\)", R"(p#ss\\w\#rd)", "3f2a9c0d"}) {
    INFO(value);
    CHECK(SlurmReads(absl::StrCat("StorageLoc=", Escaped(value))) == value);
  }
}

TEST_CASE("slurmdbd.conf's host, database name, user and password all go through it") {
  const std::string script = Entrypoint();
  for (const char* line : {"StorageHost=$storage_host", "StorageLoc=$storage_loc",
                           "StorageUser=$storage_user", "StoragePass=$storage_pass"}) {
    INFO(line);
    CHECK(absl::StrContains(script, absl::StrCat("\n", line, "\n")));
  }
  for (
      const char* assignment :
      {R"(storage_host=$(printf '%s' "$TIDEPOOL_SLURMDBD_STORAGE_HOST" | slurm_conf_value))",
       R"(storage_loc=$(printf '%s' "${TIDEPOOL_SLURMDBD_STORAGE_LOC:-slurm_acct_db}" | slurm_conf_value))",
       R"(storage_user=$(slurm_conf_value "$credentials/username"))",
       R"(storage_pass=$(slurm_conf_value "$credentials/password"))"}) {
    INFO(assignment);
    CHECK(absl::StrContains(script, assignment));
  }
}

}  // namespace
}  // namespace tidepool::testing
