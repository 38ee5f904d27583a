#include "random_bytes.h"

#include <openssl/rand.h>

namespace tidepool::cluster {

absl::StatusOr<std::string> RandomBytes(size_t size) {
  std::string bytes(size, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(size)) != 1) {
    return absl::InternalError("RAND_bytes failed to generate a key");
  }
  return bytes;
}

}  // namespace tidepool::cluster
