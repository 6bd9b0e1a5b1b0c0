// dbrepro-native: the engine without Python, for valgrind and perf.
// Prints the same JSON result the Python bindings parse.
//
//   dbrepro-native tpcc [--FIELD VALUE]...    one option per field of the run's
//                       settings (driver/tpcc/fields.hpp): --page-size sets
//                       page_size; [--no-consistency]
//   dbrepro-native key-cache --table-dir DIR [--FIELD VALUE]...   E2's model run, one option
//                       per field of driver/key_cache/fields.hpp; a summary line per cell
//   dbrepro-native durable-run --dir DIR [--FIELD VALUE]...   one option per field of
//                       driver/tpcc/durable_fields.hpp (stack, warehouses, terminals, seconds,
//                       transactions, seed, mix, run id, acks, checkpoint every)
//   dbrepro-native recover --dir DIR [--FIELD VALUE]... [--acks FILE]... [--create]   the same table
//   dbrepro-native build-info
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/build_info.hpp"
#include "driver/key_cache/fields.hpp"
#include "driver/tpcc/durable_fields.hpp"
#include "driver/tpcc/durable_run.hpp"
#include "driver/result_json.hpp"
#include "driver/tpcc/run.hpp"
#include "driver/tpcc/fields.hpp"
#include "field_options.hpp"
#include "io/printable.hpp"
#include "key_cache_command.hpp"
#include "recovery/file_io.hpp"

namespace {

using dbrepro::cli::UsageError;

constexpr const char* kCommands = "tpcc, key-cache, durable-run, recover, build-info";

// Each command's options are its settings table (driver/tpcc/fields.hpp,
// driver/key_cache/fields.hpp, driver/tpcc/durable_fields.hpp), one per
// field, so the usage lists them from the same tables.
std::string usage() {
  return "usage: dbrepro-native tpcc [OPTION VALUE]... [--no-consistency]\n" +
         dbrepro::cli::options_usage(dbrepro::tpcc::run_fields()) +
         "       dbrepro-native key-cache --table-dir DIR [OPTION VALUE]...\n" +
         dbrepro::cli::options_usage(dbrepro::keycache_driver::key_cache_fields()) +
         "       dbrepro-native durable-run --dir DIR [OPTION VALUE]...\n"
         "       dbrepro-native recover --dir DIR [OPTION VALUE]... [--acks FILE]... [--create]\n" +
         dbrepro::cli::options_usage(dbrepro::tpcc::durable_fields()) +
         "       dbrepro-native build-info\n"
         "tpcc runs TPC-C on the engine and prints the result as JSON on stdout; key-cache runs E2's\n"
         "select_random_points on an sbtest table (python -m dbrepro.key_cache build) and prints a line per cell.\n"
         "durable-run runs TPC-C on a database in DIR (created there if DIR is empty; a directory holding files\n"
         "that are not a database's is refused), as a run with an id no earlier run on the database had, writing\n"
         "a header naming the run, then each acknowledged commit, to the acks FILE (which may not be inside DIR).\n"
         "recover opens it (redo, undo, checkpoint) and checks that every commit in each acks FILE is there,\n"
         "each against the run its header names; it creates a database in an empty DIR only with --create.\n"
         "A database opens at its own size (its snapshot's warehouses; --warehouses must agree). Both check every\n"
         "option and file before DIR is written, and hold DIR itself, not its name: renamed during a run, the run\n"
         "goes on writing where it started; deleted, it stops (exit 1) before acknowledging another commit.\n"
         "exit status: 0 ok; 1 a failed check or run (e.g. a checkpoint's I/O error, a deleted directory);\n"
         "2 bad arguments; 3 a database directory refused (damaged, missing or foreign files, a broken log\n"
         "chain, in use).\n";
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

// An engine error that names a durable setting ("run_id: ...") as the
// option names it ("--run-id: ..."); any other as it is.
UsageError durable_option_error(const std::invalid_argument& e) {
  const std::string what = e.what();
  const std::string name = what.substr(0, what.find(':'));
  for (const auto& field : dbrepro::tpcc::durable_fields())
    if (name == field.name) return UsageError(dbrepro::cli::option_of(field.name) + what.substr(name.size()));
  return UsageError(what);
}

// durable-run and recover: a database in a directory (driver/tpcc/durable_run.hpp),
// both read through one table and checked by one function. `create`:
// recover's --create (null for durable-run).
dbrepro::tpcc::DurableRunConfig parse_durable(int argc, char** argv, bool* create) {
  dbrepro::tpcc::DurableRunConfig config;
  dbrepro::cli::parse_field_options(config, dbrepro::tpcc::durable_fields(), 2, argc, argv,
                                    [&](const std::string& o) {
                                      if (create == nullptr || o != "--create") return help_flag(o);
                                      *create = true;
                                      return true;
                                    });
  try {
    dbrepro::tpcc::validate_durable(config, create == nullptr);
  } catch (const std::invalid_argument& e) {
    throw durable_option_error(e);
  }
  return config;
}

// One line whatever the message holds (a path with a newline in it).
void print_error(const char* prefix, const std::exception& e) {
  std::cerr << "dbrepro-native: " << prefix << dbrepro::io::printable(e.what()) << "\n";
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
    if (command == "durable-run" || command == "recover") {
      bool create = false;
      const auto config = parse_durable(argc, argv, command == "recover" ? &create : nullptr);
      try {
        if (command == "durable-run") {
          std::cout << dbrepro::tpcc::durable_run(config) << std::endl;
          return 0;
        }
        const auto report = dbrepro::tpcc::durable_verify(config, create);
        std::cout << report.json << std::endl;
        return report.ok ? 0 : 1;
      } catch (const std::invalid_argument& e) {
        throw durable_option_error(e);  // a setting the database refused (its run ids, its size)
      }
    }
    if (command == "key-cache") return dbrepro::cli::key_cache_command(argc, argv);
    if (command != "tpcc")
      throw UsageError("unknown command '" + command + "' (allowed: " + kCommands + ")");
    const auto result = dbrepro::tpcc::run(parse_tpcc(argc, argv));
    std::cout << dbrepro::to_json(result) << "\n";
    return result.consistent() ? 0 : 1;
  } catch (const dbrepro::recovery::Refused& e) {
    print_error("refused: ", e);
    return 3;
  } catch (const UsageError& e) {
    print_error("error: ", e);
    return 2;
  } catch (const std::invalid_argument& e) {
    print_error("error: ", e);
    return 2;
  } catch (const std::exception& e) {
    print_error("", e);
    return 1;
  }
}
