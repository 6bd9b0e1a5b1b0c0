// dbrepro-machine: the machine's primitive costs (measure/primitives.hpp) as one
// JSON object on stdout, for the run's fingerprint (dbrepro.machine).
//
//   dbrepro-machine --dir RESULTS_DIR [--brief]
//
// --dir: where the disk's latencies are measured (a scratch file, removed).
// --brief: a tenth of the rounds and a quarter of the memory (about 2 s), for a
// run that times nothing (the smoke profile); the record says so.
// Exit 2 on bad arguments, one line on stderr.
#include <cstdio>
#include <string>
#include <thread>

#include "measure/primitives.hpp"

namespace {

using namespace dbrepro::measure;

// 2: the ping-pongs pin threads of their own (in 1 they pinned the caller, so the mutex hand-offs'
// threads, started after, all ran on one CPU and were rarely contended: their figures are not a
// contended mutex's). dbrepro.verdicts.kinds reads a field only from the versions that measure it.
constexpr int kVersion = 2;

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned char>(c));
      out += escaped;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

std::string maybe(const std::optional<double>& value) { return value ? number(*value) : "null"; }

std::string handoffs_json(const MutexHandoffs& m) {
  return "{\"threads\": " + std::to_string(m.threads) + ", \"seconds\": " + number(m.seconds) +
         ", \"acquisitions\": " + std::to_string(m.acquisitions) + ", \"contended\": " + std::to_string(m.contended) +
         ", \"handoffs\": " + std::to_string(m.handoffs) + ", \"ns_per_acquisition\": " + number(m.ns_per_acquisition) +
         ", \"contended_share\": " + number(m.contended_share) + ", \"handoff_share\": " + number(m.handoff_share) + "}";
}

}  // namespace

int main(int argc, char** argv) {
  std::string folder;
  bool brief = false;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--dir" && i + 1 < argc) {
      folder = argv[++i];
    } else if (word == "--brief") {
      brief = true;
    } else {
      std::fprintf(stderr, "dbrepro-machine: usage: dbrepro-machine --dir RESULTS_DIR (got %s)\n", word.c_str());
      return 2;
    }
  }
  if (folder.empty()) {
    std::fprintf(stderr, "dbrepro-machine: --dir RESULTS_DIR is required\n");
    return 2;
  }
  const auto start = Clock::now();
  const auto cpus = usable_cpus();
  const int first = cpus.empty() ? 0 : cpus.front();
  const int second = cpus.size() > 1 ? cpus[1] : first;
  const int scale = brief ? 10 : 1;
  const double loop = fixed_loop_seconds(brief ? 1 : 3);
  const std::string across = cpus.size() > 1 ? number(ping_pong_ns(first, second, false, 200000 / scale)) : "null";
  const std::string wake = cpus.size() > 1 ? number(ping_pong_ns(first, second, true, 20000 / scale)) : "null";
  const double switch_ns = ping_pong_ns(first, first, true, 20000 / scale);
  const MutexHandoffs four = mutex_handoffs(4, 0.5 / scale);
  const MutexHandoffs sixty_four = mutex_handoffs(64, 0.5 / scale);
  const double memory = memory_latency_ns((size_t{1} << 30) / (brief ? 4 : 1), 5'000'000 / scale);
  const DiskLatency disk = disk_latency(folder, 100 / scale, 400 / scale);
  std::printf(
      "{\"fixed_loop_s\": %s, \"cache_line_transfer_ns\": %s, \"cross_cpu_wakeup_ns\": %s, "
      "\"context_switch_ns\": %s, \"mutex_handoffs\": [%s, %s], \"memory_latency_ns\": %s, "
      "\"fdatasync_us_median\": %s, \"fdatasync_us_p90\": %s, \"odirect_read_4k_us_median\": %s, "
      "\"odirect_read_4k_us_p90\": %s, \"disk_errors\": {\"fdatasync\": %s, \"odirect\": %s}, "
      "\"usable_cpus\": %zu, \"hardware_threads\": %u, \"brief\": %s, \"version\": %d, \"seconds\": %s}\n",
      number(loop).c_str(), across.c_str(), wake.c_str(), number(switch_ns).c_str(), handoffs_json(four).c_str(),
      handoffs_json(sixty_four).c_str(), number(memory).c_str(), maybe(disk.fdatasync_us_median).c_str(),
      maybe(disk.fdatasync_us_p90).c_str(), maybe(disk.odirect_read_us_median).c_str(),
      maybe(disk.odirect_read_us_p90).c_str(), quoted(disk.fdatasync_error).c_str(),
      quoted(disk.odirect_error).c_str(), cpus.size(), std::thread::hardware_concurrency(), brief ? "true" : "false",
      kVersion, number(seconds_since(start)).c_str());
  return 0;
}
