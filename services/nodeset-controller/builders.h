#pragma once

// Pure builders: a NodeSet in, the objects it owns out (as the API server takes them).

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::nodeset {

// Pod annotation: the hash of spec.template + spec.slurm the pod was built from; a pod
// whose hash differs from the NodeSet's is outdated and is replaced by the update
// strategy.
inline constexpr char kSlurmdContainer[] = "slurmd";

// "sha256:<hex>" over spec.template and spec.slurm of a NodeSet's JSON, independent of
// key order (so a re-ordered but equal template does not roll the pods).
absl::StatusOr<std::string> TemplateHash(absl::string_view node_set_json);

// "tidepool.dev/nodeset=<name>": status.selector, read by the scale subresource.
std::string PodSelector(absl::string_view node_set_name);

struct PodInputs {
  absl::string_view node_set_json;  // as the API server serves it (uid included)
  std::string slurm_name;           // pod name and hostname
  std::string node_name;            // spec.nodeName: the pod is pinned, no scheduler
  std::string compute_image;        // SlurmCluster spec.images.compute ("" when unknown)
  std::string template_hash;
  std::string cluster_name;      // spec.clusterRef.name
  std::string munge_key_secret;  // SlurmCluster spec.auth.mungeKeySecret, else generated
  std::string cluster_domain;    // the Kubernetes cluster's DNS domain (--cluster_domain)
  // SlurmCluster spec.prolog.configMap / spec.epilog.configMap ("" when unset).
  std::string prolog_config_map;
  std::string epilog_config_map;
};

// The slurmd pod for one member Node: spec.template with our labels and the template
// hash, pinned to the Node, hostname = Slurm name, the NodeSet's tolerations added, the
// NodeSet as controller, wired to its cluster (cluster_wiring.h: config, munge key,
// prolog and epilog scripts, DNS). InvalidArgument (naming the field) when the template has
// containers but none named slurmd, the slurmd container has no image and the cluster names no
// compute image, or the template uses a volume name or mount path the wiring needs.
absl::StatusOr<std::string> BuildPod(const PodInputs& inputs);

// A merge patch that sets the Node label keeping a Node's Slurm name.
std::string SlurmNodeLabelPatch(absl::string_view slurm_name);

}  // namespace tidepool::nodeset
