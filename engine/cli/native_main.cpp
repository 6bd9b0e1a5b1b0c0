// dbrepro-native: the engine without Python, for valgrind and perf.
// Prints the same JSON result the Python bindings parse.
//
//   dbrepro-native tpcc [--warehouses N] [--transactions N] [--seconds S]
//                       [--variant paper|spec] [--mix new_order=0.5,payment=0.5]
//                       [--seed N] [--stack bare|step0..step10|optimal] [--page-size BYTES]
//                       [--key-compare auto|generic|integer] [--meter none|perf] [--log-dir DIR]
//                       [--no-consistency]
//   dbrepro-native durable-run --dir DIR [--stack step0|step1] [--warehouses N] [--terminals T]
//                       [--seconds S] [--transactions N] [--seed N] [--run-id N] [--acks FILE]
//                       [--checkpoint-every S] [--mix ...]
//   dbrepro-native recover --dir DIR [--stack step0|step1] [--seed N] [--acks FILE]...
//   dbrepro-native build-info
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/build_info.hpp"
#include "driver/durable_run.hpp"
#include "driver/result_json.hpp"
#include "driver/run.hpp"
#include "recovery/file_io.hpp"

namespace {

constexpr const char* kUsage =
    "usage: dbrepro-native tpcc [--warehouses N] [--transactions N] [--seconds S]\n"
    "                           [--variant paper|spec] [--mix TYPE=WEIGHT,...] [--seed N]\n"
    "                           [--stack bare|step0..step10|optimal] [--page-size BYTES]\n"
    "                           [--key-compare auto|generic|integer] [--meter none|perf]\n"
    "                           [--log-dir DIR] [--no-consistency]\n"
    "       dbrepro-native durable-run --dir DIR [--stack step0|step1] [--warehouses N] [--terminals T]\n"
    "                                  [--seconds S] [--transactions N] [--seed N] [--run-id N]\n"
    "                                  [--acks FILE] [--checkpoint-every S] [--mix TYPE=WEIGHT,...]\n"
    "       dbrepro-native recover --dir DIR [--stack step0|step1] [--seed N] [--acks FILE]...\n"
    "       dbrepro-native build-info\n"
    "Runs TPC-C on the engine and prints the result as JSON on stdout.\n"
    "exit status: 0 ok; 1 a failed check or run (e.g. a checkpoint's I/O error); 2 bad arguments;\n"
    "3 a database directory refused (damaged or missing files, a broken log chain, in use).\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

unsigned long long parse_uint(const std::string& option, const std::string& text,
                              unsigned long long max = std::numeric_limits<unsigned long long>::max()) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(option + ": expected a non-negative integer, got '" + text + "'");
  if (errno == ERANGE || v > max)
    throw UsageError(option + ": " + text + " is out of range (at most " + std::to_string(max) + ")");
  return v;
}

dbrepro::u32 parse_u32(const std::string& option, const std::string& text) {
  return static_cast<dbrepro::u32>(parse_uint(option, text, std::numeric_limits<dbrepro::u32>::max()));
}

// A finite number: "nan", "inf" and values beyond a double are refused.
double parse_double(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') throw UsageError(option + ": expected a number, got '" + text + "'");
  if (!std::isfinite(v) || errno == ERANGE)
    throw UsageError(option + ": expected a finite number, got '" + text + "'");
  return v;
}

