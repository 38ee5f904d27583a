#include "plan.h"

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <functional>
#include <string>
#include <vector>

#include "k8s/object_json.h"
#include "rapidjson/document.h"

namespace tidepool::local_pv {
namespace {

const PlanConfig kConfig{.provisioner_name = "tidepool.dev/local-pv",
                         .volume_dir = "/var/lib/tidepool/volumes"};

struct ClaimSpec {
  std::string ns = "slurm";
  std::string name = "state-slurmctld-0";
  std::string uid = "1234-abcd";
  std::string provisioner = "tidepool.dev/local-pv";
  bool beta_annotation = false;  // the provisioner in the older annotation
  std::string selected_node = "node-1";
  std::string phase = "Pending";
  std::string volume_name;
  std::string storage = "5Gi";
  std::string access_modes = R"(["ReadWriteOnce"])";
  std::string storage_class = "tidepool-local";
  std::string extra_spec;  // more spec members, with a leading comma
  bool deleting = false;
};

std::string ClaimJson(const ClaimSpec& c) {
  std::string annotations;
  auto add = [&annotations](const std::string& key, const std::string& value) {
    if (value.empty()) return;
    if (!annotations.empty()) annotations += ",";
    annotations += "\"" + key + "\":\"" + value + "\"";
  };
  add(c.beta_annotation ? kBetaStorageProvisionerAnnotation : kStorageProvisionerAnnotation,
      c.provisioner);
  add(kSelectedNodeAnnotation, c.selected_node);
  std::string json = R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{)";
  json += R"("namespace":")" + c.ns + R"(","name":")" + c.name + R"(","uid":")" + c.uid + "\"";
  if (c.deleting) json += R"(,"deletionTimestamp":"2026-12-02T08:00:00Z")";
  json += R"(,"annotations":{)" + annotations + "}},";
  json += R"("spec":{"accessModes":)" + c.access_modes;
  if (!c.storage.empty()) json += R"(,"resources":{"requests":{"storage":")" + c.storage + "\"}}";
  if (!c.storage_class.empty()) json += R"(,"storageClassName":")" + c.storage_class + "\"";
  if (!c.volume_name.empty()) json += R"(,"volumeName":")" + c.volume_name + "\"";
  json += c.extra_spec + "}";
  if (!c.phase.empty()) json += R"(,"status":{"phase":")" + c.phase + "\"}";
  return json + "}";
}

struct VolumeSpec {
  std::string name = "pvc-1234-abcd";
  std::string provisioned_by = "tidepool.dev/local-pv";
  std::string phase = "Released";
  std::string reclaim_policy = "Delete";
  std::string path = "/var/lib/tidepool/volumes/pvc-1234-abcd";
  bool deleting = false;
};

std::string VolumeJson(const VolumeSpec& v) {
  std::string json = R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":")" +
                     v.name + R"(","uid":"pv-uid")";
  if (v.deleting) json += R"(,"deletionTimestamp":"2026-12-02T08:00:00Z")";
  if (!v.provisioned_by.empty()) {
    json += R"(,"annotations":{"pv.kubernetes.io/provisioned-by":")" + v.provisioned_by + "\"}";
  }
  json += R"(},"spec":{"persistentVolumeReclaimPolicy":")" + v.reclaim_policy + "\"";
  if (!v.path.empty()) json += R"(,"hostPath":{"path":")" + v.path + "\"}";
  json += R"(},"status":{"phase":")" + v.phase + "\"}}";
  return json;
}

Plan PlanClaims(std::vector<std::string> claims, std::vector<std::string> volumes = {}) {
  return PlanActions(kConfig, claims, volumes);
}

Plan PlanVolumes(std::vector<std::string> volumes) { return PlanActions(kConfig, {}, volumes); }

// The reason of the only skip, or "" when the plan skipped nothing.
std::string OnlySkipReason(const Plan& plan) {
  REQUIRE(plan.skips.size() <= 1);
  return plan.skips.empty() ? "" : plan.skips[0].reason;
}

TEST_CASE("a pending claim of ours with a selected node gets a PV named pvc-<uid>") {
  const Plan plan = PlanClaims({ClaimJson({})});
  REQUIRE(plan.provisions.size() == 1);
  CHECK(plan.reclaims.empty());
  CHECK(plan.skips.empty());
  const Provision& p = plan.provisions[0];
  CHECK(p.claim_key == "slurm/state-slurmctld-0");
  CHECK(p.volume_name == "pvc-1234-abcd");
  CHECK(p.directory == "/var/lib/tidepool/volumes/pvc-1234-abcd");
}

