// The product's Kubernetes client (libs/k8s) against a real kube-apiserver from
// tools/testenv/k8s, configured from the environment's admin kubeconfig (inline
// certificates, sent from memory).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/errors.h"
#include "k8s/informer.h"
#include "k8s/watch.h"
#include "k8s/workqueue.h"
#include "support/testenv.h"

namespace tidepool::k8s {
namespace {

using testing::KubernetesEnv;

const ResourceType kWidgets{"k8sclient.tidepool.dev", "v1", "clientwidgets", true};
constexpr char kWidgetsCrd[] = "clientwidgets.k8sclient.tidepool.dev";

KubernetesEnv RequireEnv() {
  absl::StatusOr<KubernetesEnv> env = testing::Kubernetes();
  INFO(env.status().ToString());
  REQUIRE(env.ok());
  return *std::move(env);
}

std::unique_ptr<Client> RequireClient(const KubernetesEnv& env) {
  absl::StatusOr<ClientConfig> config = LoadKubeconfig(env.kubeconfig);
  INFO(config.status().ToString());
  REQUIRE(config.ok());
  REQUIRE_FALSE(config->client_cert_pem.empty());
  return std::make_unique<Client>(*std::move(config));
}

// A name no earlier run has used (objects of a failed run may still exist).
std::string UniqueName(absl::string_view prefix) {
  static std::atomic<int> counter{0};
  return absl::StrCat(prefix, "-", getpid(), "-", absl::ToUnixMillis(absl::Now()) % 1000000, "-",
                      counter++);
}

std::string ConfigMap(const std::string& name, const std::string& answer,
                      const std::string& resource_version = "", const std::string& label = "") {
  return absl::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", name, R"(")",
                      resource_version.empty()
                          ? ""
                          : absl::StrCat(R"(,"resourceVersion":")", resource_version, "\""),
                      R"(,"labels":{"app.kubernetes.io/part-of":"tidepool-tests")",
                      label.empty() ? "" : absl::StrCat(R"(,"k8s-client-test":")", label, "\""),
                      "}}", R"(,"data":{"answer":")", answer, R"("}})");
}

template <typename T>
T RequireOk(absl::StatusOr<T> value) {
  INFO(value.status().ToString());
  REQUIRE(value.ok());
  return *std::move(value);
}

// The value of data.answer in a ConfigMap's JSON ("" if none).
std::string Answer(absl::string_view json) {
  const size_t at = json.find(R"("answer":")");
  if (at == absl::string_view::npos) return "";
  const size_t start = at + 10;
  return std::string(json.substr(start, json.find('"', start) - start));
}

// Events as "TYPE name answer" lines, collected from a watch thread.
class EventLog {
 public:
  void Add(const WatchEvent& event) {
    absl::MutexLock lock(&mutex_);
    if (event.type == WatchEventType::kBookmark) {
      ++bookmarks_;
      return;
    }
    if (event.type == WatchEventType::kSynced) {
      ++synced_;
      lines_.push_back("SYNCED");
      return;
    }
    lines_.push_back(absl::StrCat(WatchEventTypeName(event.type), " ", event.meta.name, " ",
                                  Answer(event.object_json), event.synthetic ? " (resync)" : ""));
  }
  void AddError(const absl::Status& status) {
    absl::MutexLock lock(&mutex_);
    errors_.push_back(status);
  }
  // Waits until `done` holds for the lines, at most `timeout`.
  bool WaitFor(const std::function<bool(const std::vector<std::string>&)>& done,
               absl::Duration timeout = absl::Seconds(60)) {
    absl::MutexLock lock(&mutex_);
    auto ready = [&]() ABSL_SHARED_LOCKS_REQUIRED(mutex_) { return done(lines_); };
    return mutex_.AwaitWithTimeout(absl::Condition(&ready), timeout);
  }
  bool WaitForLine(const std::string& line, absl::Duration timeout = absl::Seconds(60)) {
    return WaitFor(
        [&](const std::vector<std::string>& lines) {
          return std::find(lines.begin(), lines.end(), line) != lines.end();
        },
        timeout);
  }
  std::vector<std::string> Lines() {
    absl::MutexLock lock(&mutex_);
    return lines_;
  }
  std::vector<absl::Status> Errors() {
    absl::MutexLock lock(&mutex_);
    return errors_;
  }
  int synced() {
    absl::MutexLock lock(&mutex_);
    return synced_;
  }

