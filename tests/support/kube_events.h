#pragma once

// The Events a controller recorded (events.k8s.io/v1), for assertions.

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "k8s/client.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "rapidjson/document.h"

namespace tidepool::testing {

// The notes of the Events in namespace `ns` with this reason, oldest series first.
inline std::vector<std::string> EventNotes(k8s::Client& client, const std::string& ns,
                                           const std::string& reason) {
  absl::StatusOr<k8s::ListResult> list = client.ListAll(k8s::EventsV1(), ns);
  REQUIRE(list.ok());
  std::vector<std::string> notes;
  for (const std::string& item : list->items) {
    absl::StatusOr<rapidjson::Document> event = k8s::ParseJsonObject(item, "event");
    REQUIRE(event.ok());
    if (k8s::StringMember(*event, "reason") == reason) {
      notes.push_back(k8s::StringMember(*event, "note"));
    }
  }
  return notes;
}

}  // namespace tidepool::testing
