#include "hook_runners.h"

#include "absl/strings/str_cat.h"

namespace tidepool::renderer {

std::string HookRunnerScript(absl::string_view hook, absl::string_view scripts_dir) {
  return absl::StrCat(
      "#!/bin/sh\n"
      "# Written by Tidepool's config-renderer: runs the SlurmCluster's ",
      hook, " scripts (", scripts_dir, ") in name order; the first that fails ends the ", hook,
      " with its status.\n"
      "export LC_ALL=C\n"
      "for script in ",
      scripts_dir,
      "/*; do\n"
      "  [ -f \"$script\" ] || continue\n"
      "  \"$script\" || exit\n"
      "done\n");
}

}  // namespace tidepool::renderer
