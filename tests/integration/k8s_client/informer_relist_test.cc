// An informer relists on request against a real API server: the watch's current stream
// ends at once (not at its server timeout), every object is delivered again and read anew
// by parse_view (unchanged ones too), the request counts as answered only after that, and
// the watch goes on delivering changes afterwards.
#include <unistd.h>

#include <any>
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/informer.h"
#include "support/testenv.h"

namespace tidepool::k8s {
namespace {

constexpr int kObjects = 20;

// Polls `done` every 20 ms until it holds or `timeout` passes.
template <typename Done>
bool WaitFor(Done done, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!done()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return true;
}

// Whether every cached object's view is `reading` (the parse that stored it).
bool AllReadAs(Informer& informer, int reading) {
  for (const CachedObjectPtr& object : informer.List()) {
    const int* view = object->ViewAs<int>();
    if (view == nullptr || *view != reading) return false;
  }
  return true;
}

TEST_CASE("a requested relist reads every object again, at once, and the watch goes on") {
  absl::StatusOr<testing::KubernetesEnv> env = testing::Kubernetes();
  REQUIRE(env.ok());
  Client client(LoadKubeconfig(env->kubeconfig).value());
  const std::string run =
      absl::StrCat("tp-relist-", getpid(), "-", absl::ToUnixMillis(absl::Now()) % 1000000);
  const std::string selector = "k8s-relist-test=" + run;
  absl::Cleanup cleanup = [&] {
    for (int i = 0; i < kObjects; ++i) {
      (void)client.Delete(ConfigMaps(), "default", absl::StrCat(run, "-", i));
    }
  };
  for (int i = 0; i < kObjects; ++i) {
    REQUIRE(client
                .Create(ConfigMaps(), "default",
                        absl::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":)",
                                     R"({"name":")", run, "-", i,
                                     R"(","labels":{"k8s-relist-test":")", run, R"("}}})"))
                .ok());
  }

  std::atomic<int> reading{0};  // what parse_view stores: changed to see objects read anew
  InformerOptions options{
      .label_selector = selector,
      .parse_view = [&reading](absl::string_view) -> std::any { return reading.load(); }};
  options.watch.server_timeout_seconds = 240;  // a stream that ends on its own much later
  options.watch.list_page_size = 7;            // the relist comes in pages
  Informer informer(client, ConfigMaps(), "", options);
  std::atomic<int> updates{0};
  informer.AddHandlers(
      {.on_update = [&](const CachedObjectPtr&, const CachedObjectPtr&) { ++updates; }});
  informer.Start();
  REQUIRE(informer.WaitForSync(absl::Seconds(30)));
  REQUIRE(informer.List().size() == kObjects);
  CHECK(AllReadAs(informer, 0));
  absl::SleepFor(absl::Milliseconds(500));  // the watch stream is running now

  reading = 1;
  const absl::Time requested = absl::Now();
  const uint64_t request = informer.RequestRelist();
  CHECK(request == 1);
  CHECK(WaitFor([&] { return informer.RelistAnswered(request); }, absl::Seconds(60)));
  const absl::Duration answered = absl::Now() - requested;
  INFO("answered after " << absl::FormatDuration(answered));
  CHECK(answered < absl::Seconds(30));  // not at the stream's end (240 s)
  // Answered means handled: every object was read again and updated, though none changed.
  CHECK(AllReadAs(informer, 1));
  CHECK(updates == kObjects);
  CHECK_FALSE(informer.RelistAnswered(request + 1));

  // The watch continues from the relist: a change still arrives.
  reading = 2;
  const std::string changed = absl::StrCat("default/", run, "-3");
  REQUIRE(client
              .MergePatch(ConfigMaps(), "default", absl::StrCat(run, "-3"),
                          R"({"data":{"v":"after the relist"}})")
              .ok());
  CHECK(WaitFor(
      [&] {
        CachedObjectPtr object = informer.Get(changed);
        return object != nullptr && object->ViewAs<int>() != nullptr && *object->ViewAs<int>() == 2;
      },
      absl::Seconds(30)));
  CHECK(updates == kObjects + 1);
}

}  // namespace
}  // namespace tidepool::k8s
