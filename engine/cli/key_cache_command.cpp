#include "key_cache_command.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>

#include "driver/key_cache/fields.hpp"
#include "driver/key_cache/run.hpp"
#include "field_options.hpp"

namespace dbrepro::cli {

namespace {

std::string usage() {
  return "usage: dbrepro-native key-cache --table-dir DIR [OPTION VALUE]...\n" +
         options_usage(keycache_driver::key_cache_fields()) +
         "Runs select_random_points against the key cache on the sbtest table in DIR (written by\n"
         "python -m dbrepro.key_cache build) and prints a line per cell, as python -m dbrepro.key_cache run\n"
         "does (no record: that is the Python command's).\n";
}

// validate()'s "name: ..." errors said as the option ("--index-fraction: ...").
void validate_as_options(const keycache_driver::KeyCacheRunConfig& config) {
  try {
    keycache_driver::validate(config);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    for (const auto& field : keycache_driver::key_cache_fields()) {
      const std::string own = std::string(field.name) + ":";
      if (what.rfind(own, 0) == 0) throw UsageError(option_of(field.name) + what.substr(own.size() - 1));
    }
    throw UsageError(what);
  }
}

}  // namespace

int key_cache_command(int argc, char** argv) {
  keycache_driver::KeyCacheRunConfig config;
  parse_field_options(config, keycache_driver::key_cache_fields(), 2, argc, argv, [](const std::string& option) {
    if (option != "-h" && option != "--help") return false;
    std::cout << usage();
    std::exit(0);
  });
  if (config.table_dir.empty()) throw UsageError("--table-dir: required (a folder holding sbtest)");
  if (!std::filesystem::is_regular_file(std::filesystem::path(config.table_dir) / "sbtest.MYI"))
    throw UsageError("--table-dir: no sbtest table in '" + config.table_dir +
                     "' (build one: python -m dbrepro.key_cache build)");
  validate_as_options(config);
  const auto result = keycache_driver::run_key_cache(config);
  for (const auto& cell : result.cells)
    std::printf("%s: segments=%u threads=%u P=%u cache=%g of the index: %.0f q/s, mutex waits %llu, long holds %llu\n",
                result.mode.c_str(), cell.segments, cell.threads, cell.points, cell.index_fraction,
                cell.queries_per_second, static_cast<unsigned long long>(cell.counters.latch_waits),
                static_cast<unsigned long long>(cell.holds.long_holds));
  return 0;
}

}  // namespace dbrepro::cli