 private:
  absl::Mutex mutex_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mutex_);
  std::vector<absl::Status> errors_ ABSL_GUARDED_BY(mutex_);
  int bookmarks_ ABSL_GUARDED_BY(mutex_) = 0;
  int synced_ ABSL_GUARDED_BY(mutex_) = 0;
};

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) absl::StrAppend(&out, line, "\n");
  return out;
}

TEST_CASE("ConfigMap CRUD with typed errors") {
  const KubernetesEnv env = RequireEnv();
  std::unique_ptr<Client> client = RequireClient(env);
  const std::string name = UniqueName("tp-client-crud");
  absl::Cleanup cleanup = [&] { (void)client->Delete(ConfigMaps(), "default", name); };

  const std::string created =
      RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(name, "42")));
  const ObjectMeta meta = RequireOk(ParseObjectMeta(created));
  CHECK(meta.name == name);
  CHECK_FALSE(meta.uid.empty());
  CHECK(Answer(created) == "42");

  const std::string read = RequireOk(client->Get(ConfigMaps(), "default", name));
  CHECK(RequireOk(ParseObjectMeta(read)).uid == meta.uid);

  const absl::Status exists =
      client->Create(ConfigMaps(), "default", ConfigMap(name, "1")).status();
  CHECK(absl::IsAlreadyExists(exists));
  CHECK(ApiReason(exists) == "AlreadyExists");
  CHECK(HttpCode(exists) == 409);

  // Update with the current version, then again with the now stale one: Conflict.
  const std::string updated = RequireOk(
      client->Update(ConfigMaps(), "default", name, ConfigMap(name, "43", meta.resource_version)));
  CHECK(Answer(updated) == "43");
  const absl::Status stale =
      client->Update(ConfigMaps(), "default", name, ConfigMap(name, "44", meta.resource_version))
          .status();
  INFO(stale.ToString());
  CHECK(IsConflict(stale));
  CHECK(ApiReason(stale) == "Conflict");
  CHECK(absl::StrContains(stale.message(), "the object has been modified"));

  // Delete preconditions: the wrong uid is refused, the right one deletes.
  const absl::Status wrong_uid =
      client->Delete(ConfigMaps(), "default", name, {.precondition_uid = "not-the-uid"}).status();
  INFO(wrong_uid.ToString());
  CHECK(IsConflict(wrong_uid));
  REQUIRE(client
              ->Delete(ConfigMaps(), "default", name,
                       {.precondition_uid = meta.uid, .propagation_policy = "Background"})
              .ok());

  const absl::Status gone = client->Get(ConfigMaps(), "default", name).status();
  CHECK(absl::IsNotFound(gone));
  CHECK(ApiReason(gone) == "NotFound");
  CHECK(gone.message() == absl::StrCat("configmaps \"", name, "\" not found"));
  CHECK(absl::IsNotFound(client->Delete(ConfigMaps(), "default", name).status()));

  // 422 with field causes.
  const absl::Status invalid =
      client->Create(ConfigMaps(), "default", ConfigMap("Not_A_Valid_Name", "1")).status();
  INFO(invalid.ToString());
  CHECK(invalid.code() == absl::StatusCode::kInvalidArgument);
  CHECK(IsInvalid(invalid));
  const std::vector<StatusCause> causes = ApiCauses(invalid);
  REQUIRE_FALSE(causes.empty());
  CHECK(causes[0].field == "metadata.name");

  // A namespace that does not exist; a resource the server does not serve.
  CHECK(absl::IsNotFound(client->Get(ConfigMaps(), "no-such-namespace-xyz", "x").status()));
  CHECK(absl::IsNotFound(
      client->List(ResourceType{"nope.tidepool.dev", "v1", "things", true}, "default").status()));
}

