#pragma once

#include <string>

#include "absl/time/time.h"
#include "tidepool/v1/info.grpc.pb.h"

namespace tidepool::common {

// Answers tidepool.v1.InfoService with the running service's identity.
class InfoServiceImpl final : public tidepool::v1::InfoService::Service {
 public:
  InfoServiceImpl(std::string name, std::string version, absl::Time start_time);

  grpc::Status GetServiceInfo(grpc::ServerContext* context,
                              const tidepool::v1::GetServiceInfoRequest* request,
                              tidepool::v1::ServiceInfo* response) override;

 private:
  tidepool::v1::ServiceInfo info_;
};

}  // namespace tidepool::common
