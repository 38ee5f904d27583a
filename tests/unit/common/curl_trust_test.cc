// TrustOnlyCa against a real TLS server on loopback (openssl s_server): the CA given is
// trusted, and a CA from libcurl's CA directory (on Debian /etc/ssl/certs, here a directory
// of the test's) is not. (libcurl 7.88 already skips the directory when given a blob; the
// option's documentation promises only that the blob replaces the CA file.)
#include "common/curl_trust.h"

#include <curl/curl.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "support/child_process.h"
#include "support/eventually.h"
#include "support/grpc_certs.h"
#include "support/ports.h"

namespace tidepool::common {
namespace {

using testing::ChildProcess;

// A GET of `url`, `configure` applied to the handle first: CURLE_OK or why not.
CURLcode Get(const std::string& url, const std::function<void(CURL*)>& configure) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  REQUIRE(curl != nullptr);
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(
      curl.get(), CURLOPT_WRITEFUNCTION,
      +[](char*, size_t size, size_t count, void*) { return size * count; });
  configure(curl.get());
  return curl_easy_perform(curl.get());
}

TEST_CASE("only the CA given is trusted, not those of libcurl's CA directory") {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / absl::StrCat("curl-trust-", getpid());
  std::filesystem::remove_all(root);
  const std::string ours = (root / "ours").string();
  const std::string other = (root / "other").string();
  // Two CAs, each with a certificate for localhost.
  REQUIRE(testing::MakeGrpcCertificates(ours, {"localhost"}).ok());
  REQUIRE(testing::MakeGrpcCertificates(other, {"localhost"}).ok());
  absl::StatusOr<GrpcTls> server = testing::GrpcIdentity(other, "localhost");
  absl::StatusOr<GrpcTls> ours_identity = testing::GrpcIdentity(ours, "localhost");
  REQUIRE(server.ok());
  REQUIRE(ours_identity.ok());
  // A CA directory holding the server's CA, as the system's might.
  const std::filesystem::path ca_dir = root / "capath";
  std::filesystem::create_directories(ca_dir);
  std::filesystem::copy_file(std::filesystem::path(other) / "localhost" / "ca.crt",
                             ca_dir / "other.pem");
  REQUIRE(std::system(absl::StrCat("openssl rehash ", ca_dir.string()).c_str()) == 0);

  const uint16_t port = testing::FreeLoopbackPort().value();
  absl::StatusOr<ChildProcess> tls_server = ChildProcess::Spawn(
      "/usr/bin/openssl",
      {"s_server", "-quiet", "-www", "-accept", absl::StrCat("127.0.0.1:", port), "-cert",
       (std::filesystem::path(other) / "localhost" / "tls.crt").string(), "-key",
       (std::filesystem::path(other) / "localhost" / "tls.key").string()});
  REQUIRE(tls_server.ok());
  const std::string url = absl::StrCat("https://localhost:", port, "/");
  const auto resolve_local = [&](CURL* curl, curl_slist* resolve) {
    curl_easy_setopt(curl, CURLOPT_RESOLVE, resolve);
  };
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> resolve(
      curl_slist_append(nullptr, absl::StrCat("localhost:", port, ":127.0.0.1").c_str()),
      curl_slist_free_all);

  // The server's CA given: trusted.
  REQUIRE(testing::PollUntil(
      [&] {
        return Get(url, [&](CURL* curl) {
                 resolve_local(curl, resolve.get());
                 REQUIRE(TrustOnlyCa(curl, server->ca_pem).ok());
               }) == CURLE_OK;
      },
      absl::Seconds(10), absl::Milliseconds(100)));
  // The CA directory alone trusts the server (so the check below means something).
  CHECK(Get(url, [&](CURL* curl) {
          resolve_local(curl, resolve.get());
          curl_easy_setopt(curl, CURLOPT_CAPATH, ca_dir.c_str());
        }) == CURLE_OK);
  // Another CA given: the server's, though in the CA directory, is not trusted.
  CHECK(Get(url, [&](CURL* curl) {
          resolve_local(curl, resolve.get());
          curl_easy_setopt(curl, CURLOPT_CAPATH, ca_dir.c_str());
          REQUIRE(TrustOnlyCa(curl, ours_identity->ca_pem).ok());
        }) == CURLE_PEER_FAILED_VERIFICATION);
  tls_server = absl::CancelledError("stopped");  // killed and reaped
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace tidepool::common
