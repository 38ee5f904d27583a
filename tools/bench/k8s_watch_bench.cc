// Watch-path throughput without a server: splitting a stream into lines, parsing
// events, and the relist diff over many objects. Prints timings; not run by ctest.
//
//   k8s_watch_bench [objects=20000] [chunk_bytes=16384]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "k8s/watch.h"

namespace {

using tidepool::k8s::KnownObjects;
using tidepool::k8s::LineSplitter;
using tidepool::k8s::ParseWatchEvent;
using tidepool::k8s::ResyncEvents;

std::string Pod(int i, int rv) {
  return absl::StrCat(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-)", i,
                      R"(","namespace":"ns-)", i % 50, R"(","uid":"0000-)", i,
                      R"(","resourceVersion":")", rv,
                      R"(","labels":{"app":"bench","slurm.tidepool.dev/node":"n-)", i % 1000,
                      R"("}},"spec":{"nodeName":"n-)", i % 1000,
                      R"(","containers":[{"name":"main","image":"busybox"}]},)"
                      R"("status":{"phase":"Running"}})");
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int objects = argc > 1 ? std::atoi(argv[1]) : 20000;
  const size_t chunk = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 16384;
  if (objects <= 0 || chunk == 0) {
    std::fprintf(stderr, "usage: k8s_watch_bench [objects>0] [chunk_bytes>0]\n");
    return 2;
  }

  std::string stream;
  std::vector<std::string> listed;
  for (int i = 0; i < objects; ++i) {
    absl::StrAppend(&stream, R"({"type":"MODIFIED","object":)", Pod(i, 1000 + i), "}\n");
    listed.push_back(Pod(i, i % 3 == 0 ? 5000 + i : 1000 + i));
  }

  auto start = std::chrono::steady_clock::now();
  LineSplitter splitter;
  size_t lines = 0;
  size_t parsed = 0;
  for (size_t at = 0; at < stream.size(); at += chunk) {
    splitter.Feed(absl::string_view(stream).substr(at, chunk), [&](absl::string_view line) {
      ++lines;
      if (ParseWatchEvent(line).ok()) ++parsed;
      return true;
    });
  }
  const double parse_s = Seconds(start);
  std::printf(
      "watch stream: %zu events, %.1f MB in %zu-byte chunks: %.3f s (%.0f events/s, %.1f MB/s)\n",
      parsed, stream.size() / 1e6, chunk, parse_s, parsed / parse_s, stream.size() / 1e6 / parse_s);
  if (lines != static_cast<size_t>(objects) || parsed != lines) {
    std::fprintf(stderr, "expected %d events, got %zu lines, %zu parsed\n", objects, lines, parsed);
    return 1;
  }

  KnownObjects known;
  for (int i = 0; i < objects; ++i) {
    if (i % 10 == 9) continue;  // new on the server
    known[absl::StrCat("ns-", i % 50, "/pod-", i)] = {absl::StrCat(1000 + i), Pod(i, 1000 + i)};
  }
  known["ns-0/vanished"] = {"1", Pod(-1, 1)};
  start = std::chrono::steady_clock::now();
  const std::vector<tidepool::k8s::WatchEvent> events = ResyncEvents(known, listed);
  const double diff_s = Seconds(start);
  std::printf("relist diff: %d listed vs %zu known -> %zu events: %.3f s\n", objects, known.size(),
              events.size(), diff_s);
  return 0;
}
