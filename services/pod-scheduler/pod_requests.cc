#include "pod_requests.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "k8s/quantity.h"

namespace tidepool::podsched {
namespace {

struct Resource {
  const char* name;
  bool milli;
  int64_t PodRequests::*field;
  int64_t max;
};

constexpr Resource kResources[] = {{"cpu", true, &PodRequests::cpu_milli, kMaxCpuMilli},
                                   {"memory", false, &PodRequests::memory_bytes, kMaxMemoryBytes},
                                   {kGpuResource, false, &PodRequests::gpus, kMaxGpus}};

// Operands are at most max + 1 (each quantity is checked, sums saturate there), so the
// addition cannot overflow; a total above max is refused at the end.
PodRequests Add(const PodRequests& a, const PodRequests& b) {
  PodRequests sum;
  for (const Resource& r : kResources) sum.*r.field = std::min(a.*r.field + b.*r.field, r.max + 1);
  return sum;
}

std::string MaxText(const Resource& resource) {
  return resource.milli ? absl::StrCat(resource.max / 1000) : absl::StrCat(resource.max);
}

PodRequests Max(const PodRequests& a, const PodRequests& b) {
  return {std::max(a.cpu_milli, b.cpu_milli), std::max(a.memory_bytes, b.memory_bytes),
          std::max(a.gpus, b.gpus)};
}

// One resource of a resource list; 0 when absent.
absl::StatusOr<int64_t> Quantity(const rapidjson::Value* list, const Resource& r,
                                 absl::string_view where) {
  const char* resource = r.name;
  const bool milli = r.milli;
  if (list == nullptr) return 0;
  const rapidjson::Value* value = k8s::FindMember(*list, resource);
  if (value == nullptr) return 0;
  if (!value->IsString()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", resource, " is not a quantity"));
  }
  const absl::string_view text(value->GetString(), value->GetStringLength());
  absl::StatusOr<int64_t> parsed = milli ? k8s::QuantityMilliValue(text) : k8s::QuantityValue(text);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", resource, " \"", text, "\": ", parsed.status().message()));
  }
  if (*parsed < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", resource, " \"", text, "\" is negative"));
  }
  if (*parsed > r.max) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", resource, " \"", text,
                                                   "\" is more than any Slurm node has (at most ",
                                                   MaxText(r), ")"));
  }
  return *parsed;
}

// A resource's request, else its limit.
absl::StatusOr<int64_t> Requested(const rapidjson::Value* resources, const Resource& r,
                                  absl::string_view where) {
  const rapidjson::Value* requests =
      resources == nullptr ? nullptr : k8s::FindMember(*resources, "requests");
  if (requests != nullptr && k8s::FindMember(*requests, r.name) != nullptr) {
    return Quantity(requests, r, where);
  }
  const rapidjson::Value* limits =
      resources == nullptr ? nullptr : k8s::FindMember(*resources, "limits");
  return Quantity(limits, r, where);
}

absl::StatusOr<PodRequests> FromResourceList(const rapidjson::Value* resources,
                                             absl::string_view where, bool with_limits) {
  PodRequests out;
  for (const Resource& r : kResources) {
    absl::StatusOr<int64_t> value =
        with_limits ? Requested(resources, r, where) : Quantity(resources, r, where);
    if (!value.ok()) return value.status();
    out.*r.field = *value;
  }
  return out;
}

absl::StatusOr<PodRequests> ContainerRequests(const rapidjson::Value& container) {
  const std::string where = absl::StrCat("container ", k8s::StringMember(container, "name"));
  return FromResourceList(k8s::FindMember(container, "resources"), where, /*with_limits=*/true);
}

bool IsSidecar(const rapidjson::Value& init_container) {
  return k8s::StringMember(init_container, "restartPolicy") == "Always";
}

}  // namespace

absl::StatusOr<PodRequests> EffectiveRequests(const rapidjson::Value& spec) {
  PodRequests apps;
  if (const rapidjson::Value* containers = k8s::FindMember(spec, "containers");
      containers != nullptr && containers->IsArray()) {
    for (const rapidjson::Value& container : containers->GetArray()) {
      absl::StatusOr<PodRequests> one = ContainerRequests(container);
      if (!one.ok()) return one.status();
      apps = Add(apps, *one);
    }
  }
  // Init containers run one after another, each beside the sidecars started before it;
  // sidecars keep running beside the app containers.
  PodRequests sidecars;
  PodRequests init_peak;
  if (const rapidjson::Value* inits = k8s::FindMember(spec, "initContainers");
      inits != nullptr && inits->IsArray()) {
    for (const rapidjson::Value& container : inits->GetArray()) {
      absl::StatusOr<PodRequests> one = ContainerRequests(container);
      if (!one.ok()) return one.status();
      if (IsSidecar(container)) {
        sidecars = Add(sidecars, *one);
        init_peak = Max(init_peak, sidecars);
      } else {
        init_peak = Max(init_peak, Add(sidecars, *one));
      }
    }
  }
  absl::StatusOr<PodRequests> overhead =
      FromResourceList(k8s::FindMember(spec, "overhead"), "spec.overhead", /*with_limits=*/false);
  if (!overhead.ok()) return overhead.status();
  const PodRequests total = Add(Max(Add(apps, sidecars), init_peak), *overhead);
  for (const Resource& r : kResources) {
    if (total.*r.field > r.max) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the pod's ", r.name, " requests together are more than any Slurm node has (at most ",
          MaxText(r), ")"));
    }
  }
  return total;
}

}  // namespace tidepool::podsched
