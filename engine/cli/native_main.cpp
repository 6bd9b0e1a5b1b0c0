// dbrepro-native: the engine without Python, for valgrind and perf.
// Prints the same JSON result the Python bindings parse.
//
//   dbrepro-native tpcc [--FIELD VALUE]...    one option per field of the run's
//                       settings (driver/run_config_fields.hpp): --page-size sets
//                       page_size; [--no-consistency]
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
#include <map>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/build_info.hpp"
#include "driver/durable_run.hpp"
#include "driver/result_json.hpp"
#include "driver/run.hpp"
#include "driver/run_config_fields.hpp"
#include "recovery/file_io.hpp"

namespace {

// The tpcc command's options are the run's settings (driver/run_config_fields.hpp),
// one per field, so the usage lists them from the same table.
std::string usage() {
  std::string text = "usage: dbrepro-native tpcc [OPTION VALUE]... [--no-consistency]\n";
  for (const auto& field : dbrepro::tpcc::run_fields()) {
    std::string option = std::string("--") + field.name;
    std::replace(option.begin(), option.end(), '_', '-');
    option += std::string(" ") + dbrepro::tpcc::field_type_name(field.type);
    text += "         " + option + std::string(option.size() < 26 ? 26 - option.size() : 1, ' ') + field.help + "\n";
  }
  return text +
         "       dbrepro-native durable-run --dir DIR [--stack step0|step1] [--warehouses N] [--terminals T]\n"
         "                                  [--seconds S] [--transactions N] [--seed N] [--run-id N]\n"
         "                                  [--acks FILE] [--checkpoint-every S] [--mix TYPE=WEIGHT,...]\n"
         "       dbrepro-native recover --dir DIR [--stack step0|step1] [--seed N] [--acks FILE]...\n"
         "       dbrepro-native build-info\n"
         "Runs TPC-C on the engine and prints the result as JSON on stdout.\n"
         "exit status: 0 ok; 1 a failed check or run (e.g. a checkpoint's I/O error); 2 bad arguments;\n"
         "3 a database directory refused (damaged or missing files, a broken log chain, in use).\n";
}

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

// The field an option names ("--page-size" -> page_size), or null.
const dbrepro::tpcc::RunField* field_of_option(const std::string& option) {
  if (option.rfind("--", 0) != 0) return nullptr;
  std::string name = option.substr(2);
  std::replace(name.begin(), name.end(), '-', '_');
  for (const auto& field : dbrepro::tpcc::run_fields())
    if (name == field.name) return &field;
  return nullptr;
}

// A command-line value read as the field's type.
dbrepro::tpcc::FieldValue field_value(const dbrepro::tpcc::RunField& field, const std::string& option,
                                      const std::string& text) {
  using dbrepro::tpcc::FieldType;
  switch (field.type) {
    case FieldType::kBool:
      if (text == "true" || text == "1" || text == "yes") return true;
      if (text == "false" || text == "0" || text == "no") return false;
      throw UsageError(option + ": expected true or false, got '" + text + "'");
    case FieldType::kUnsigned:
      return dbrepro::tpcc::FieldInteger{parse_uint(option, text), false};
    case FieldType::kFloat:
      return parse_double(option, text);
    case FieldType::kText:
      return text;
    case FieldType::kMix: {
      std::map<std::string, double> mix;
      size_t start = 0;
      while (start <= text.size()) {
        const size_t end = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, end - start);
        const size_t eq = item.find('=');
        if (eq == std::string::npos) throw UsageError(option + ": expected TYPE=WEIGHT, got '" + item + "'");
        mix[item.substr(0, eq)] = parse_double(option, item.substr(eq + 1));
        start = end + 1;
      }
      return mix;
    }
    case FieldType::kUnsignedList: {
      std::vector<dbrepro::tpcc::FieldInteger> list;
      size_t start = 0;
      while (start <= text.size()) {
        const size_t end = std::min(text.find(',', start), text.size());
        list.push_back({parse_uint(option, text.substr(start, end - start)), false});
        start = end + 1;
      }
      return list;
    }
  }
  throw UsageError(option + ": unsupported setting type");
}

// Sets the field through the table; its range errors name the option.
void set_field(dbrepro::tpcc::RunConfig& config, const dbrepro::tpcc::RunField& field, const std::string& option,
               const std::string& text) {
  try {
    field.set(config, field_value(field, option, text));
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    const std::string own = std::string(field.name) + ":";
    throw UsageError(what.rfind(own, 0) == 0 ? option + what.substr(own.size() - 1) : option + ": " + what);
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
      std::cout << usage();
      std::exit(0);
    }
    const auto* field = field_of_option(option);
    if (field == nullptr) throw UsageError("unknown option '" + option + "'");
    if (i + 1 >= argc) throw UsageError(option + ": missing value");
    set_field(config, *field, option, argv[++i]);
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
      std::cout << usage();
      std::exit(0);
    }
    check_option(option,
                 {"--dir", "--stack", "--warehouses", "--terminals", "--seconds", "--transactions", "--seed",
                  "--run-id", "--acks", "--checkpoint-every", "--mix"},
                 i, argc);
    const std::string value = argv[++i];
    if (option == "--dir") c.dir = value;
    else if (option == "--run-id") c.run_id = parse_uint(option, value);
    else if (option == "--acks") {
      c.acks_path = value;
      args.acks.push_back(value);
    } else if (option == "--checkpoint-every") c.checkpoint_every = parse_double(option, value);
    else set_field(c.run, *field_of_option(option), option, value);  // a run setting check_option allowed
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
      std::cout << usage();
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
