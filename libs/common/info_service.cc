#include "common/info_service.h"

namespace tidepool::common {

InfoServiceImpl::InfoServiceImpl(std::string name, std::string version, absl::Time start_time) {
  info_.set_name(std::move(name));
  info_.set_version(std::move(version));
  info_.set_start_time_unix(absl::ToUnixSeconds(start_time));
}

grpc::Status InfoServiceImpl::GetServiceInfo(grpc::ServerContext*,
                                             const tidepool::v1::GetServiceInfoRequest*,
                                             tidepool::v1::ServiceInfo* response) {
  *response = info_;
  return grpc::Status::OK;
}

}  // namespace tidepool::common