TEST_CASE("the PV copies size, access modes and class, is pre-bound and has no node affinity") {
  ClaimSpec spec;
  spec.storage = "20Gi";
  spec.access_modes = R"(["ReadWriteOnce","ReadWriteMany"])";
  spec.storage_class = "fast";
  const Plan plan = PlanClaims({ClaimJson(spec)});
  REQUIRE(plan.provisions.size() == 1);
  absl::StatusOr<rapidjson::Document> pv =
      k8s::ParseJsonObject(plan.provisions[0].volume_json, "pv");
  REQUIRE(pv.ok());
  const rapidjson::Value& d = *pv;
  CHECK(std::string(d["apiVersion"].GetString()) == "v1");
  CHECK(std::string(d["kind"].GetString()) == "PersistentVolume");
  CHECK(std::string(d["metadata"]["name"].GetString()) == "pvc-1234-abcd");
  CHECK(std::string(d["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"].GetString()) ==
        "tidepool.dev/local-pv");
  const rapidjson::Value& s = d["spec"];
  CHECK(std::string(s["capacity"]["storage"].GetString()) == "20Gi");
  REQUIRE(s["accessModes"].Size() == 2);
  CHECK(std::string(s["accessModes"][0].GetString()) == "ReadWriteOnce");
  CHECK(std::string(s["accessModes"][1].GetString()) == "ReadWriteMany");
  CHECK(std::string(s["volumeMode"].GetString()) == "Filesystem");
  CHECK(std::string(s["persistentVolumeReclaimPolicy"].GetString()) == "Delete");
  CHECK(std::string(s["storageClassName"].GetString()) == "fast");
  CHECK(std::string(s["hostPath"]["path"].GetString()) ==
        "/var/lib/tidepool/volumes/pvc-1234-abcd");
  CHECK(std::string(s["hostPath"]["type"].GetString()) == "DirectoryOrCreate");
  CHECK(std::string(s["claimRef"]["apiVersion"].GetString()) == "v1");
  CHECK(std::string(s["claimRef"]["kind"].GetString()) == "PersistentVolumeClaim");
  CHECK(std::string(s["claimRef"]["namespace"].GetString()) == "slurm");
  CHECK(std::string(s["claimRef"]["name"].GetString()) == "state-slurmctld-0");
  CHECK(std::string(s["claimRef"]["uid"].GetString()) == "1234-abcd");
  CHECK_FALSE(s.HasMember("nodeAffinity"));
}

TEST_CASE("the older beta storage-provisioner annotation counts too") {
  ClaimSpec spec;
  spec.beta_annotation = true;
  CHECK(PlanClaims({ClaimJson(spec)}).provisions.size() == 1);
}

TEST_CASE("claims of other provisioners, or of none, are ignored without a word") {
  ClaimSpec other;
  other.provisioner = "rancher.io/local-path";
  ClaimSpec none;
  none.provisioner = "";
  const Plan plan = PlanClaims({ClaimJson(other), ClaimJson(none)});
  CHECK(plan.provisions.empty());
  CHECK(plan.skips.empty());
}

TEST_CASE("a claim of ours without a selected node waits for its consumer") {
  ClaimSpec spec;
  spec.selected_node = "";
  const Plan plan = PlanClaims({ClaimJson(spec)});
  CHECK(plan.provisions.empty());
  REQUIRE(plan.skips.size() == 1);
  CHECK(plan.skips[0].kind == "claim");
  CHECK(plan.skips[0].key == "slurm/state-slurmctld-0");
  CHECK(plan.skips[0].reason.find("volume.kubernetes.io/selected-node") != std::string::npos);
  CHECK_FALSE(plan.skips[0].problem);
}

TEST_CASE("only Pending, unbound claims that are not being deleted are provisioned") {
  SECTION("bound: ignored") {
    ClaimSpec spec;
    spec.phase = "Bound";
    spec.volume_name = "pvc-1234-abcd";
    const Plan plan = PlanClaims({ClaimJson(spec)});
    CHECK(plan.provisions.empty());
    CHECK(plan.skips.empty());
  }
  SECTION("pending but spec.volumeName set (binding under way): ignored") {
    ClaimSpec spec;
    spec.volume_name = "pv-someone-made";
    const Plan plan = PlanClaims({ClaimJson(spec)});
    CHECK(plan.provisions.empty());
    CHECK(plan.skips.empty());
  }
  SECTION("lost") {
    ClaimSpec spec;
    spec.phase = "Lost";
    const Plan plan = PlanClaims({ClaimJson(spec)});
    CHECK(plan.provisions.empty());
    CHECK(OnlySkipReason(plan).find("Lost") != std::string::npos);
  }
  SECTION("no status at all") {
    ClaimSpec spec;
    spec.phase = "";
    CHECK(PlanClaims({ClaimJson(spec)}).provisions.empty());
  }
  SECTION("being deleted") {
    ClaimSpec spec;
    spec.deleting = true;
    const Plan plan = PlanClaims({ClaimJson(spec)});
    CHECK(plan.provisions.empty());
    CHECK(OnlySkipReason(plan) == "claim is being deleted");
  }
}