TEST_CASE("a client without credentials is Unauthenticated") {
  const KubernetesEnv env = RequireEnv();
  ClientConfig config = RequireOk(LoadKubeconfig(env.kubeconfig));
  config.client_cert_pem.clear();
  config.client_key_pem.clear();
  Client anonymous(config);
  const absl::Status status = anonymous.List(ConfigMaps(), "default").status();
  INFO(status.ToString());
  CHECK((status.code() == absl::StatusCode::kUnauthenticated ||
         status.code() == absl::StatusCode::kPermissionDenied));

  // A CA that did not sign the server's certificate: TLS verification fails.
  config = RequireOk(LoadKubeconfig(env.kubeconfig));
  config.ca_pem.clear();  // the system store
  config.timeout = absl::Seconds(10);
  CHECK(Client(config).Get(ConfigMaps(), "default", "x").status().code() ==
        absl::StatusCode::kUnavailable);

  // tls-server-name: the certificate is checked for that name, the connection goes to the
  // configured address.
  config = RequireOk(LoadKubeconfig(env.kubeconfig));
  config.tls_server_name = "kubernetes.default.svc";
  const absl::Status by_name = Client(config).Get(ConfigMaps(), "default", "x").status();
  INFO(by_name.ToString());
  CHECK(absl::IsNotFound(by_name));
  config.tls_server_name = "not-in-the-certificate.example";
  CHECK(Client(config).Get(ConfigMaps(), "default", "x").status().code() ==
        absl::StatusCode::kUnavailable);
}

TEST_CASE("requests pass the rate limiter and honour their timeouts") {
  const KubernetesEnv env = RequireEnv();
  ClientConfig config = RequireOk(LoadKubeconfig(env.kubeconfig));
  config.qps = 10;
  config.burst = 2;
  common::FakeClock clock;
  Client client(config, &clock);
  for (int i = 0; i < 5; ++i) {
    CHECK(absl::IsNotFound(client.Get(ConfigMaps(), "default", "tp-client-no-such").status()));
  }
  // Two from the burst, then three waits of 1/qps on the injected clock.
  CHECK(absl::AbsDuration(clock.TotalSlept() - absl::Milliseconds(300)) < absl::Milliseconds(1));

  // A request that cannot finish within its timeout (a watch with nothing to report,
  // sent as a plain request) is cut off.
  const absl::Time start = absl::Now();
  const absl::Status timed_out =
      client
          .Call({.method = "GET",
                 .path = "/api/v1/namespaces/default/configmaps?watch=1&fieldSelector="
                         "metadata.name%3Dtp-client-never",
                 .timeout = absl::Milliseconds(300)})
          .status();
  INFO(timed_out.ToString());
  CHECK(absl::Now() - start < absl::Seconds(5));
  CHECK(timed_out.code() == absl::StatusCode::kDeadlineExceeded);
}

