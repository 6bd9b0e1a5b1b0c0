// dbrepro-native: the engine without Python, for valgrind and perf.
// Prints the same JSON result the Python bindings parse.
//
//   dbrepro-native tpcc [--warehouses N] [--transactions N] [--seconds S]
//                       [--variant paper|spec] [--mix new_order=0.5,payment=0.5]
//                       [--seed N] [--stack bare|step0..step10|optimal] [--page-size BYTES]
//                       [--key-compare auto|generic|integer] [--meter none|perf] [--log-dir DIR]
//                       [--no-consistency]
//   dbrepro-native build-info
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>

#include "driver/build_info.hpp"
#include "driver/result_json.hpp"
#include "driver/run.hpp"

namespace {

constexpr const char* kUsage =
    "usage: dbrepro-native tpcc [--warehouses N] [--transactions N] [--seconds S]\n"
    "                           [--variant paper|spec] [--mix TYPE=WEIGHT,...] [--seed N]\n"
    "                           [--stack bare|step0..step10|optimal] [--page-size BYTES]\n"
    "                           [--key-compare auto|generic|integer] [--meter none|perf]\n"
    "                           [--log-dir DIR] [--no-consistency]\n"
    "       dbrepro-native build-info\n"
    "Runs TPC-C on the engine and prints the result as JSON on stdout.\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

unsigned long long parse_uint(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-')
    throw UsageError(option + ": expected a non-negative integer, got '" + text + "'");
  return v;
}

double parse_double(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') throw UsageError(option + ": expected a number, got '" + text + "'");
  return v;
}

void parse_mix(const std::string& text, dbrepro::tpcc::RunConfig& config) {
  config.mix.fill(0.0);
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw UsageError("--mix: expected TYPE=WEIGHT, got '" + item + "'");
    const auto type = dbrepro::tpcc::parse_txn_type(item.substr(0, eq));
    config.mix[static_cast<int>(type)] = parse_double("--mix", item.substr(eq + 1));
    start = end + 1;
  }
}

dbrepro::tpcc::RunConfig parse_tpcc(int argc, char** argv) {
  dbrepro::tpcc::RunConfig config;
  for (int i = 2; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--no-consistency") {
      config.check_consistency = false;
      continue;
    }
    if (option == "-h" || option == "--help") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (i + 1 >= argc) throw UsageError(option + ": missing value");
    const std::string value = argv[++i];
    if (option == "--warehouses") config.warehouses = static_cast<dbrepro::u32>(parse_uint(option, value));
    else if (option == "--transactions") config.transactions = parse_uint(option, value);
    else if (option == "--seconds") config.seconds = parse_double(option, value);
    else if (option == "--variant") config.variant = dbrepro::tpcc::parse_variant(value);
    else if (option == "--mix") parse_mix(value, config);
    else if (option == "--seed") config.seed = parse_uint(option, value);
    else if (option == "--page-size") config.page_size = static_cast<dbrepro::u32>(parse_uint(option, value));
    else if (option == "--key-compare") config.key_compare = value;
    else if (option == "--stack") config.stack = value;
    else if (option == "--meter") config.meter = value;
    else if (option == "--log-dir") config.log_dir = value;
    else throw UsageError("unknown option '" + option + "'");
  }
  return config;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) throw UsageError("missing command (allowed: tpcc, build-info)");
    const std::string command = argv[1];
    if (command == "-h" || command == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (command == "build-info") {
      std::cout << dbrepro::to_json(dbrepro::build_info()) << "\n";
      return 0;
    }
    if (command != "tpcc") throw UsageError("unknown command '" + command + "' (allowed: tpcc, build-info)");
    const auto result = dbrepro::tpcc::run(parse_tpcc(argc, argv));
    std::cout << dbrepro::to_json(result) << "\n";
    return result.consistent() ? 0 : 1;
  } catch (const UsageError& e) {
    std::cerr << "dbrepro-native: error: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "dbrepro-native: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "dbrepro-native: " << e.what() << "\n";
    return 1;
  }
}
