#include "config_projector.h"

#include <filesystem>
#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/log.h"
#include "k8s/object_json.h"

namespace tidepool::node_agent {
namespace {

constexpr char kSlurmConf[] = "slurm.conf";

ConfigFiles DataOf(const std::string& config_map_json) {
  ConfigFiles files;
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(config_map_json, "ConfigMap");
  if (!doc.ok()) return files;
  const rapidjson::Value* data = k8s::FindMember(*doc, "data");
  if (data == nullptr || !data->IsObject()) return files;
  for (const auto& member : data->GetObject()) {
    if (member.value.IsString()) {
      files[member.name.GetString()] =
          std::string(member.value.GetString(), member.value.GetStringLength());
    }
  }
  return files;
}

bool IsPlainFileName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

}  // namespace

std::optional<ProjectedConfig> ChooseConfig(const std::vector<k8s::CachedObjectPtr>& config_maps,
                                            std::vector<std::string>& ignored) {
  std::optional<ProjectedConfig> chosen;
  for (const k8s::CachedObjectPtr& config_map : config_maps) {  // ordered by key
    ConfigFiles files = DataOf(config_map->json);
    if (!files.contains(kSlurmConf)) continue;
    if (chosen) {
      ignored.push_back(config_map->meta.Key());
      continue;
    }
    chosen = ProjectedConfig{config_map->meta.Key(), std::move(files)};
  }
  return chosen;
}

absl::Status WriteConfigDir(const std::string& dir, const ConfigFiles& files) {
  for (const auto& [name, content] : files) {
    if (!IsPlainFileName(name)) {
      return absl::InvalidArgumentError(absl::StrCat("data key \"", name, "\" is not a file name"));
    }
  }
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return absl::InternalError(absl::StrCat("mkdir ", dir, ": ", error.message()));
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && !files.contains(name)) std::filesystem::remove(entry.path());
  }
  for (const auto& [name, content] : files) {
    const std::string path = absl::StrCat(dir, "/", name);
    std::ofstream out(path, std::ios::trunc);
    out << content;
    if (!out.flush()) return absl::InternalError(absl::StrCat("cannot write ", path));
  }
  return absl::OkStatus();
}

void AddGpuPlaceholders(const std::string& prefix, int count, ConfigFiles& files) {
  if (prefix.empty()) return;
  for (int i = 0; i < count; ++i) files.emplace(absl::StrCat(prefix, i), "");
}

ConfigProjector::ConfigProjector(k8s::Informer& config_maps, SlurmTestenv& slurm, std::string dir,
                                 std::function<void()> on_applied, absl::Duration retry_interval,
                                 absl::Duration reconfigure_spacing,
                                 GpuPlaceholders gpu_placeholders)
    : config_maps_(config_maps),
      slurm_(slurm),
      dir_(std::move(dir)),
      on_applied_(std::move(on_applied)),
      retry_interval_(retry_interval),
      reconfigure_spacing_(reconfigure_spacing),
      gpu_placeholders_(std::move(gpu_placeholders)) {}

void ConfigProjector::Start() {
  worker_ = std::make_unique<common::PeriodicWorker>(retry_interval_, [this] { ProjectOnce(); });
  auto wake = [this](const k8s::CachedObjectPtr&) { worker_->Wake(); };
  config_maps_.AddHandlers({
      .on_add = wake,
      .on_update = [this](const k8s::CachedObjectPtr&,
                          const k8s::CachedObjectPtr&) { worker_->Wake(); },
      .on_delete = wake,
  });
}

void ConfigProjector::Stop() {
  if (worker_) worker_->Stop();
}

void ConfigProjector::ProjectOnce() {
  if (!config_maps_.HasSynced()) return;
  std::vector<std::string> ignored;
  std::optional<ProjectedConfig> config = ChooseConfig(config_maps_.List(), ignored);
  // No ConfigMap (or it went away): Slurm keeps what it runs, as a pod keeps its files.
  if (!config || config->files == applied_) return;
  const absl::Time now = absl::Now();
  if (last_reconfigure_.has_value() && now - *last_reconfigure_ < reconfigure_spacing_) {
    return;  // a later period applies whatever is latest then
  }
  if (!ignored.empty()) {
    common::LogWarn("slurm_config_ignored",
                    {{"used", config->source}, {"ignored", absl::StrJoin(ignored, ",")}});
  }
  ConfigFiles files = config->files;
  AddGpuPlaceholders(gpu_placeholders_.prefix, gpu_placeholders_.count, files);
  absl::Status applied = WriteConfigDir(dir_, files);
  if (applied.ok()) {
    last_reconfigure_ = now;
    applied = slurm_.Reconfigure(dir_, reconfigure_spacing_);
  }
  common::LogInfo("slurm_config_projected",
                  {{"config_map", config->source}, {"dir", dir_}, {"result", applied}});
  if (!applied.ok()) return;  // the next period tries again
  applied_ = std::move(config->files);
  if (on_applied_) on_applied_();
}

}  // namespace tidepool::node_agent