TEST_CASE("list pagination: 25 ConfigMaps in pages of 10") {
  const KubernetesEnv env = RequireEnv();
  std::unique_ptr<Client> client = RequireClient(env);
  const std::string run = UniqueName("page");
  std::vector<std::string> names;
  absl::Cleanup cleanup = [&] {
    for (const std::string& name : names) (void)client->Delete(ConfigMaps(), "default", name);
  };
  // Concurrent creates: the client is shared by threads.
  for (int i = 0; i < 25; ++i) names.push_back(absl::StrCat(run, "-", i));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 5; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < 25; i += 5) {
        if (!client->Create(ConfigMaps(), "default", ConfigMap(names[i], "p", "", run)).ok()) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  REQUIRE(failures == 0);

  const std::string selector = absl::StrCat("k8s-client-test=", run);
  std::vector<size_t> page_sizes;
  std::vector<std::string> seen;
  ListOptions options{.label_selector = selector, .limit = 10};
  std::string first_version;
  do {
    const ListResult page = RequireOk(client->List(ConfigMaps(), "default", options));
    if (first_version.empty()) first_version = page.resource_version;
    CHECK_FALSE(page.resource_version.empty());
    page_sizes.push_back(page.items.size());
    for (const std::string& item : page.items)
      seen.push_back(RequireOk(ParseObjectMeta(item)).name);
    options.continue_token = page.continue_token;
  } while (!options.continue_token.empty() && page_sizes.size() < 10);
  CHECK(page_sizes == std::vector<size_t>{10, 10, 5});
  std::sort(seen.begin(), seen.end());
  std::vector<std::string> expected = names;
  std::sort(expected.begin(), expected.end());
  CHECK(seen == expected);

  const ListResult all =
      RequireOk(client->ListAll(ConfigMaps(), "default", {.label_selector = selector, .limit = 7}));
  CHECK(all.items.size() == 25);
  CHECK_FALSE(all.resource_version.empty());
  // Items carry kind and apiVersion, as single objects do.
  CHECK(absl::StrContains(all.items[0], R"("kind":"ConfigMap")"));

  const absl::Status bad_token =
      client->List(ConfigMaps(), "default", {.limit = 1, .continue_token = "garbage"}).status();
  CHECK(bad_token.code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("merge patch and server-side apply") {
  const KubernetesEnv env = RequireEnv();
  std::unique_ptr<Client> client = RequireClient(env);
  const std::string name = UniqueName("tp-client-apply");
  absl::Cleanup cleanup = [&] { (void)client->Delete(ConfigMaps(), "default", name); };

  const std::string manifest = absl::StrCat(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: )",
                                            name, R"(
  labels:
    app.kubernetes.io/part-of: tidepool-tests
data:
  answer: "1"
  owner: first
)");
  const std::string applied = RequireOk(
      client->Apply(ConfigMaps(), "default", name, manifest, {.field_manager = "tidepool-first"}));
  CHECK(Answer(applied) == "1");
  CHECK(absl::StrContains(applied, R"("manager":"tidepool-first")"));

  // Another manager changing a field the first owns conflicts unless it forces.
  const std::string takeover =
      absl::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", name,
                   R"("},"data":{"answer":"2"}})");
  const absl::Status conflict =
      client->Apply(ConfigMaps(), "default", name, takeover, {.field_manager = "tidepool-second"})
          .status();
  INFO(conflict.ToString());
  CHECK(IsConflict(conflict));
  CHECK(absl::StrContains(conflict.message(), "tidepool-first"));
  const std::string forced =
      RequireOk(client->Apply(ConfigMaps(), "default", name, takeover,
                              {.field_manager = "tidepool-second", .force = true}));
  CHECK(Answer(forced) == "2");
  CHECK(absl::StrContains(forced, R"("owner":"first")"));

  CHECK(client->Apply(ConfigMaps(), "default", name, takeover, {}).status().code() ==
        absl::StatusCode::kInvalidArgument);

  // A merge patch sets one key and removes another (null).
  const std::string patched = RequireOk(
      client->MergePatch(ConfigMaps(), "default", name, R"({"data":{"answer":"3","owner":null}})"));
  CHECK(Answer(patched) == "3");
  CHECK_FALSE(absl::StrContains(patched, "owner"));

  const absl::Status bad_patch =
      client->MergePatch(ConfigMaps(), "default", name, "{not json").status();
  CHECK(bad_patch.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::IsNotFound(
      client->MergePatch(ConfigMaps(), "default", name + "-missing", R"({"data":{}})").status()));

  // A merge patch carrying metadata.uid writes only the object of that uid (pod-scheduler
  // annotates a pod's job id so): another object of the same name refuses it, unchanged.
  const absl::Status other_uid =
      client
          ->MergePatch(ConfigMaps(), "default", name,
                       R"({"metadata":{"uid":"00000000-0000-0000-0000-000000000000"},)"
                       R"("data":{"answer":"4"}})")
          .status();
  INFO(other_uid.ToString());
  CHECK(IsInvalid(other_uid));  // 422: metadata.uid is immutable
  CHECK(absl::StrContains(other_uid.message(), "metadata.uid"));
  CHECK(Answer(RequireOk(client->Get(ConfigMaps(), "default", name))) == "3");
  absl::StatusOr<ObjectMeta> meta = ParseObjectMeta(patched);
  REQUIRE(meta.ok());
  CHECK(Answer(RequireOk(client->MergePatch(ConfigMaps(), "default", name,
                                            absl::StrCat(R"({"metadata":{"uid":")", meta->uid,
                                                         R"("},"data":{"answer":"5"}})")))) == "5");
}

