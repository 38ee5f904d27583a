#include "common/service_runner.h"

int main(int argc, char** argv) {
  return tidepool::common::RunService(
      argc, argv,
      {.name = "config-renderer",
       .summary = "Renders slurm.conf, gres.conf, topology.conf and cgroup.conf for Tidepool "
                  "clusters; the only producer of Slurm configuration.",
       .setup = nullptr});
}
