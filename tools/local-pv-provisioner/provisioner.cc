#include "provisioner.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "k8s/errors.h"
#include "k8s/resource.h"

namespace tidepool::local_pv {
namespace {

std::vector<std::string> JsonOf(const std::vector<k8s::CachedObjectPtr>& objects) {
  std::vector<std::string> json;
  json.reserve(objects.size());
  for (const k8s::CachedObjectPtr& object : objects) json.push_back(object->json);
  return json;
}

absl::Status FileError(absl::string_view what, const std::string& path,
                       const std::error_code& error) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", error.message()));
}

// The path with symbolic links resolved as far as it exists.
std::filesystem::path Resolved(const std::string& path) {
  std::error_code ignored;
  std::filesystem::path resolved = std::filesystem::weakly_canonical(path, ignored);
  return resolved.empty() ? std::filesystem::path(path) : resolved;
}

}  // namespace

Provisioner::Provisioner(k8s::Client& client, k8s::Informer& claims, k8s::Informer& volumes,
                         PlanConfig config, absl::Duration resync_interval)
    : client_(client),
      claims_(claims),
      volumes_(volumes),
      config_(std::move(config)),
      resync_interval_(resync_interval) {}

void Provisioner::Signal() {
  absl::MutexLock lock(&mutex_);
  if (worker_ != nullptr) worker_->Wake();
}

void Provisioner::Start() {
  absl::MutexLock lock(&mutex_);
  if (worker_ == nullptr) {
    worker_ =
        std::make_unique<common::PeriodicWorker>(resync_interval_, [this] { ReconcileOnce(); });
  }
}

void Provisioner::Stop() {
  absl::MutexLock lock(&mutex_);
  if (worker_ != nullptr) worker_->Stop();
}

void Provisioner::ReconcileOnce() {
  Plan plan = PlanActions(config_, JsonOf(claims_.List()), JsonOf(volumes_.List()));
  // The plan checked the reclaim paths lexically; check them again with symbolic links
  // resolved, so that a link inside --volume_dir cannot lead the removal elsewhere.
  std::vector<Reclaim> reclaims;
  const std::filesystem::path base = Resolved(config_.volume_dir);
  for (Reclaim& action : plan.reclaims) {
    const std::filesystem::path resolved = Resolved(action.directory);
    if (IsBelow(resolved.string(), base.string())) {
      reclaims.push_back(std::move(action));
      continue;
    }
    plan.skips.push_back({.kind = "volume",
                          .key = action.volume_name,
                          .reason = absl::StrCat("refusing to reclaim: hostPath \"",
                                                 action.directory, "\" resolves to \"",
                                                 resolved.string(), "\", not below --volume_dir"),
                          .problem = true});
  }
  LogSkips(plan.skips);
  for (const Provision& action : plan.provisions) {
    if (absl::Status done = ProvisionOne(action); !done.ok()) {
      common::LogError(
          "provision_failed",
          {{"claim", action.claim_key}, {"volume", action.volume_name}, {"error", done}});
    }
  }
  for (const Reclaim& action : reclaims) {
    if (absl::Status done = ReclaimOne(action); !done.ok()) {
      common::LogError("reclaim_failed", {{"volume", action.volume_name}, {"error", done}});
    }
  }
}

absl::Status Provisioner::ProvisionOne(const Provision& action) {
  // The directory first, so the PV never points at nothing. 0777 whatever the umask:
  // pods running as any user must be able to write their volume.
  std::error_code error;
  std::filesystem::create_directories(action.directory, error);
  if (error) return FileError("cannot create", action.directory, error);
  std::filesystem::permissions(action.directory, std::filesystem::perms::all,
                               std::filesystem::perm_options::replace, error);
  if (error) return FileError("cannot chmod 0777", action.directory, error);

  absl::StatusOr<std::string> created =
      client_.Create(k8s::PersistentVolumes(), "", action.volume_json);
  if (absl::IsAlreadyExists(created.status())) {
    common::LogInfo("volume_exists", {{"claim", action.claim_key}, {"volume", action.volume_name}});
    return absl::OkStatus();
  }
  if (!created.ok()) return created.status();
  common::LogInfo(
      "provisioned",
      {{"claim", action.claim_key}, {"volume", action.volume_name}, {"path", action.directory}});
  return absl::OkStatus();
}

absl::Status Provisioner::ReclaimOne(const Reclaim& action) {
  std::error_code error;
  const bool existed = std::filesystem::exists(std::filesystem::symlink_status(action.directory));
  std::filesystem::remove_all(action.directory, error);  // does not follow links
  if (error) return FileError("cannot remove", action.directory, error);

  if (!action.volume_deleting) {
    k8s::DeleteOptions options;
    options.precondition_uid = action.volume_uid;
    absl::StatusOr<std::string> deleted =
        client_.Delete(k8s::PersistentVolumes(), "", action.volume_name, options);
    if (!deleted.ok() && !absl::IsNotFound(deleted.status())) return deleted.status();
  } else if (!existed) {
    return absl::OkStatus();  // reclaimed in an earlier pass; the deletion is under way
  }
  common::LogInfo("reclaimed", {{"volume", action.volume_name},
                                {"phase", action.phase},
                                {"path", action.directory},
                                {"removed_directory", existed},
                                {"deleted_volume", !action.volume_deleting}});
  return absl::OkStatus();
}

void Provisioner::LogSkips(const std::vector<Skip>& skips) {
  std::map<std::string, std::string> now;
  for (const Skip& skip : skips) {
    const std::string id = absl::StrCat(skip.kind, " ", skip.key);
    now[id] = skip.reason;
    auto logged = logged_skips_.find(id);
    const bool repeat = logged != logged_skips_.end() && logged->second == skip.reason;
    const common::LogLevel level = repeat         ? common::LogLevel::kDebug
                                   : skip.problem ? common::LogLevel::kWarn
                                                  : common::LogLevel::kInfo;
    common::Log(level, "skipped", {{skip.kind, skip.key}, {"reason", skip.reason}});
  }
  logged_skips_ = std::move(now);
}

}  // namespace tidepool::local_pv
