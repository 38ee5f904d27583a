#include "k8s/event_recorder.h"

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "k8s/object_json.h"

namespace tidepool::k8s {
namespace {

const EventRecorderOptions kOptions{.reporting_controller = "tidepool.dev/test-controller",
                                    .reporting_instance = "test-pod-1"};

ObjectReference NodeSetRef() {
  return ReferenceTo(R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet",
      "metadata":{"name":"h100","namespace":"hpc","uid":"u-1","resourceVersion":"7"}})")
      .value();
}

EventOccurrence Drained(const std::string& note = "drained n-01") {
  return {.regarding = NodeSetRef(),
          .type = EventType::kWarning,
          .reason = "NodeDrained",
          .action = "Drain",
          .note = note};
}

rapidjson::Document Parse(const std::string& json) { return ParseJsonObject(json, "t").value(); }

TEST_CASE("ReferenceTo takes apiVersion, kind and metadata from the object") {
  const ObjectReference ref = NodeSetRef();
  CHECK(ref.api_version == "tidepool.dev/v1alpha1");
  CHECK(ref.kind == "NodeSet");
  CHECK(ref.ns == "hpc");
  CHECK(ref.name == "h100");
  CHECK(ref.uid == "u-1");
  CHECK(ref.resource_version == "7");
  CHECK(ReferenceTo(R"({"metadata":{"name":"x"}})").status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("a first occurrence creates an events.k8s.io/v1 Event") {
  common::FakeClock clock(absl::FromUnixMicros(1796112000123456));
  EventAggregator aggregator(kOptions);
  const PlannedEventWrite write = aggregator.Plan(Drained(), clock.Now());
  CHECK(write.kind == PlannedEventWrite::Kind::kCreate);
  CHECK(write.ns == "hpc");
  CHECK(absl::StartsWith(write.name, "h100."));
  CHECK(write.name.size() > 5);

  const rapidjson::Document event = Parse(write.create_json);
  CHECK(StringMember(event, "apiVersion") == "events.k8s.io/v1");
  CHECK(StringMember(event, "kind") == "Event");
  CHECK(StringMember(event["metadata"], "name") == write.name);
  CHECK(StringMember(event, "eventTime") == "2026-12-01T08:00:00.123456Z");
  CHECK(StringMember(event, "reportingController") == "tidepool.dev/test-controller");
  CHECK(StringMember(event, "reportingInstance") == "test-pod-1");
  CHECK(StringMember(event, "type") == "Warning");
  CHECK(StringMember(event, "reason") == "NodeDrained");
  CHECK(StringMember(event, "action") == "Drain");
  CHECK(StringMember(event, "note") == "drained n-01");
  CHECK(StringMember(event["regarding"], "kind") == "NodeSet");
  CHECK(StringMember(event["regarding"], "namespace") == "hpc");
  CHECK(StringMember(event["regarding"], "uid") == "u-1");
  CHECK_FALSE(event.HasMember("series"));
}

TEST_CASE("repeats within the window update the first Event's series") {
  common::FakeClock clock;
  EventAggregator aggregator(kOptions);
  const PlannedEventWrite first = aggregator.Plan(Drained(), clock.Now());
  clock.Advance(absl::Minutes(5));
  const PlannedEventWrite second = aggregator.Plan(Drained(), clock.Now());
  CHECK(second.kind == PlannedEventWrite::Kind::kUpdateSeries);
  CHECK(second.name == first.name);
  CHECK(second.patch_json == absl::StrCat(R"({"series":{"count":2,"lastObservedTime":")",
                                          FormatMicroTime(clock.Now()), R"("}})"));
  // If the Event has expired meanwhile, it is created again with its series.
  const rapidjson::Document again = Parse(second.create_json);
  CHECK(IntMember(again["series"], "count") == 2);
  CHECK(StringMember(again, "eventTime") == FormatMicroTime(clock.Now() - absl::Minutes(5)));

  clock.Advance(absl::Minutes(5));  // the window runs from the last repeat
  const PlannedEventWrite third = aggregator.Plan(Drained(), clock.Now());
  CHECK(third.kind == PlannedEventWrite::Kind::kUpdateSeries);
  CHECK(absl::StrContains(third.patch_json, R"("count":3)"));
  CHECK(aggregator.tracked() == 1);
}

TEST_CASE("another note, object or a repeat after the window is a new Event") {
  common::FakeClock clock;
  EventAggregator aggregator(kOptions);
  const PlannedEventWrite first = aggregator.Plan(Drained(), clock.Now());
  const PlannedEventWrite other_note = aggregator.Plan(Drained("drained n-02"), clock.Now());
  CHECK(other_note.kind == PlannedEventWrite::Kind::kCreate);
  CHECK(other_note.name != first.name);

  EventOccurrence node = Drained();
  node.regarding = {.api_version = "v1", .kind = "Node", .name = "n-01", .uid = "n"};
  const PlannedEventWrite about_node = aggregator.Plan(node, clock.Now());
  CHECK(about_node.kind == PlannedEventWrite::Kind::kCreate);
  CHECK(about_node.ns == "default");  // cluster-scoped objects' events
  CHECK(absl::StartsWith(about_node.name, "n-01."));

  clock.Advance(absl::Minutes(6));
  const PlannedEventWrite late = aggregator.Plan(Drained(), clock.Now());
  CHECK(late.kind == PlannedEventWrite::Kind::kCreate);
  CHECK(late.name != first.name);
}

TEST_CASE("aggregation memory is bounded: the stalest series is forgotten") {
  common::FakeClock clock;
  EventRecorderOptions options = kOptions;
  options.max_tracked_series = 2;
  EventAggregator aggregator(options);
  aggregator.Plan(Drained("a"), clock.Now());
  clock.Advance(absl::Seconds(1));
  aggregator.Plan(Drained("b"), clock.Now());
  aggregator.Plan(Drained("c"), clock.Now());  // forgets "a"
  CHECK(aggregator.tracked() == 2);
  CHECK(aggregator.Plan(Drained("b"), clock.Now()).kind == PlannedEventWrite::Kind::kUpdateSeries);
  CHECK(aggregator.Plan(Drained("a"), clock.Now()).kind == PlannedEventWrite::Kind::kCreate);
}

TEST_CASE("an over-long note is cut at 1024 bytes on a character boundary") {
  common::FakeClock clock;
  EventAggregator aggregator(kOptions);
  // 1023 ASCII bytes then a 2-byte character: it must not be split.
  const std::string note = std::string(1023, 'x') + "\xC3\xA9" + "tail";
  const rapidjson::Document event = Parse(aggregator.Plan(Drained(note), clock.Now()).create_json);
  CHECK(StringMember(event, "note") == std::string(1023, 'x'));
}

TEST_CASE("Record never blocks: unreachable server, a full queue drops and counts") {
  ClientConfig config;
  config.server = "https://127.0.0.1:1";  // nothing listens: each write fails at once
  config.qps = 0;
  Client client(config);
  absl::Mutex mutex;
  std::vector<absl::Status> errors;
  EventRecorderOptions options = kOptions;
  options.max_pending = 2;
  options.on_error = [&](const absl::Status& s) {
    absl::MutexLock lock(&mutex);
    errors.push_back(s);
  };
  EventRecorder recorder(client, options);
  const absl::Time start = absl::Now();
  for (int i = 0; i < 50; ++i) {
    recorder.Record(NodeSetRef(), EventType::kNormal, "Synced", "Sync", absl::StrCat("n", i));
  }
  CHECK(absl::Now() - start < absl::Milliseconds(200));
  REQUIRE(recorder.Flush(absl::Seconds(30)));
  CHECK(recorder.dropped() > 0);
  CHECK(recorder.dropped() + recorder.failed() == 50);
  absl::MutexLock lock(&mutex);
  REQUIRE(errors.size() == recorder.failed());
  CHECK(errors[0].code() == absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace tidepool::k8s
