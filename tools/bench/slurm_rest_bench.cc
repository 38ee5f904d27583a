// Parses a generated 10,000-node GET nodes/ reply (slurmrestd 26.05 / data_parser v0.0.45
// field shapes: every field of a real node, number objects, pretty-printed as slurmrestd
// prints it) with tidepool::slurm::rest::ParseNodesReply and prints the timings.
// Target: <= 30 ms per parse. Usage: slurm_rest_bench [nodes] [runs]
// The floor for comparison: RapidJSON's reader over the same bytes with a handler that
// does nothing, built as the library builds it (in place, SSE2).
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#define RAPIDJSON_NAMESPACE slurm_rest_bench_rapidjson
#include <rapidjson/reader.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "slurm/rest/json_mapping.h"

namespace {

// One node as slurmrestd 26.05.5 prints it, with placeholders.
constexpr char kNodeTemplate[] = R"JSON(    {
      "architecture": "x86_64",
      "burstbuffer_network_address": "",
      "boards": 1,
      "boot_time": {
        "set": true,
        "infinite": false,
        "number": 1796198901
      },
      "tls_cert_last_renewal": {
        "set": true,
        "infinite": false,
        "number": 0
      },
      "cert_flags": [],
      "cluster_name": "",
      "cores": 1,
      "specialized_cores": 0,
      "cpu_binding": 0,
      "cpu_load": 111,
      "free_mem": {
        "set": true,
        "infinite": false,
        "number": 22241
      },
      "cpus": 128,
      "effective_cpus": 2,
      "specialized_cpus": "",
      "energy": {
        "average_watts": 0,
        "base_consumed_energy": 0,
        "consumed_energy": 0,
        "current_watts": {
          "set": true,
          "infinite": false,
          "number": 0
        },
        "previous_consumed_energy": 0,
        "last_collected": 0
      },
      "extra": "",
      "features": [
        "h100",
        "ib",
        "@ZONE@"
      ],
      "active_features": [
        "h100",
        "ib",
        "@ZONE@"
      ],
      "gpu_spec": "",
      "gres": "gpu:h100:8(S:0-1)",
      "gres_drained": "N/A",
      "gres_used": "gpu:h100:@GPUS@(IDX:0-3)",
      "instance_id": "",
      "instance_type": "",
      "last_busy": {
        "set": true,
        "infinite": false,
        "number": 1796204167
      },
      "mcs_label": "",
      "specialized_memory": 0,
      "name": "@NAME@",
      "next_state_after_reboot": [
        "INVALID"
      ],
      "address": "@NAME@",
      "hostname": "@NAME@",
      "state": @STATES@,
      "operating_system": "Linux 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0",
      "owner": "",
      "partitions": [
        "gpu",
        "all"
      ],
      "port": 6818,
      "real_memory": 1031000,
      "res_cores_per_gpu": 0,
      "comment": "",
      "reason": "@REASON@",
      "reason_changed_at": {
        "set": true,
        "infinite": false,
        "number": 0
      },
      "reason_set_by_user": "",
      "resume_after": {
        "set": true,
        "infinite": false,
        "number": 0
      },
      "reservation": "",
      "suspend_time": {
        "set": false,
        "infinite": true,
        "number": 0
      },
      "alloc_memory": @ALLOC_MEM@,
      "alloc_cpus": @ALLOC_CPUS@,
      "alloc_idle_cpus": 2,
      "tres_used": "",
      "slurmd_start_time": {
        "set": true,
        "infinite": false,
        "number": 1796204167
      },
      "sockets": 2,
      "threads": 1,
      "temporary_disk": 0,
      "weight": 1,
      "topology": "",
      "tres": "cpu=2,mem=1G,billing=2",
      "version": "26.05.5"
    })JSON";