TEST_CASE("a claim whose PV already exists is not provisioned again") {
  VolumeSpec existing;
  existing.phase = "Available";
  const Plan plan = PlanClaims({ClaimJson({})}, {VolumeJson(existing)});
  CHECK(plan.provisions.empty());
  CHECK(plan.reclaims.empty());
  CHECK(OnlySkipReason(plan).find("pvc-1234-abcd exists") != std::string::npos);
}

TEST_CASE("claims of ours that cannot be provisioned are skipped as problems") {
  struct Case {
    std::function<void(ClaimSpec&)> change;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {[](ClaimSpec& c) { c.storage = ""; }, "no spec.resources.requests.storage"},
      {[](ClaimSpec& c) { c.access_modes = "[]"; }, "no spec.accessModes"},
      {[](ClaimSpec& c) { c.access_modes = "\"ReadWriteOnce\""; }, "no spec.accessModes"},
      {[](ClaimSpec& c) { c.uid = ""; }, "no metadata.uid"},
      {[](ClaimSpec& c) { c.extra_spec = R"(,"volumeMode":"Block")"; },
       "volumeMode Block is not supported (hostPath volumes are Filesystem only)"},
      {[](ClaimSpec& c) { c.extra_spec = R"(,"selector":{"matchLabels":{"a":"b"}})"; },
       "spec.selector is not supported by dynamic provisioning"},
      {[](ClaimSpec& c) {
         c.extra_spec = R"(,"dataSource":{"kind":"PersistentVolumeClaim","name":"x"})";
       },
       "spec.dataSource (cloning, snapshots) is not supported"},
  };
  for (const Case& c : cases) {
    ClaimSpec spec;
    c.change(spec);
    INFO(ClaimJson(spec));
    const Plan plan = PlanClaims({ClaimJson(spec)});
    CHECK(plan.provisions.empty());
    REQUIRE(plan.skips.size() == 1);
    CHECK(plan.skips[0].reason == c.expected);
    CHECK(plan.skips[0].problem);
  }
}

TEST_CASE("an explicit Filesystem volumeMode is fine") {
  ClaimSpec spec;
  spec.extra_spec = R"(,"volumeMode":"Filesystem")";
  CHECK(PlanClaims({ClaimJson(spec)}).provisions.size() == 1);
}

TEST_CASE("a claim without a class gets a PV without one") {
  ClaimSpec spec;
  spec.storage_class = "";
  const Plan plan = PlanClaims({ClaimJson(spec)});
  REQUIRE(plan.provisions.size() == 1);
  CHECK(plan.provisions[0].volume_json.find("storageClassName") == std::string::npos);
}

TEST_CASE("a provisioner of another name serves only its own claims") {
  const PlanConfig other{.provisioner_name = "example.com/other", .volume_dir = "/v/"};
  ClaimSpec spec;
  spec.provisioner = "example.com/other";
  const Plan plan = PlanActions(other, {ClaimJson({}), ClaimJson(spec)}, {});
  REQUIRE(plan.provisions.size() == 1);
  CHECK(plan.provisions[0].directory == "/v/pvc-1234-abcd");
}

TEST_CASE("released or failed PVs of ours with policy Delete are reclaimed") {
  VolumeSpec spec;
  spec.phase = GENERATE("Released", "Failed");
  const Plan plan = PlanVolumes({VolumeJson(spec)});
  REQUIRE(plan.reclaims.size() == 1);
  CHECK(plan.skips.empty());
  const Reclaim& r = plan.reclaims[0];
  CHECK(r.volume_name == "pvc-1234-abcd");
  CHECK(r.volume_uid == "pv-uid");
  CHECK(r.phase == spec.phase);
  CHECK(r.directory == "/var/lib/tidepool/volumes/pvc-1234-abcd");
  CHECK_FALSE(r.volume_deleting);
}

TEST_CASE("a PV of ours already being deleted is reclaimed only of its directory") {
  VolumeSpec spec;
  spec.deleting = true;
  const Plan plan = PlanVolumes({VolumeJson(spec)});
  REQUIRE(plan.reclaims.size() == 1);
  CHECK(plan.reclaims[0].volume_deleting);
}

TEST_CASE("PVs in use, available or bound are left alone") {
  for (const char* phase : {"Bound", "Available", "Pending", ""}) {
    VolumeSpec spec;
    spec.phase = phase;
    const Plan plan = PlanVolumes({VolumeJson(spec)});
    CHECK(plan.reclaims.empty());
    CHECK(plan.skips.empty());
  }
}

TEST_CASE("PVs of others are never reclaimed") {
  VolumeSpec other;
  other.provisioned_by = "rancher.io/local-path";
  VolumeSpec unannotated;
  unannotated.provisioned_by = "";
  const Plan plan = PlanVolumes({VolumeJson(other), VolumeJson(unannotated)});
  CHECK(plan.reclaims.empty());
  CHECK(plan.skips.empty());
}

