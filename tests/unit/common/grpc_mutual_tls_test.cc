// Mutual TLS and per-method authorisation end to end on loopback: certificates from
// tools/grpc-certs/make, gRPC's own TLS stack and authorization engine.

#include <sys/stat.h>

#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "common/grpc_authz.h"
#include "common/grpc_channel.h"
#include "common/grpc_server.h"
#include "common/grpc_tls_in_use.h"
#include "common/grpc_tls_provider.h"
#include "common/grpc_tls_watch.h"
#include "common/metrics.h"
#include "common/periodic_worker.h"
#include "common/secret_file.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "support/grpc_certs.h"
#include "support/ports.h"
#include "tidepool/v1/renderer.grpc.pb.h"

namespace tidepool::common {
namespace {

using ::grpc::health::v1::Health;
using ::tidepool::testing::GrpcIdentity;
using ::tidepool::testing::MakeGrpcCertificates;

constexpr char kRender[] = "/tidepool.v1.ConfigRenderer/Render";
constexpr char kValidate[] = "/tidepool.v1.ConfigRenderer/Validate";

// Answers Render with the caller's identities (so the test sees what the server saw), after
// asking `authorizer` as every Tidepool handler does; Validate is granted to nobody.
class EchoCallerRenderer final : public v1::ConfigRenderer::Service {
 public:
  explicit EchoCallerRenderer(bool enforce)
      : authorizer_({{.method = kRender, .callers = {"cluster-controller"}},
                     {.method = kValidate, .callers = {}}},
                    enforce) {}

  grpc::Status Render(grpc::ServerContext* context, const v1::RenderRequest*,
                      v1::RenderResponse*) override {
    if (grpc::Status denied = authorizer_.Check(*context, kRender); !denied.ok()) return denied;
    return {grpc::StatusCode::ABORTED, absl::StrJoin(PeerIdentities(*context), ",")};
  }
  grpc::Status Validate(grpc::ServerContext* context, const v1::RenderRequest*,
                        v1::ValidateResponse*) override {
    if (grpc::Status denied = authorizer_.Check(*context, kValidate); !denied.ok()) return denied;
    return {grpc::StatusCode::ABORTED, "reached"};
  }