std::string GenerateReply(int count) {
  std::string out = "{\n  \"nodes\": [\n";
  out.reserve(static_cast<size_t>(count) * (sizeof(kNodeTemplate) + 64) + 4096);
  const char* states[] = {R"(["IDLE"])", R"(["MIXED"])", R"(["ALLOCATED"])", R"(["IDLE", "DRAIN"])",
                          R"(["DOWN", "NOT_RESPONDING"])"};
  for (int i = 0; i < count; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "gpu-%05d", i);
    const int kind = i % 5;
    if (i > 0) out += ",\n";
    out += absl::StrReplaceAll(kNodeTemplate, {{"@NAME@", name},
                                               {"@STATES@", states[kind]},
                                               {"@GPUS@", absl::StrCat(kind == 2   ? 8
                                                                       : kind == 1 ? 4
                                                                                   : 0)},
                                               {"@ZONE@", absl::StrCat("zone-", i % 7)},
                                               {"@REASON@", kind == 3 ? "gpu xid 79" : ""},
                                               {"@ALLOC_CPUS@", absl::StrCat(kind == 2   ? 128
                                                                             : kind == 1 ? 64
                                                                                         : 0)},
                                               {"@ALLOC_MEM@", absl::StrCat(kind == 2   ? 1031000
                                                                            : kind == 1 ? 515500
                                                                                        : 0)}});
  }
  out += R"JSON(
  ],
  "last_update": {
    "set": true,
    "infinite": false,
    "number": 1796204175
  },
  "meta": {
    "plugin": {
      "type": "openapi\/slurmctld",
      "name": "Slurm OpenAPI slurmctld",
      "data_parser": "data_parser\/v0.0.45",
      "accounting_storage": ""
    },
    "client": {
      "source": "127.0.0.1:6820(fd:9)",
      "user": "root",
      "group": "root"
    },
    "command": [],
    "slurm": {
      "version": {
        "major": "26",
        "micro": "5",
        "minor": "05"
      },
      "release": "26.05.5",
      "cluster": "tidepool"
    }
  },
  "errors": [],
  "warnings": []
}
)JSON";
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 20;
  const std::string body = GenerateReply(count);
  const tidepool::slurm::rest::CallContext call{"GET", "/slurm/v0.0.45/nodes/", 200};

  std::vector<double> millis;
  size_t drained = 0;
  for (int r = 0; r < runs; ++r) {
    // The client parses the reply body it received in place; a fresh copy per run stands
    // for that body (made before the clock starts, its pages touched as curl's would be).
    std::string received;
    received.reserve(body.size() + 4096);  // the slack of a buffer grown by appending
    received.append(body);
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<tidepool::slurm::rest::NodeList> list =
        tidepool::slurm::rest::ParseNodesReply(std::move(received), call);
    const auto end = std::chrono::steady_clock::now();
    if (!list.ok() || static_cast<int>(list->nodes.size()) != count) {
      std::fprintf(stderr, "parse failed: %s\n", std::string(list.status().message()).c_str());
      return 1;
    }
    drained = static_cast<size_t>(std::count_if(
        list->nodes.begin(), list->nodes.end(), [](const tidepool::slurm::rest::Node& n) {
          return n.state.Has(tidepool::slurm::rest::NodeState::kDrain);
        }));
    millis.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  std::sort(millis.begin(), millis.end());

  std::vector<double> floor_millis;
  for (int r = 0; r < runs; ++r) {
    std::string received;
    received.reserve(body.size() + 4096);
    received.append(body);
    const auto start = std::chrono::steady_clock::now();
    slurm_rest_bench_rapidjson::Reader reader;
    slurm_rest_bench_rapidjson::BaseReaderHandler<> nothing;
    slurm_rest_bench_rapidjson::InsituStringStream stream(received.data());
    reader.Parse<slurm_rest_bench_rapidjson::kParseInsituFlag>(stream, nothing);
    const auto end = std::chrono::steady_clock::now();
    floor_millis.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  std::sort(floor_millis.begin(), floor_millis.end());
  const double mb = static_cast<double>(body.size()) / 1e6;
  std::printf("slurm_rest_bench: ParseNodesReply, %d nodes, %.1f MB reply, %zu drained\n", count,
              mb, drained);
  std::printf("  runs=%d  min=%.1f ms  median=%.1f ms  max=%.1f ms  (%.0f MB/s at the median)\n",
              runs, millis.front(), millis[millis.size() / 2], millis.back(),
              mb / (millis[millis.size() / 2] / 1000.0));
  std::printf("  RapidJSON reader alone (no handler, same bytes): min=%.1f ms  median=%.1f ms\n",
              floor_millis.front(), floor_millis[floor_millis.size() / 2]);
  std::printf("  target <= 30 ms: %s\n", millis[millis.size() / 2] <= 30.0 ? "met" : "NOT met");
  return 0;
}