TEST_CASE("status and scale subresources of a custom resource") {
  const KubernetesEnv env = RequireEnv();
  std::unique_ptr<Client> client = RequireClient(env);
  absl::StatusOr<testing::CommandResult> applied =
      testing::Kubectl(env, {"apply", "-f", TIDEPOOL_WIDGETS_CRD});
  REQUIRE(applied.ok());
  INFO(applied->output);
  REQUIRE(applied->exit_code == 0);
  absl::StatusOr<testing::CommandResult> established =
      testing::Kubectl(env, {"wait", "--for", "condition=established", "--timeout=60s",
                             absl::StrCat("crd/", kWidgetsCrd)});
  REQUIRE(established.ok());
  REQUIRE(established->exit_code == 0);
  // The CRD itself through the client (cluster-scoped, another group).
  const std::string crd = RequireOk(client->Get(CustomResourceDefinitions(), "", kWidgetsCrd));
  CHECK(absl::StrContains(crd, "\"Established\""));

  const std::string name = UniqueName("widget");
  absl::Cleanup cleanup = [&] { (void)client->Delete(kWidgets, "default", name); };
  const std::string widget = absl::StrCat(
      R"({"apiVersion":"k8sclient.tidepool.dev/v1","kind":"ClientWidget","metadata":{"name":")",
      name, R"("},"spec":{"replicas":2,"color":"blue"}})");
  // The server may need a moment after Established before it serves the new type.
  absl::StatusOr<std::string> created = client->Create(kWidgets, "default", widget);
  for (int i = 0; i < 20 && absl::IsNotFound(created.status()); ++i) {
    absl::SleepFor(absl::Milliseconds(250));
    created = client->Create(kWidgets, "default", widget);
  }
  const ObjectMeta meta = RequireOk(ParseObjectMeta(RequireOk(created)));
  CHECK(meta.generation == 1);

  // Status: written through /status, which ignores spec changes.
  const std::string with_status = RequireOk(client->MergePatch(
      kWidgets, "default", name,
      R"({"spec":{"color":"red"},"status":{"replicas":1,"selector":"app=w","phase":"Scaling"}})",
      {}, "status"));
  CHECK(absl::StrContains(with_status, R"("phase":"Scaling")"));
  CHECK(absl::StrContains(with_status, R"("color":"blue")"));
  // A status PUT with the object's current version.
  const ObjectMeta after_patch = RequireOk(ParseObjectMeta(with_status));
  const std::string put_status = absl::StrCat(
      R"({"apiVersion":"k8sclient.tidepool.dev/v1","kind":"ClientWidget","metadata":{"name":")",
      name, R"(","resourceVersion":")", after_patch.resource_version,
      R"("},"spec":{"replicas":2,"color":"blue"},"status":{"replicas":2,"selector":"app=w",)"
      R"("phase":"Ready"}})");
  CHECK(absl::StrContains(RequireOk(client->UpdateStatus(kWidgets, "default", name, put_status)),
                          R"("phase":"Ready")"));
  CHECK(IsConflict(client->UpdateStatus(kWidgets, "default", name, put_status).status()));
  // The main resource ignores status.
  const std::string main_write = RequireOk(client->MergePatch(
      kWidgets, "default", name, R"({"spec":{"color":"green"},"status":{"phase":"Ignored"}})"));
  CHECK(absl::StrContains(main_write, R"("phase":"Ready")"));
  CHECK(absl::StrContains(main_write, R"("color":"green")"));

  // Scale.
  const Scale scale = RequireOk(client->GetScale(kWidgets, "default", name));
  CHECK(scale.spec_replicas == 2);
  CHECK(scale.status_replicas == 2);
  CHECK(scale.selector == "app=w");
  const Scale scaled = RequireOk(client->SetReplicas(kWidgets, "default", name, 5));
  CHECK(scaled.spec_replicas == 5);
  CHECK(absl::StrContains(RequireOk(client->Get(kWidgets, "default", name)), R"("replicas":5)"));
  CHECK(absl::IsNotFound(client->GetScale(ConfigMaps(), "default", name).status()));
}