 private:
  MethodAuthorizer authorizer_;
};

struct Certificates {
  std::string good;   // one CA: config-renderer, cluster-controller, pod-scheduler
  std::string other;  // another CA, with its own "cluster-controller"
};

const Certificates& TestCertificates() {
  static const Certificates certificates = [] {
    const std::filesystem::path base =
        std::filesystem::temp_directory_path() / ("grpc_mutual_tls_" + std::to_string(getpid()));
    Certificates made{.good = (base / "good").string(), .other = (base / "other").string()};
    REQUIRE(
        MakeGrpcCertificates(made.good, {"config-renderer", "cluster-controller", "pod-scheduler"})
            .ok());
    REQUIRE(MakeGrpcCertificates(made.other, {"cluster-controller"}).ok());
    return made;
  }();
  return certificates;
}

GrpcTls Identity(const std::string& dir, const std::string& name) {
  absl::StatusOr<GrpcTls> tls = GrpcIdentity(dir, name);
  REQUIRE(tls.ok());
  return *tls;
}

struct Call {
  grpc::StatusCode code;
  std::string message;
};

Call CallRender(uint16_t port, const ChannelOptions& options) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      MakeChannel("127.0.0.1:" + std::to_string(port), options);
  REQUIRE(channel.ok());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::RenderResponse response;
  const grpc::Status status =
      v1::ConfigRenderer::NewStub(*channel)->Render(&context, {}, &response);
  return {status.error_code(), status.error_message()};
}

grpc::StatusCode CallValidate(uint16_t port, const ChannelOptions& options) {
  auto channel = MakeChannel("127.0.0.1:" + std::to_string(port), options);
  REQUIRE(channel.ok());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::ValidateResponse response;
  return v1::ConfigRenderer::NewStub(*channel)->Validate(&context, {}, &response).error_code();
}

grpc::StatusCode CallHealth(uint16_t port, const ChannelOptions& options) {
  auto channel = MakeChannel("127.0.0.1:" + std::to_string(port), options);
  REQUIRE(channel.ok());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::health::v1::HealthCheckResponse response;
  return Health::NewStub(*channel)->Check(&context, {}, &response).error_code();
}

TEST_CASE("With mutual TLS a method admits only the callers granted it") {
  const Certificates& certs = TestCertificates();
  EchoCallerRenderer renderer(/*enforce=*/true);
  const uint16_t port = testing::FreeLoopbackPort().value();
  auto server = GrpcServer::Start("127.0.0.1", port, {&renderer},
                                  {.tls = Identity(certs.good, "config-renderer")});
  REQUIRE(server.ok());
  const auto as = [&](const std::string& dir, const std::string& who) {
    return ChannelOptions{.tls = Identity(dir, who), .server_name = "config-renderer"};
  };

  SECTION("the granted caller reaches the method, which sees its identity") {
    const Call call = CallRender(port, as(certs.good, "cluster-controller"));
    CHECK(call.code == grpc::StatusCode::ABORTED);
    CHECK(call.message == "cluster-controller");
  }
  SECTION("another caller of the same CA is refused, but may check health") {
    const Call call = CallRender(port, as(certs.good, "pod-scheduler"));
    CHECK(call.code == grpc::StatusCode::PERMISSION_DENIED);
    CHECK(call.message ==
          "pod-scheduler may not call /tidepool.v1.ConfigRenderer/Render (allowed: "
          "cluster-controller)");
    CHECK(CallHealth(port, as(certs.good, "pod-scheduler")) == grpc::StatusCode::OK);
  }
  SECTION("a method granted to nobody admits nobody") {
    CHECK(CallValidate(port, as(certs.good, "cluster-controller")) ==
          grpc::StatusCode::PERMISSION_DENIED);
  }
  SECTION("the right name from another CA does not get through the handshake") {
    CHECK(CallRender(port, as(certs.other, "cluster-controller")).code ==
          grpc::StatusCode::UNAVAILABLE);
  }
  SECTION("a plaintext caller does not get through") {
    CHECK(CallRender(port, {}).code == grpc::StatusCode::UNAVAILABLE);
    CHECK(CallHealth(port, {}) == grpc::StatusCode::UNAVAILABLE);
  }
  SECTION("a caller that expects another server refuses this one") {
    ChannelOptions wrong_server = as(certs.good, "cluster-controller");
    wrong_server.server_name = "slurm-syncer";
    CHECK(CallRender(port, wrong_server).code == grpc::StatusCode::UNAVAILABLE);
  }
}

std::string ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A directory laid out as kubelet mounts a Secret: the files are links into "..data", itself a
// link to the current version, and an update swaps "..data" in one rename.
class MountedSecret {
 public:
  explicit MountedSecret(std::filesystem::path dir) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    for (const char* file : {"ca.crt", "tls.crt", "tls.key"}) {
      std::filesystem::create_symlink(std::string("..data/") + file, dir_ / file);
    }
  }
  // Publishes the files of `identity_dir` as the Secret's new version.
  void Publish(const std::string& identity_dir) {
    const std::filesystem::path version = dir_ / ("..version" + std::to_string(++versions_));
    std::filesystem::create_directory(version);
    for (const char* file : {"ca.crt", "tls.crt", "tls.key"}) {
      std::filesystem::copy_file(identity_dir + "/" + file, version / file);
    }
    std::filesystem::create_symlink(version.filename(), dir_ / "..data_tmp");
    std::filesystem::rename(dir_ / "..data_tmp", dir_ / "..data");
  }
  std::string path() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
  int versions_ = 0;
};