// Every option that takes a value is named here: an unknown option is
// reported as such, not as one missing its value.
void check_option(const std::string& option, std::initializer_list<const char*> known, int i, int argc) {
  if (std::find(known.begin(), known.end(), option) == known.end()) throw UsageError("unknown option '" + option + "'");
  if (i + 1 >= argc) throw UsageError(option + ": missing value");
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
    check_option(option,
                 {"--warehouses", "--transactions", "--seconds", "--variant", "--mix", "--seed", "--page-size",
                  "--key-compare", "--stack", "--meter", "--log-dir", "--terminals"},
                 i, argc);
    const std::string value = argv[++i];
    if (option == "--warehouses") config.warehouses = parse_u32(option, value);
    else if (option == "--transactions") config.transactions = parse_uint(option, value);
    else if (option == "--seconds") config.seconds = parse_double(option, value);
    else if (option == "--variant") config.variant = dbrepro::tpcc::parse_variant(value);
    else if (option == "--mix") parse_mix(value, config);
    else if (option == "--seed") config.seed = parse_uint(option, value);
    else if (option == "--page-size") config.page_size = parse_u32(option, value);
    else if (option == "--key-compare") config.key_compare = value;
    else if (option == "--stack") config.stack = value;
    else if (option == "--meter") config.meter = value;
    else if (option == "--log-dir") config.log_dir = value;
    else if (option == "--terminals") config.terminals = parse_u32(option, value);
    else throw UsageError("unknown option '" + option + "'");
  }
  return config;
}

// durable-run and recover: a database in a directory (driver/durable_run.hpp).
struct DurableArgs {
  dbrepro::tpcc::DurableRunConfig run;
  std::vector<std::string> acks;  // recover: every acks file to check
};

DurableArgs parse_durable(int argc, char** argv) {
  DurableArgs args;
  auto& c = args.run;
  c.run.stack = "step0";
  c.run.terminals = 4;
  c.run.transactions = 0;  // until killed, unless limited
  for (int i = 2; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "-h" || option == "--help") {
      std::cout << kUsage;
      std::exit(0);
    }
    check_option(option,
                 {"--dir", "--stack", "--warehouses", "--terminals", "--seconds", "--transactions", "--seed",
                  "--run-id", "--acks", "--checkpoint-every", "--mix"},
                 i, argc);
    const std::string value = argv[++i];
    if (option == "--dir") c.dir = value;
    else if (option == "--stack") c.run.stack = value;
    else if (option == "--warehouses") c.run.warehouses = parse_u32(option, value);
    else if (option == "--terminals") c.run.terminals = parse_u32(option, value);
    else if (option == "--seconds") c.run.seconds = parse_double(option, value);
    else if (option == "--transactions") c.run.transactions = parse_uint(option, value);
    else if (option == "--seed") c.run.seed = parse_uint(option, value);
    else if (option == "--run-id") c.run_id = parse_uint(option, value);
    else if (option == "--acks") {
      c.acks_path = value;
      args.acks.push_back(value);
    } else if (option == "--checkpoint-every") c.checkpoint_every = parse_double(option, value);
    else if (option == "--mix") parse_mix(value, c.run);
    else throw UsageError("unknown option '" + option + "'");
  }
  if (c.dir.empty()) throw UsageError("--dir: required");
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) throw UsageError("missing command (allowed: tpcc, durable-run, recover, build-info)");
    const std::string command = argv[1];
    if (command == "-h" || command == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (command == "build-info") {
      std::cout << dbrepro::to_json(dbrepro::build_info()) << "\n";
      return 0;
    }
    if (command == "durable-run") {
      std::cout << dbrepro::tpcc::durable_run(parse_durable(argc, argv).run) << std::endl;
      return 0;
    }
    if (command == "recover") {
      const DurableArgs args = parse_durable(argc, argv);
      const auto report = dbrepro::tpcc::durable_verify(args.run.dir, args.run.run, args.acks);
      std::cout << report.json << std::endl;
      return report.ok ? 0 : 1;
    }
    if (command != "tpcc")
      throw UsageError("unknown command '" + command + "' (allowed: tpcc, durable-run, recover, build-info)");
    const auto result = dbrepro::tpcc::run(parse_tpcc(argc, argv));
    std::cout << dbrepro::to_json(result) << "\n";
    return result.consistent() ? 0 : 1;
  } catch (const dbrepro::recovery::Refused& e) {
    std::cerr << "dbrepro-native: refused: " << e.what() << "\n";
    return 3;
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