TEST_CASE("a watch sees ADDED, MODIFIED and DELETED in order and stops promptly") {
  const KubernetesEnv env = RequireEnv();
  std::unique_ptr<Client> client = RequireClient(env);
  const std::string name = UniqueName("tp-client-watch");
  absl::Cleanup cleanup = [&] { (void)client->Delete(ConfigMaps(), "default", name); };

  const ListResult list = RequireOk(client->List(
      ConfigMaps(), "default", {.field_selector = absl::StrCat("metadata.name=", name)}));
  EventLog log;
  auto watch = std::make_unique<BackgroundWatch>(
      *client, ConfigMaps(), "default",
      WatchOptions{.field_selector = absl::StrCat("metadata.name=", name),
                   .resource_version = list.resource_version,
                   .on_error = [&](const absl::Status& s) { log.AddError(s); }},
      [&](const WatchEvent& event) { log.Add(event); });

  const std::string created =
      RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(name, "1")));
  RequireOk(client->MergePatch(ConfigMaps(), "default", name, R"({"data":{"answer":"2"}})"));
  RequireOk(client->Delete(ConfigMaps(), "default", name));
  const std::vector<std::string> expected = {absl::StrCat("ADDED ", name, " 1"),
                                             absl::StrCat("MODIFIED ", name, " 2"),
                                             absl::StrCat("DELETED ", name, " 2")};
  CHECK(log.WaitFor([](const std::vector<std::string>& lines) { return lines.size() >= 3; }));
  CHECK(log.Lines() == expected);

  const absl::Time stop_start = absl::Now();
  watch.reset();  // stops and joins
  CHECK(absl::Now() - stop_start < absl::Milliseconds(500));
  CHECK(log.Errors().empty());
  CHECK(log.Lines() == expected);
}

TEST_CASE("a watch that lists first delivers the state, then changes") {
  const KubernetesEnv env = RequireEnv();
  std::unique_ptr<Client> client = RequireClient(env);
  const std::string run = UniqueName("tp-client-listwatch");
  const std::string a = run + "-a";
  const std::string b = run + "-b";
  absl::Cleanup cleanup = [&] {
    (void)client->Delete(ConfigMaps(), "default", a);
    (void)client->Delete(ConfigMaps(), "default", b);
  };
  RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(a, "1", "", run)));
  EventLog log;
  BackgroundWatch watch(
      *client, ConfigMaps(), "default",
      WatchOptions{.label_selector = absl::StrCat("k8s-client-test=", run), .list_page_size = 1},
      [&](const WatchEvent& event) { log.Add(event); });
  CHECK(log.WaitForLine("SYNCED"));
  RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(b, "2", "", run)));
  CHECK(log.WaitForLine(absl::StrCat("ADDED ", b, " 2")));
  CHECK(log.Lines() == std::vector<std::string>{absl::StrCat("ADDED ", a, " 1 (resync)"), "SYNCED",
                                                absl::StrCat("ADDED ", b, " 2")});
}

TEST_CASE("a watch survives an API server restart without losing or repeating events") {
  const KubernetesEnv env = RequireEnv();
  std::unique_ptr<Client> client = RequireClient(env);
  const std::string run = UniqueName("tp-client-restart");
  const std::string a = run + "-a";
  const std::string b = run + "-b";
  absl::Cleanup cleanup = [&] {
    (void)client->Delete(ConfigMaps(), "default", a);
    (void)client->Delete(ConfigMaps(), "default", b);
  };
  const std::string selector = absl::StrCat("k8s-client-test=", run);
  const ListResult list =
      RequireOk(client->List(ConfigMaps(), "default", {.label_selector = selector}));
  EventLog log;
  BackgroundWatch watch(*client, ConfigMaps(), "default",
                        WatchOptions{.label_selector = selector,
                                     .resource_version = list.resource_version,
                                     .max_backoff = absl::Seconds(2),
                                     .on_error = [&](const absl::Status& s) { log.AddError(s); }},
                        [&](const WatchEvent& event) { log.Add(event); });
  RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(a, "1", "", run)));
  REQUIRE(log.WaitForLine(absl::StrCat("ADDED ", a, " 1")));

  absl::StatusOr<testing::CommandResult> restarted = testing::RunCommand(
      {testing::SourceRoot() + "/tools/testenv/k8s/restart-apiserver", "--down-for", "2"},
      absl::Seconds(120));
  REQUIRE(restarted.ok());
  INFO(restarted->output);
  REQUIRE(restarted->exit_code == 0);

  // Changes after the restart arrive once each, in order.
  absl::StatusOr<std::string> modified =
      client->MergePatch(ConfigMaps(), "default", a, R"({"data":{"answer":"2"}})");
  for (int i = 0; i < 20 && !modified.ok(); ++i) {  // the server may still be settling
    absl::SleepFor(absl::Milliseconds(500));
    modified = client->MergePatch(ConfigMaps(), "default", a, R"({"data":{"answer":"2"}})");
  }
  RequireOk(std::move(modified));
  RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(b, "3", "", run)));
  RequireOk(client->Delete(ConfigMaps(), "default", a));
  const std::string last = absl::StrCat("DELETED ", a, " 2");
  INFO(Join(log.Lines()));
  REQUIRE(log.WaitForLine(last, absl::Seconds(90)));
  absl::SleepFor(absl::Milliseconds(500));  // nothing more may come
  std::vector<std::string> lines = log.Lines();
  // A restart may answer with 410 and a relist instead of a resumed stream; either way
  // the consumer sees each change once (a resync only reports what it had not seen).
  std::vector<std::string> real;
  for (const std::string& line : lines) {
    if (line != "SYNCED") real.push_back(line);
  }
  INFO(Join(lines));
  CHECK(real == std::vector<std::string>{absl::StrCat("ADDED ", a, " 1"),
                                         absl::StrCat("MODIFIED ", a, " 2"),
                                         absl::StrCat("ADDED ", b, " 3"), last});
  CHECK_FALSE(log.Errors().empty());  // the drop was noticed
}