// Calls Render until it reaches the method (the handshake passed) or `within` ends.
bool ReachesWithin(uint16_t port, const ChannelOptions& options, absl::Duration within) {
  const absl::Time end = absl::Now() + within;
  while (absl::Now() < end) {
    if (CallRender(port, options).code == grpc::StatusCode::ABORTED) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

// Two CAs, each with a config-renderer and a cluster-controller, under a directory of
// their own that goes with the fixture.
struct TwoAuthorities {
  explicit TwoAuthorities(const std::string& name)
      : base(std::filesystem::temp_directory_path() / (name + "_" + std::to_string(getpid()))),
        first((base / "first").string()),
        second((base / "second").string()) {
    std::filesystem::remove_all(base);
    for (const std::string& ca : {first, second}) {
      REQUIRE(MakeGrpcCertificates(ca, {"config-renderer", "cluster-controller"}).ok());
    }
  }
  ~TwoAuthorities() {
    std::error_code ignored;
    std::filesystem::remove_all(base, ignored);
  }
  // A Secret's files put together from two identities: the second CA's config-renderer
  // certificate with its cluster-controller's key. Returns the directory.
  std::string MixedIdentity() const {
    const std::string mixed = (base / "mixed").string();
    std::filesystem::create_directories(mixed);
    std::filesystem::copy_file(second + "/config-renderer/ca.crt", mixed + "/ca.crt");
    std::filesystem::copy_file(second + "/config-renderer/tls.crt", mixed + "/tls.crt");
    std::filesystem::copy_file(second + "/cluster-controller/tls.key", mixed + "/tls.key");
    return mixed;
  }
  std::filesystem::path base;
  std::string first;   // the CA before a renewal
  std::string second;  // the CA after it
};

// A service's identity as the service runner keeps it: loaded from its mounted Secret, in
// use through a private copy (GrpcTlsInUse) and renewed by a watch looking every second.
struct RenewingIdentity {
  explicit RenewingIdentity(const std::string& secret_dir) {
    absl::StatusOr<GrpcTls> loaded = LoadGrpcTlsDir(secret_dir, absl::Seconds(1));
    REQUIRE(loaded.ok());
    absl::StatusOr<std::unique_ptr<GrpcTlsInUse>> created = GrpcTlsInUse::Create(*loaded);
    REQUIRE(created.ok());
    in_use = *std::move(created);
    loaded->provider = in_use->provider();
    tls = *std::move(loaded);
    watch.emplace("config-renderer", tls, registry, in_use.get());
    looker.emplace(absl::Seconds(1), [this] { watch->Check(); });
  }
  prometheus::Registry registry;
  std::unique_ptr<GrpcTlsInUse> in_use;
  GrpcTls tls;
  std::optional<GrpcTlsWatch> watch;
  std::optional<PeriodicWorker> looker;  // stops first
};

TEST_CASE("GrpcTlsInUse keeps a private copy, switches all of it at once and removes it") {
  const TwoAuthorities cas("grpc_tls_in_use");
  absl::StatusOr<GrpcTls> first = LoadGrpcTlsDir(cas.first + "/config-renderer");
  absl::StatusOr<GrpcTls> second = LoadGrpcTlsDir(cas.second + "/config-renderer");
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  std::string dir;
  {
    absl::StatusOr<std::unique_ptr<GrpcTlsInUse>> in_use =
        GrpcTlsInUse::Create(*first, cas.base.string());
    REQUIRE(in_use.ok());
    dir = (*in_use)->dir();
    CHECK((*in_use)->provider() != nullptr);
    struct stat info {};
    REQUIRE(::stat(dir.c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0700);
    REQUIRE(::stat((dir + "/tls.key").c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0600);
    CHECK(ReadFileText(dir + "/tls.crt") == first->cert_pem);

    REQUIRE((*in_use)->Publish(*second).ok());
    CHECK(ReadFileText(dir + "/ca.crt") == second->ca_pem);
    CHECK(ReadFileText(dir + "/tls.crt") == second->cert_pem);
    CHECK(ReadFileText(dir + "/tls.key") == second->key_pem);
    int versions = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      versions += entry.path().filename().string().starts_with("..version") ? 1 : 0;
    }
    CHECK(versions == 1);  // the replaced one is gone
  }
  CHECK_FALSE(std::filesystem::exists(dir));

  // What a killed process left is removed by the next one (also one that had our pid, as a
  // restarted container's pid 1 has); another live process's copy and our own others stay.
  const std::filesystem::path killed = cas.base / "tidepool-grpc-tls-999999999-abcdef";
  const std::filesystem::path same_pid =
      cas.base / ("tidepool-grpc-tls-" + std::to_string(getpid()) + "-abcdef");
  const std::filesystem::path live =
      cas.base / ("tidepool-grpc-tls-" + std::to_string(getppid()) + "-abcdef");
  for (const auto& left : {killed, same_pid, live}) {
    std::filesystem::create_directories(left / "..version1");
  }
  absl::StatusOr<std::unique_ptr<GrpcTlsInUse>> one =
      GrpcTlsInUse::Create(*first, cas.base.string());
  REQUIRE(one.ok());
  CHECK_FALSE(std::filesystem::exists(killed));
  CHECK_FALSE(std::filesystem::exists(same_pid));
  CHECK(std::filesystem::exists(live));
  absl::StatusOr<std::unique_ptr<GrpcTlsInUse>> two =
      GrpcTlsInUse::Create(*second, cas.base.string());
  REQUIRE(two.ok());
  CHECK(std::filesystem::exists((*one)->dir() + "/tls.key"));

  const absl::Status no_base = GrpcTlsInUse::Create(*first, "/no/such/dir").status();
  CHECK(absl::StartsWith(
      no_base.message(),
      "cannot make a directory for the gRPC identity in use under /no/such/dir: "));
}

TEST_CASE("A renewed certificate in the mounted Secret is used without a restart") {
  const TwoAuthorities cas("grpc_tls_renewal");
  const std::filesystem::path& base = cas.base;
  const std::string& first = cas.first;
  const std::string& second = cas.second;
  MountedSecret server_secret(base / "server");
  server_secret.Publish(first + "/config-renderer");
  MountedSecret client_secret(base / "client");
  client_secret.Publish(first + "/cluster-controller");

  RenewingIdentity server_identity(server_secret.path());
  EchoCallerRenderer renderer(/*enforce=*/true);
  const uint16_t port = testing::FreeLoopbackPort().value();
  auto server = GrpcServer::Start("127.0.0.1", port, {&renderer}, {.tls = server_identity.tls});
  REQUIRE(server.ok());
  const auto fixed = [](const std::string& ca) {
    return ChannelOptions{.tls = Identity(ca, "cluster-controller"),
                          .server_name = "config-renderer"};
  };
  REQUIRE(CallRender(port, fixed(first)).code == grpc::StatusCode::ABORTED);
  REQUIRE(CallRender(port, fixed(second)).code == grpc::StatusCode::UNAVAILABLE);

  // The server's Secret renewed with the other CA: new connections use it, without a restart.
  server_secret.Publish(second + "/config-renderer");
  CHECK(ReachesWithin(port, fixed(second), absl::Seconds(15)));
  CHECK(CallRender(port, fixed(first)).code == grpc::StatusCode::UNAVAILABLE);

  // A caller's channel made before its own Secret was renewed presents the renewed one.
  RenewingIdentity client_identity(client_secret.path());
  const ChannelOptions renewing{.tls = client_identity.tls, .server_name = "config-renderer"};
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      MakeChannel("127.0.0.1:" + std::to_string(port), renewing);
  REQUIRE(channel.ok());
  client_secret.Publish(second + "/cluster-controller");
  std::this_thread::sleep_for(std::chrono::seconds(3));  // three of the client's reloads
  bool reached = false;
  for (int attempt = 0; attempt < 60 && !reached; ++attempt) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    context.set_wait_for_ready(true);
    v1::RenderResponse response;
    reached = v1::ConfigRenderer::NewStub(*channel)->Render(&context, {}, &response).error_code() ==
              grpc::StatusCode::ABORTED;
  }
  CHECK(reached);
  std::filesystem::remove_all(base);
}

TEST_CASE("A service's server and channels share one provider of its identity, which renews both") {
  const TwoAuthorities cas("grpc_tls_shared");
  MountedSecret secret(cas.base / "secret");
  secret.Publish(cas.first + "/config-renderer");
  RenewingIdentity identity(secret.path());
  const GrpcTls* tls = &identity.tls;
  CHECK(CertificateProviderOf(*tls) == identity.in_use->provider());
  CHECK(CertificateProviderOf(GrpcTls(*tls)) == tls->provider);  // copies share it

  EchoCallerRenderer renderer(/*enforce=*/false);
  const uint16_t port = testing::FreeLoopbackPort().value();
  auto server = GrpcServer::Start("127.0.0.1", port, {&renderer}, {.tls = *tls});
  REQUIRE(server.ok());
  // The service calling itself: both ends take their identity from the one provider.
  const ChannelOptions self{.tls = *tls, .server_name = "config-renderer"};
  const std::string address = "127.0.0.1:" + std::to_string(port);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> before = MakeChannel(address, self);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> after = MakeChannel(address, self);
  REQUIRE(before.ok());
  REQUIRE(after.ok());
  const auto render = [](const std::shared_ptr<grpc::Channel>& channel) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    v1::RenderResponse response;
    return v1::ConfigRenderer::NewStub(channel)->Render(&context, {}, &response).error_code();
  };
  CHECK(render(*before) == grpc::StatusCode::ABORTED);

  // Renewed under the other CA: the server now refuses the first CA's callers, and a
  // channel made before the renewal (its first connection after it) presents and trusts
  // the renewed identity.
  secret.Publish(cas.second + "/config-renderer");
  const ChannelOptions first_ca{.tls = Identity(cas.first, "cluster-controller"),
                                .server_name = "config-renderer"};
  bool refused = false;
  for (int attempt = 0; attempt < 75 && !refused; ++attempt) {
    refused = CallRender(port, first_ca).code == grpc::StatusCode::UNAVAILABLE;
    if (!refused) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  CHECK(refused);
  bool reached = false;
  for (int attempt = 0; attempt < 30 && !reached; ++attempt) {
    reached = render(*after) == grpc::StatusCode::ABORTED;
  }
  CHECK(reached);
}

TEST_CASE("A Secret renewed into an unusable identity leaves the loaded one in use") {
  const TwoAuthorities cas("grpc_tls_unusable");
  MountedSecret secret(cas.base / "secret");
  secret.Publish(cas.first + "/config-renderer");
  RenewingIdentity identity(secret.path());
  EchoCallerRenderer renderer(/*enforce=*/true);
  const uint16_t port = testing::FreeLoopbackPort().value();
  auto server = GrpcServer::Start("127.0.0.1", port, {&renderer}, {.tls = identity.tls});
  REQUIRE(server.ok());
  const auto caller_of = [](const std::string& ca) {
    return ChannelOptions{.tls = Identity(ca, "cluster-controller"),
                          .server_name = "config-renderer"};
  };
  REQUIRE(CallRender(port, caller_of(cas.first)).code == grpc::StatusCode::ABORTED);

  // The second CA's certificate with a key that is not its own: nothing changes (gRPC alone
  // took up the new ca.crt and refused every caller).
  secret.Publish(cas.MixedIdentity());
  std::this_thread::sleep_for(std::chrono::seconds(4));  // four reloads
  CHECK(CallRender(port, caller_of(cas.first)).code == grpc::StatusCode::ABORTED);
  CHECK(CallRender(port, caller_of(cas.second)).code == grpc::StatusCode::UNAVAILABLE);

  // A usable renewal after it is taken up.
  secret.Publish(cas.second + "/config-renderer");
  CHECK(ReachesWithin(port, caller_of(cas.second), absl::Seconds(15)));
}

bool Serves(prometheus::Registry& registry, const std::string& line) {
  return SerializeMetrics(registry).find(line + "\n") != std::string::npos;
}

// A TLS watch on a mounted Secret holding the first CA's config-renderer, looking only when
// the test calls Check; with `private_copy`, renewals go to a GrpcTlsInUse under the test's
// directory.
struct WatchedSecret {
  explicit WatchedSecret(const std::string& name, bool private_copy = false)
      : cas(name), secret(cas.base / "secret") {
    secret.Publish(cas.first + "/config-renderer");
    absl::StatusOr<GrpcTls> loaded = LoadGrpcTlsDir(secret.path(), absl::Hours(1));
    REQUIRE(loaded.ok());
    tls = *loaded;
    if (private_copy) {
      std::filesystem::create_directories(cas.base / "shm");
      absl::StatusOr<std::unique_ptr<GrpcTlsInUse>> created =
          GrpcTlsInUse::Create(tls, (cas.base / "shm").string());
      REQUIRE(created.ok());
      in_use = *std::move(created);
    }
    watch.emplace("config-renderer", tls, registry, in_use.get());
  }
  std::string Reloads(const std::string& result) {
    return "tidepool_config_renderer_grpc_tls_reloads_total{result=\"" + result + "\"} ";
  }
  TwoAuthorities cas;
  MountedSecret secret;
  GrpcTls tls;
  prometheus::Registry registry;
  std::unique_ptr<GrpcTlsInUse> in_use;
  std::optional<GrpcTlsWatch> watch;
};

TEST_CASE("The TLS watch publishes the certificate's expiry and counts renewals once") {
  WatchedSecret w("grpc_tls_watch");
  const std::string& first = w.cas.first;
  const std::string& second = w.cas.second;
  prometheus::Registry& registry = w.registry;
  GrpcTlsWatch& watch = *w.watch;
  const std::string renewed = w.Reloads("renewed");
  const std::string unusable = w.Reloads("unusable");
  const GrpcTls* tls = &w.tls;
  MountedSecret& secret = w.secret;
  const std::filesystem::path& base = w.cas.base;

  // tools/grpc-certs/make signs for 825 days.
  const int64_t expiry = absl::ToUnixSeconds(*CertificateNotAfter(tls->cert_pem));
  CHECK(std::abs(expiry - absl::ToUnixSeconds(absl::Now() + absl::Hours(24 * 825))) < 3600);
  CHECK(Serves(registry, "tidepool_config_renderer_grpc_certificate_expiry_timestamp_seconds " +
                             std::to_string(expiry)));
  watch.Check();
  CHECK(Serves(registry, renewed + "0"));

  secret.Publish(second + "/config-renderer");
  watch.Check();
  watch.Check();
  INFO(SerializeMetrics(registry));
  CHECK(Serves(registry, renewed + "1"));

  // A Secret put together from two identities: said once, the expiry left as it was.
  secret.Publish(w.cas.MixedIdentity());
  watch.Check();
  watch.Check();
  CHECK(Serves(registry, unusable + "1"));
  CHECK(Serves(registry, renewed + "1"));

  secret.Publish(first + "/config-renderer");
  watch.Check();
  CHECK(Serves(registry, renewed + "2"));
  CHECK(Serves(registry, unusable + "1"));
  std::filesystem::remove_all(base);
}

TEST_CASE("The TLS watch counts each renewal once when looks overlap") {
  WatchedSecret w("grpc_tls_overlap");
  GrpcTlsWatch& watch = *w.watch;
  // Another thread looks all the time; a look that read the files before a renewal must not
  // put the old certificate back after it (which would count every renewal again).
  std::atomic<bool> stop = false;
  std::thread looker([&] {
    while (!stop) {
      watch.Check();
      std::this_thread::sleep_for(std::chrono::microseconds(50));  // lets the other look in
    }
  });
  constexpr int kRenewals = 1000;
  for (int i = 1; i <= kRenewals; ++i) {
    w.secret.Publish((i % 2 == 1 ? w.cas.second : w.cas.first) + "/config-renderer");
    watch.Check();
  }
  stop = true;
  looker.join();
  CHECK(Serves(w.registry, w.Reloads("renewed") + std::to_string(kRenewals)));
}

TEST_CASE("A renewal the private copy cannot take is not counted and is tried again") {
  WatchedSecret w("grpc_tls_not_taken_up", /*private_copy=*/true);
  const std::string copy = w.in_use->dir();
  const auto in_copy = [&] {
    std::ifstream in(copy + "/tls.crt");
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  REQUIRE(in_copy() == w.tls.cert_pem);
  // The copy's directory gone (/dev/shm cleared under the process): nothing can be written.
  std::filesystem::remove_all(copy);
  w.secret.Publish(w.cas.second + "/config-renderer");
  w.watch->Check();
  CHECK(Serves(w.registry, w.Reloads("renewed") + "0"));
  CHECK(Serves(w.registry, w.Reloads("unusable") + "0"));

  // Writable again: the next look takes the renewal up, counted once.
  std::filesystem::create_directory(copy);
  w.watch->Check();
  w.watch->Check();
  CHECK(Serves(w.registry, w.Reloads("renewed") + "1"));
  absl::StatusOr<GrpcTls> second = LoadGrpcTlsDir(w.cas.second + "/config-renderer");
  REQUIRE(second.ok());
  CHECK(in_copy() == second->cert_pem);
  std::filesystem::remove_all(w.cas.base);
}

TEST_CASE("Without TLS every caller reaches every method and has no identity") {
  EchoCallerRenderer renderer(/*enforce=*/false);
  const uint16_t port = testing::FreeLoopbackPort().value();
  auto server = GrpcServer::Start("127.0.0.1", port, {&renderer});
  REQUIRE(server.ok());
  const Call call = CallRender(port, {});
  CHECK(call.code == grpc::StatusCode::ABORTED);
  CHECK(call.message.empty());
  CHECK(CallValidate(port, {}) == grpc::StatusCode::ABORTED);
}

TEST_CASE("LoadGrpcTlsDir reads a Secret's layout and refuses a key others may read") {
  const Certificates& certs = TestCertificates();
  const std::string dir = certs.good + "/pod-scheduler";
  const std::string key = dir + "/tls.key";
  REQUIRE(LoadGrpcTlsDir(dir).ok());

  for (const mode_t allowed : {0600, 0400, 0640, 0440}) {
    REQUIRE(chmod(key.c_str(), allowed) == 0);
    CHECK(CheckSecretFileMode(key, "gRPC TLS key").ok());
  }
  for (const mode_t wrong : {0644, 0604, 0660, 0606, 0610}) {
    REQUIRE(chmod(key.c_str(), wrong) == 0);
    const absl::Status refused = LoadGrpcTlsDir(dir).status();
    CHECK(absl::IsPermissionDenied(refused));
    CHECK(refused.message().find("tls.key has mode 0") != absl::string_view::npos);
  }
  REQUIRE(chmod(key.c_str(), 0600) == 0);

  // A Secret put together from two identities, or with another CA: refused, saying which.
  const std::string mixed = certs.good + "/mixed";
  std::filesystem::create_directories(mixed);
  std::filesystem::copy_file(dir + "/ca.crt", mixed + "/ca.crt");
  std::filesystem::copy_file(dir + "/tls.crt", mixed + "/tls.crt");
  std::filesystem::copy_file(certs.good + "/cluster-controller/tls.key", mixed + "/tls.key");
  CHECK(LoadGrpcTlsDir(mixed).status().message() ==
        mixed + "/tls.key is not the key of " + mixed + "/tls.crt");
  std::filesystem::copy_file(certs.good + "/pod-scheduler/tls.key", mixed + "/tls.key",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(certs.other + "/cluster-controller/ca.crt", mixed + "/ca.crt",
                             std::filesystem::copy_options::overwrite_existing);
  CHECK(LoadGrpcTlsDir(mixed).status().message() ==
        mixed + "/tls.crt is not signed by " + mixed + "/ca.crt");
  // A bundle holding the signing CA among others is fine.
  std::ofstream(mixed + "/ca.crt", std::ios::app) << std::ifstream(certs.good + "/ca.crt").rdbuf();
  CHECK(LoadGrpcTlsDir(mixed).ok());

  const absl::Status missing = LoadGrpcTlsDir(certs.good + "/no-such-service").status();
  CHECK(absl::IsNotFound(missing));
  CHECK(missing.message().find("no-such-service/ca.crt") != absl::string_view::npos);
}

}  // namespace
}  // namespace tidepool::common
