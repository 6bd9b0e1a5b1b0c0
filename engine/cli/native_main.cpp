// dbrepro-native: the engine without Python, for valgrind and perf.
// Prints the same JSON result the Python bindings parse.
//
//   dbrepro-native tpcc [--FIELD VALUE]...    one option per field of the run's
//                       settings (driver/tpcc/fields.hpp): --page-size sets
//                       page_size; [--no-consistency]
//   dbrepro-native key-cache --table-dir DIR [--FIELD VALUE]...   E2's model run, one option
//                       per field of driver/key_cache/fields.hpp; a summary line per cell
//   dbrepro-native durable-run --dir DIR [--stack step0|step1] [--warehouses N] [--terminals T]
//                       [--seconds S] [--transactions N] [--seed N] [--run-id N] [--acks FILE]
//                       [--checkpoint-every S] [--mix ...]
//   dbrepro-native recover --dir DIR [--stack step0|step1] [--seed N] [--acks FILE]... [--create]
//   dbrepro-native build-info
#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/build_info.hpp"
#include "driver/key_cache/fields.hpp"
#include "driver/tpcc/durable_run.hpp"
#include "driver/result_json.hpp"
#include "driver/tpcc/run.hpp"
#include "driver/tpcc/fields.hpp"
#include "field_options.hpp"
#include "key_cache_command.hpp"
#include "recovery/file_io.hpp"

namespace {

using dbrepro::cli::UsageError;
using dbrepro::cli::parse_double;
using dbrepro::cli::parse_uint;

constexpr const char* kCommands = "tpcc, key-cache, durable-run, recover, build-info";

// The tpcc and key-cache commands' options are their runs' settings tables
// (driver/tpcc/fields.hpp, driver/key_cache/fields.hpp), one per field,
// so the usage lists them from the same tables.
std::string usage() {
  return "usage: dbrepro-native tpcc [OPTION VALUE]... [--no-consistency]\n" +
         dbrepro::cli::options_usage(dbrepro::tpcc::run_fields()) +
         "       dbrepro-native key-cache --table-dir DIR [OPTION VALUE]...\n" +
         dbrepro::cli::options_usage(dbrepro::keycache_driver::key_cache_fields()) +
         "       dbrepro-native durable-run --dir DIR [--stack step0|step1] [--warehouses N] [--terminals T]\n"
         "                                  [--seconds S] [--transactions N] [--seed N] [--run-id N]\n"
         "                                  [--acks FILE] [--checkpoint-every S] [--mix TYPE=WEIGHT,...]\n"
         "       dbrepro-native recover --dir DIR [--stack step0|step1] [--seed N] [--acks FILE]... [--create]\n"
         "       dbrepro-native build-info\n"
         "tpcc runs TPC-C on the engine and prints the result as JSON on stdout; key-cache runs E2's\n"
         "select_random_points on an sbtest table (python -m dbrepro.key_cache build) and prints a line per cell.\n"
         "durable-run runs TPC-C on a database in DIR (created there if DIR is empty), appending each acknowledged\n"
         "commit to the acks FILE (which may not be inside DIR); --terminals 1..4095. recover opens it (redo, undo,\n"
         "checkpoint) and checks that every commit in each acks FILE is there; it creates a database in an empty\n"
         "DIR only with --create. Both check every option and file before DIR is written, and hold DIR itself, not\n"
         "its name: renamed or replaced during a run, the run goes on writing where it started.\n"
         "exit status: 0 ok; 1 a failed check or run (e.g. a checkpoint's I/O error); 2 bad arguments;\n"
         "3 a database directory refused (damaged or missing files, a broken log chain, in use).\n";
}

// Every option that takes a value is named here: an unknown option is
// reported as such, not as one missing its value.
void check_option(const std::string& option, std::initializer_list<const char*> known, int i, int argc) {
  if (std::find(known.begin(), known.end(), option) == known.end()) throw UsageError("unknown option '" + option + "'");
  if (i + 1 >= argc) throw UsageError(option + ": missing value");
}

bool help_flag(const std::string& option) {
  if (option != "-h" && option != "--help") return false;
  std::cout << usage();
  std::exit(0);
}

dbrepro::tpcc::RunConfig parse_tpcc(int argc, char** argv) {
  dbrepro::tpcc::RunConfig config;
  dbrepro::cli::parse_field_options(config, dbrepro::tpcc::run_fields(), 2, argc, argv, [&](const std::string& o) {
    if (o != "--no-consistency") return help_flag(o);
    config.check_consistency = false;
    return true;
  });
  return config;
}

// durable-run and recover: a database in a directory (driver/tpcc/durable_run.hpp).
struct DurableArgs {
  dbrepro::tpcc::DurableRunConfig run;
  std::vector<std::string> acks;  // recover: every acks file to check
  bool create = false;            // recover: may create a database in an empty directory
};

// `recover`: the command is recover (--acks may repeat, --create allowed).
DurableArgs parse_durable(int argc, char** argv, bool recover) {
  DurableArgs args;
  auto& c = args.run;
  c.run.stack = "step0";
  c.run.terminals = 4;
  c.run.transactions = 0;  // until killed, unless limited
  for (int i = 2; i < argc; ++i) {
    const std::string option = argv[i];
    if (help_flag(option)) continue;
    if (recover && option == "--create") {
      args.create = true;
      continue;
    }
    check_option(option,
                 {"--dir", "--stack", "--warehouses", "--terminals", "--seconds", "--transactions", "--seed",
                  "--run-id", "--acks", "--checkpoint-every", "--mix"},
                 i, argc);
    const std::string value = argv[++i];
    if (option == "--dir") c.dir = value;
    else if (option == "--run-id") c.run_id = parse_uint(option, value, dbrepro::tpcc::kMaxRunId);
    else if (option == "--terminals") {
      // A durable run's own range (its commit stamps'), not the table's.
      const unsigned long long terminals = parse_uint(option, value);
      try {
        dbrepro::tpcc::check_durable_terminals(terminals);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--") + e.what());
      }
      c.run.terminals = static_cast<dbrepro::u32>(terminals);
    } else if (option == "--acks") {
      if (!recover && !c.acks_path.empty()) throw UsageError("--acks: given twice (durable-run appends to one file)");
      c.acks_path = value;
      args.acks.push_back(value);
    } else if (option == "--checkpoint-every") c.checkpoint_every = parse_double(option, value);
    else  // a run setting check_option allowed
      dbrepro::cli::set_field(c.run, *dbrepro::cli::field_of_option(dbrepro::tpcc::run_fields(), option), option,
                              value);
  }
  if (c.dir.empty()) throw UsageError("--dir: required");
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) throw UsageError(std::string("missing command (allowed: ") + kCommands + ")");
    const std::string command = argv[1];
    if (command == "-h" || command == "--help") {
      std::cout << usage();
      return 0;
    }
    if (command == "build-info") {
      std::cout << dbrepro::to_json(dbrepro::build_info()) << "\n";
      return 0;
    }
    if (command == "durable-run") {
      std::cout << dbrepro::tpcc::durable_run(parse_durable(argc, argv, false).run) << std::endl;
      return 0;
    }
    if (command == "recover") {
      const DurableArgs args = parse_durable(argc, argv, true);
      const auto report = dbrepro::tpcc::durable_verify(args.run.dir, args.run.run, args.acks, args.create);
      std::cout << report.json << std::endl;
      return report.ok ? 0 : 1;
    }
    if (command == "key-cache") return dbrepro::cli::key_cache_command(argc, argv);
    if (command != "tpcc")
      throw UsageError("unknown command '" + command + "' (allowed: " + kCommands + ")");
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