// A watch from a resourceVersion that etcd has compacted away (tools/testenv/k8s/compact
// forces that; the API server is restarted with it, since its watch cache would otherwise
// keep serving old versions from memory) gets 410 Gone, relists, and tells the consumer
// exactly what changed meanwhile: nothing lost, nothing repeated.
TEST_CASE("a watch from a compacted resourceVersion relists and resyncs") {
  const KubernetesEnv env = RequireEnv();
  std::unique_ptr<Client> client = RequireClient(env);
  const std::string run = UniqueName("tp-client-expired");
  const std::string keep = run + "-keep";
  const std::string changed = run + "-changed";
  const std::string fresh = run + "-fresh";
  const std::string vanished = run + "-vanished";
  const std::string later = run + "-later";
  absl::Cleanup cleanup = [&] {
    for (const std::string& n : {keep, changed, fresh, vanished, later}) {
      (void)client->Delete(ConfigMaps(), "default", n);
    }
  };
  // What the consumer knew, at the version of its last write: keep, changed (older) and
  // vanished.
  const std::string keep_json =
      RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(keep, "k", "", run)));
  const std::string changed_old =
      RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(changed, "old", "", run)));
  const std::string vanished_json =
      RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(vanished, "v", "", run)));
  const std::string known_version = RequireOk(ParseObjectMeta(vanished_json)).resource_version;
  // Meanwhile: one changes, one vanishes, one is new.
  RequireOk(client->MergePatch(ConfigMaps(), "default", changed, R"({"data":{"answer":"new"}})"));
  RequireOk(client->Delete(ConfigMaps(), "default", vanished));
  RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(fresh, "f", "", run)));

  const testing::CommandResult compacted = RequireOk(testing::RunCommand(
      {testing::SourceRoot() + "/tools/testenv/k8s/compact", "--restart-apiserver"},
      absl::Seconds(120)));
  INFO(compacted.output);
  REQUIRE(compacted.exit_code == 0);
  // The version is gone even for a plain list at exactly that version.
  const absl::Status expired_list =
      client
          ->List(ConfigMaps(), "default",
                 {.resource_version = known_version, .resource_version_match = "Exact"})
          .status();
  INFO(expired_list.ToString());
  CHECK(IsGone(expired_list));

  EventLog log;
  const std::string selector = absl::StrCat("k8s-client-test=", run);
  BackgroundWatch watch(*client, ConfigMaps(), "default",
                        WatchOptions{.label_selector = selector,
                                     .resource_version = known_version,
                                     .initial_objects = {keep_json, changed_old, vanished_json},
                                     .max_backoff = absl::Seconds(2),
                                     .on_error = [&](const absl::Status& s) { log.AddError(s); }},
                        [&](const WatchEvent& event) { log.Add(event); });
  REQUIRE(log.WaitForLine("SYNCED"));
  RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(later, "l", "", run)));
  REQUIRE(log.WaitForLine(absl::StrCat("ADDED ", later, " l")));
  absl::SleepFor(absl::Milliseconds(500));  // nothing more may come
  INFO(Join(log.Lines()));
  // The list is read a page at a time: what vanished is known after its last page.
  CHECK(log.Lines() == std::vector<std::string>{
                           absl::StrCat("MODIFIED ", changed, " new (resync)"),
                           absl::StrCat("ADDED ", fresh, " f (resync)"),
                           absl::StrCat("DELETED ", vanished, " v (resync)"),
                           "SYNCED",
                           absl::StrCat("ADDED ", later, " l"),
                       });
  CHECK(log.synced() == 1);  // one relist, then a resumed watch
  // The relist was caused by 410 (a restarting server may first answer 429 or refuse).
  const std::vector<absl::Status> errors = log.Errors();
  std::string error_text;
  for (const absl::Status& e : errors) absl::StrAppend(&error_text, e.ToString(), "\n");
  INFO(error_text);
  CHECK(std::any_of(errors.begin(), errors.end(),
                    [](const absl::Status& e) { return IsGone(e) && HttpCode(e) == 410; }));
}

