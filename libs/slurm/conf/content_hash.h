#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tidepool::slurm {

// "sha256:<hex>" over the files' names and contents, independent of their order.
std::string ContentHash(std::vector<std::pair<std::string, std::string>> files);

}  // namespace tidepool::slurm
