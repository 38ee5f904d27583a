// An informer stays consistent with the API server under load: 5,000 creates, updates
// and deletes of ConfigMaps in three namespaces, from four threads at once, while the
// informer runs; afterwards its cache equals a fresh LIST (names, resourceVersions and
// data) and its handlers saw every object that exists come and every deleted one go.
#include <unistd.h>

#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/errors.h"
#include "k8s/informer.h"
#include "k8s/object_json.h"
#include "support/testenv.h"

namespace tidepool::k8s {
namespace {

constexpr int kChanges = 5000;
constexpr int kThreads = 4;
constexpr int kNamesPerThread = 40;
const std::vector<std::string> kNamespaces = {"tidepool-test-a", "tidepool-test-b",
                                              "tidepool-test-c"};

// What the test compares: per key, the resourceVersion and the data (as JSON).
using State = std::map<std::string, std::pair<std::string, std::string>>;

std::pair<std::string, std::string> VersionAndData(const std::string& json) {
  const rapidjson::Document doc = ParseJsonObject(json, "ConfigMap").value();
  const rapidjson::Value* data = FindMember(doc, "data");
  return {MetaFromValue(doc).resource_version, data == nullptr ? "" : ToJson(*data)};
}

State StateOf(const std::vector<std::string>& objects) {
  State state;
  for (const std::string& json : objects) {
    state[ParseObjectMeta(json)->Key()] = VersionAndData(json);
  }
  return state;
}

State CacheState(Informer& informer) {
  std::vector<std::string> objects;
  for (const CachedObjectPtr& object : informer.List()) objects.push_back(object->json);
  return StateOf(objects);
}

void EnsureNamespace(Client& client, const std::string& ns) {
  const absl::Status status =
      client
          .Create(Namespaces(), "",
                  absl::StrCat(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")", ns,
                               R"("}})"))
          .status();
  INFO(status.ToString());
  REQUIRE((status.ok() || absl::IsAlreadyExists(status)));
}

// One writer: a random mix of creates, updates and deletes over names only it uses (so
// its writes never conflict with another writer's, and every one must succeed).
struct Writer {
  Client& client;
  std::string run;
  int id;
  std::atomic<int>& failures;
  std::string first_failure;

  void Run(int changes) {
    std::mt19937 random(id);
    std::vector<bool> exists(kNamesPerThread, false);
    for (int change = 0; change < changes; ++change) {
      const int i = static_cast<int>(random() % kNamesPerThread);
      const std::string& ns = kNamespaces[i % kNamespaces.size()];
      const std::string name = absl::StrCat(run, "-w", id, "-", i);
      absl::Status status;
      if (!exists[i]) {
        status =
            client
                .Create(ConfigMaps(), ns,
                        absl::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":)",
                                     R"({"name":")", name, R"(","labels":{"k8s-informer-test":")",
                                     run, R"("}},"data":{"v":")", change, R"("}})"))
                .status();
        exists[i] = status.ok();
      } else if (random() % 10 < 7) {
        status = client
                     .MergePatch(ConfigMaps(), ns, name,
                                 absl::StrCat(R"({"data":{"v":")", change, R"("}})"))
                     .status();
      } else {
        status = client.Delete(ConfigMaps(), ns, name).status();
        exists[i] = !status.ok();
      }
      if (!status.ok() && failures++ == 0) first_failure = status.ToString();
    }
  }
};

TEST_CASE("an informer's cache equals a fresh list after 5,000 concurrent changes") {
  absl::StatusOr<testing::KubernetesEnv> env = testing::Kubernetes();
  REQUIRE(env.ok());
  ClientConfig config = LoadKubeconfig(env->kubeconfig).value();
  config.qps = 0;  // the API server is the limit here, not the client
  Client client(config);
  for (const std::string& ns : kNamespaces) EnsureNamespace(client, ns);
  const std::string run =
      absl::StrCat("tp-consistency-", getpid(), "-", absl::ToUnixMillis(absl::Now()) % 1000000);
  const std::string selector = "k8s-informer-test=" + run;
  absl::Cleanup cleanup = [&] {
    absl::StatusOr<ListResult> left =
        client.ListAll(ConfigMaps(), "", {.label_selector = selector});
    if (!left.ok()) return;
    for (const std::string& json : left->items) {
      const ObjectMeta meta = *ParseObjectMeta(json);
      (void)client.Delete(ConfigMaps(), meta.ns, meta.name);
    }
  };

  std::atomic<int> watch_errors{0};
  InformerOptions options{.label_selector = selector};
  options.watch.on_error = [&](const absl::Status&) { ++watch_errors; };
  Informer informer(client, ConfigMaps(), "", options);
  absl::Mutex mutex;
  std::set<std::string> live;  // as the handlers tell it
  int adds = 0, updates = 0, deletes = 0;
  informer.AddHandlers({
      .on_add =
          [&](const CachedObjectPtr& o) {
            absl::MutexLock lock(&mutex);
            ++adds;
            live.insert(o->meta.Key());
          },
      .on_update =
          [&](const CachedObjectPtr&, const CachedObjectPtr&) {
            absl::MutexLock lock(&mutex);
            ++updates;
          },
      .on_delete =
          [&](const CachedObjectPtr& o) {
            absl::MutexLock lock(&mutex);
            ++deletes;
            live.erase(o->meta.Key());
          },
  });
  informer.Start();
  REQUIRE(informer.WaitForSync(absl::Seconds(30)));

  const absl::Time start = absl::Now();
  std::atomic<int> failures{0};
  std::vector<std::unique_ptr<Writer>> writers;
  std::vector<std::thread> threads;
  for (int id = 0; id < kThreads; ++id) {
    writers.push_back(std::make_unique<Writer>(Writer{client, run, id, failures, ""}));
    threads.emplace_back([&, id] { writers[id]->Run(kChanges / kThreads); });
  }
  for (std::thread& thread : threads) thread.join();
  const absl::Duration writing = absl::Now() - start;
  std::string first_failures;
  for (const auto& writer : writers) absl::StrAppend(&first_failures, writer->first_failure, "\n");
  INFO(first_failures);
  REQUIRE(failures == 0);

  const ListResult list = client.ListAll(ConfigMaps(), "", {.label_selector = selector}).value();
  const State expected = StateOf(list.items);
  REQUIRE_FALSE(expected.empty());
  // No writes remain: the cache must reach exactly the listed state.
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  State cached = CacheState(informer);
  while (cached != expected && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(100));
    cached = CacheState(informer);
  }
  const absl::Duration caught_up = absl::Now() - start;
  std::printf(
      "informer consistency: %d changes by %d threads in %s (%.0f/s), cache equal "
      "to a fresh list of %zu objects after %s\n",
      kChanges, kThreads, absl::FormatDuration(writing).c_str(),
      kChanges / absl::ToDoubleSeconds(writing), expected.size(),
      absl::FormatDuration(caught_up).c_str());
  CHECK(cached.size() == expected.size());
  CHECK(cached == expected);

  absl::MutexLock lock(&mutex);
  std::set<std::string> listed_keys;
  for (const auto& [key, value] : expected) listed_keys.insert(key);
  CHECK(live == listed_keys);
  CHECK(adds - deletes == static_cast<int>(expected.size()));
  // Every change seen once, none repeated: exact while the watch ran without a break (a
  // relist after one reports only the difference, which the equality above covers).
  INFO("watch errors: " << watch_errors);
  if (watch_errors == 0) CHECK(adds + updates + deletes == kChanges);
}

}  // namespace
}  // namespace tidepool::k8s
