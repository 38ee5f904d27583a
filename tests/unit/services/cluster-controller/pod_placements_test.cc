#include "pod_placements.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::cluster {
namespace {

using Clusters = std::set<std::string>;

TEST_CASE("a Node's clusters are those with a pod on it now") {
  PodPlacements placements;
  placements.Place("hpc/a-1", "node-1", "hpc/a");
  placements.Place("hpc/a-2", "node-1", "hpc/a");
  placements.Place("lab/b-1", "node-1", "lab/b");
  placements.Place("hpc/pending", "", "hpc/a");  // unbound: on no Node
  placements.Place("hpc/other", "node-2", "");   // no cluster label
  CHECK(placements.ClustersOn("node-1") == Clusters{"hpc/a", "lab/b"});
  CHECK(placements.ClustersOn("node-2").empty());

  // The same event twice (a relist) counts once: one removal forgets the pod.
  placements.Place("lab/b-1", "node-1", "lab/b");
  placements.Remove("lab/b-1");
  CHECK(placements.ClustersOn("node-1") == Clusters{"hpc/a"});

  // A pod that moved (deleted and made again under its name elsewhere) leaves its old Node.
  placements.Place("hpc/a-1", "node-3", "hpc/a");
  CHECK(placements.ClustersOn("node-3") == Clusters{"hpc/a"});
  CHECK(placements.ClustersOn("node-1") == Clusters{"hpc/a"});  // hpc/a-2 is still there
  placements.Remove("hpc/a-2");
  CHECK(placements.ClustersOn("node-1").empty());

  // Nodes nothing is on any more are forgotten, not kept forever.
  placements.Remove("hpc/a-1");
  placements.Remove("never-placed");
  CHECK(placements.nodes() == 0);
}

}  // namespace
}  // namespace tidepool::cluster