TEST_CASE("released PVs of ours with policy Retain are kept") {
  VolumeSpec spec;
  spec.reclaim_policy = "Retain";
  const Plan plan = PlanVolumes({VolumeJson(spec)});
  CHECK(plan.reclaims.empty());
  CHECK(OnlySkipReason(plan) == "Released with reclaim policy \"Retain\": kept");
}

TEST_CASE("a PV whose directory is not below --volume_dir is refused") {
  VolumeSpec spec;
  spec.path = GENERATE("/etc",                                    // elsewhere
                       "/var/lib/tidepool/volumes",               // the base itself
                       "/var/lib/tidepool/volumes/",              // … with a slash
                       "/var/lib/tidepool/volumes/../../../etc",  // escaping with ..
                       "/var/lib/tidepool/volumes-other/x",       // a sibling, same prefix
                       "volumes/pvc-1",                           // relative
                       "");                                       // no hostPath
  INFO(spec.path);
  const Plan plan = PlanVolumes({VolumeJson(spec)});
  CHECK(plan.reclaims.empty());
  REQUIRE(plan.skips.size() == 1);
  CHECK(plan.skips[0].kind == "volume");
  CHECK(plan.skips[0].key == "pvc-1234-abcd");
  CHECK(plan.skips[0].reason.rfind("refusing to reclaim", 0) == 0);
  CHECK(plan.skips[0].problem);
}

TEST_CASE("IsBelow compares normalised paths") {
  CHECK(IsBelow("/v/a", "/v"));
  CHECK(IsBelow("/v/a/b", "/v/"));
  CHECK(IsBelow("/v/./a", "/v"));
  CHECK(IsBelow("/v/x/../a", "/v"));
  CHECK(IsBelow("//v//a/", "/v"));
  CHECK_FALSE(IsBelow("/v", "/v"));
  CHECK_FALSE(IsBelow("/v/", "/v"));
  CHECK_FALSE(IsBelow("/v/.", "/v"));
  CHECK_FALSE(IsBelow("/v/a/..", "/v"));
  CHECK_FALSE(IsBelow("/v/../w", "/v"));
  CHECK_FALSE(IsBelow("/vw/a", "/v"));
  CHECK_FALSE(IsBelow("/", "/v"));
  CHECK_FALSE(IsBelow("v/a", "v"));
  CHECK_FALSE(IsBelow("", "/v"));
  CHECK_FALSE(IsBelow("/v/a", ""));
}

TEST_CASE("malformed objects are skipped as problems, never a crash") {
  const std::vector<std::string> bad = {
      "",
      "not json",
      "[]",
      "null",
      R"({"metadata":"x"})",
      R"({"metadata":{"namespace":"ns"}})",
      R"({"metadata":{"name":7}})",
      R"({"metadata":{"name":"c","namespace":"ns","annotations":[]},"spec":5,"status":[]})",
  };
  const Plan plan = PlanActions(kConfig, bad, bad);
  CHECK(plan.provisions.empty());
  CHECK(plan.reclaims.empty());
  for (const Skip& skip : plan.skips) {
    CHECK(skip.problem);
    CHECK_FALSE(skip.reason.empty());
  }
  // All but the last are unreadable (no name, or for a claim no namespace), as claims and
  // as volumes; the last reads fine and is not ours.
  CHECK(plan.skips.size() == 7 + 7);
}

TEST_CASE("mistyped fields of a claim of ours read as missing") {
  const std::string claim =
      R"({"metadata":{"name":"c","namespace":"ns","uid":"u","annotations":{
        "volume.kubernetes.io/storage-provisioner":"tidepool.dev/local-pv",
        "volume.kubernetes.io/selected-node":"n"}},
        "spec":{"accessModes":[1,"ReadWriteOnce"],"resources":{"requests":{"storage":5}}},
        "status":{"phase":"Pending"}})";
  const Plan plan = PlanClaims({claim});
  CHECK(plan.provisions.empty());
  CHECK(OnlySkipReason(plan) == "no spec.resources.requests.storage");
}

TEST_CASE("ParseClaim and ParseVolume say what is wrong") {
  CHECK(ParseClaim("{").status().message() == "PersistentVolumeClaim is not a JSON object");
  CHECK(ParseClaim(R"({"metadata":{"name":"x"}})").status().message() ==
        "PersistentVolumeClaim has no metadata.name or namespace");
  CHECK(ParseVolume("[1]").status().message() == "PersistentVolume is not a JSON object");
  CHECK(ParseVolume("{}").status().message() == "PersistentVolume has no metadata.name");
}

}  // namespace
}  // namespace tidepool::local_pv