TEST_CASE("an informer caches, indexes and feeds a work queue") {
  const KubernetesEnv env = RequireEnv();
  std::unique_ptr<Client> client = RequireClient(env);
  const std::string run = UniqueName("tp-client-informer");
  std::vector<std::string> names = {run + "-a", run + "-b", run + "-c"};
  absl::Cleanup cleanup = [&] {
    for (const std::string& name : names) (void)client->Delete(ConfigMaps(), "default", name);
  };
  RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(names[0], "1", "", run)));
  RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(names[1], "2", "", run)));

  WorkQueue queue(common::RealClock());
  InformerFactory factory(*client);
  const InformerOptions options{.label_selector = absl::StrCat("k8s-client-test=", run)};
  Informer& informer = factory.For(ConfigMaps(), "default", options);
  CHECK(&factory.For(ConfigMaps(), "default", options) == &informer);  // shared
  CHECK(&factory.For(ConfigMaps(), "kube-system", options) != &informer);
  std::atomic<int> updates{0};
  std::atomic<int> deletes{0};
  informer.AddHandlers({
      .on_add = [&](const CachedObjectPtr& o) { queue.Add(o->meta.Key()); },
      .on_update =
          [&](const CachedObjectPtr&, const CachedObjectPtr& o) {
            ++updates;
            queue.Add(o->meta.Key());
          },
      .on_delete =
          [&](const CachedObjectPtr& o) {
            ++deletes;
            queue.Add(o->meta.Key());
          },
  });
  factory.Start();
  REQUIRE(factory.WaitForSync(absl::Seconds(30)));
  CHECK(informer.HasSynced());
  CHECK(informer.List().size() == 2);
  CHECK(informer.ListByLabel("k8s-client-test", run).size() == 2);
  CHECK(informer.ListNamespace("default").size() == 2);
  REQUIRE(informer.Get("default", names[0]) != nullptr);
  CHECK(Answer(informer.Get("default", names[0])->json) == "1");

  RequireOk(client->Create(ConfigMaps(), "default", ConfigMap(names[2], "3", "", run)));
  RequireOk(client->MergePatch(ConfigMaps(), "default", names[0], R"({"data":{"answer":"9"}})"));
  RequireOk(client->Delete(ConfigMaps(), "default", names[1]));

  // A worker drains the queue, reading the cache for each key (level-triggered).
  std::set<std::string> keys;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while ((updates < 1 || deletes < 1 || keys.size() < 3) && absl::Now() < deadline) {
    std::optional<std::string> key = queue.TryGet();
    if (!key) {
      absl::SleepFor(absl::Milliseconds(20));
      continue;
    }
    keys.insert(*key);
    queue.Forget(*key);
    queue.Done(*key);
  }
  CHECK(keys ==
        std::set<std::string>{"default/" + names[0], "default/" + names[1], "default/" + names[2]});
  CHECK(updates == 1);
  CHECK(deletes == 1);
  CHECK(informer.Get("default", names[1]) == nullptr);
  REQUIRE(informer.Get("default", names[0]) != nullptr);
  CHECK(Answer(informer.Get("default", names[0])->json) == "9");
  CHECK(informer.List().size() == 2);
  factory.Stop();
}

}  // namespace
}  // namespace tidepool::k8s
