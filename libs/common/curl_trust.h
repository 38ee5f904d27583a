#pragma once

// Trusting exactly one CA in a libcurl transfer. CURLOPT_CAINFO_BLOB alone replaces only
// the CA file: libcurl still reads the CA directory it was built with (Debian's:
// /etc/ssl/certs), so every CA the system trusts would be trusted too.

#include <curl/curl.h>

#include <string>

#include "absl/status/status.h"

namespace tidepool::common {

// Makes `ca_pem` (a PEM bundle, copied by libcurl) the only trust anchor of `curl`'s
// transfers. Internal when libcurl cannot (no blob support): nothing is sent then, rather
// than a transfer that trusts the system's CAs.
absl::Status TrustOnlyCa(CURL* curl, const std::string& ca_pem);

}  // namespace tidepool::common
