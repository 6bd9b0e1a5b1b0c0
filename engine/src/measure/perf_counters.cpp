#include "measure/perf_counters.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

namespace dbrepro {

namespace {

int open_counter(u64 config, int group_fd) {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof(attr);
  attr.config = config;
  attr.disabled = group_fd < 0 ? 1 : 0;  // the leader starts disabled
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_GROUP;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0 /*this thread*/, -1 /*any cpu*/, group_fd, 0));
}

std::string describe_errno(int err) {
  const char* name = err == ENOENT ? "ENOENT" : err == EACCES ? "EACCES" : err == EPERM ? "EPERM"
                     : err == ENODEV ? "ENODEV" : err == EOPNOTSUPP ? "EOPNOTSUPP" : err == ENOSYS ? "ENOSYS"
                                                                                                  : "errno";
  return std::string(name) + " (" + std::to_string(err) + "): " + std::strerror(err);
}

}  // namespace

PerfCounters::~PerfCounters() {
  if (cycles_fd_ >= 0) ::close(cycles_fd_);
  if (leader_fd_ >= 0) ::close(leader_fd_);
}

bool PerfCounters::open() {
  leader_fd_ = open_counter(PERF_COUNT_HW_INSTRUCTIONS, -1);
  if (leader_fd_ < 0) {
    error_ = "perf_event_open(instructions): " + describe_errno(errno);
    return false;
  }
  cycles_fd_ = open_counter(PERF_COUNT_HW_CPU_CYCLES, leader_fd_);
  if (cycles_fd_ < 0) {
    error_ = "perf_event_open(cycles): " + describe_errno(errno);
    ::close(leader_fd_);
    leader_fd_ = -1;
    return false;
  }
  ioctl(leader_fd_, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
  ioctl(leader_fd_, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
  return true;
}

CounterValues PerfCounters::read() const {
  struct {
    u64 nr;
    u64 values[2];
  } data{};
  if (::read(leader_fd_, &data, sizeof(data)) != static_cast<ssize_t>(sizeof(data))) return {};
  return CounterValues{static_cast<i64>(data.values[0]), static_cast<i64>(data.values[1])};
}

void PerfCounters::calibrate(int rounds) {
  CounterValues best{std::numeric_limits<i64>::max(), std::numeric_limits<i64>::max()};
  for (int i = 0; i < rounds; ++i) {
    const CounterValues a = read();
    const CounterValues b = read();
    best.instructions = std::min(best.instructions, b.instructions - a.instructions);
    best.cycles = std::min(best.cycles, b.cycles - a.cycles);
  }
  read_cost_ = best;
}

std::string PerfCounters::probe() {
  PerfCounters counters;
  return counters.open() ? "" : counters.error();
}

}  // namespace dbrepro
