#pragma once
// dbrepro-native's options from a settings table (common/config_fields.hpp):
// one option per field (`--page-size` sets page_size), the value read as the
// field's type and set through the table, so a command's options and usage
// never restate its settings. Errors name the option, one line each.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/config_fields.hpp"

namespace dbrepro::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline unsigned long long parse_uint(const std::string& option, const std::string& text,
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
inline double parse_double(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') throw UsageError(option + ": expected a number, got '" + text + "'");
  if (!std::isfinite(v) || errno == ERANGE)
    throw UsageError(option + ": expected a finite number, got '" + text + "'");
  return v;
}

inline std::string option_of(const char* field_name) {
  std::string option = std::string("--") + field_name;
  std::replace(option.begin(), option.end(), '_', '-');
  return option;
}

// One usage line per field: the option, its type and its help.
template <class Config>
std::string options_usage(std::span<const config::Field<Config>> fields) {
  std::string text;
  for (const auto& field : fields) {
    const std::string option = option_of(field.name) + " " + config::field_type_name(field.type);
    text += "         " + option + std::string(option.size() < 26 ? 26 - option.size() : 1, ' ') + field.help + "\n";
  }
  return text;
}

// The field an option names ("--page-size" -> page_size), or null.
template <class Config>
const config::Field<Config>* field_of_option(std::span<const config::Field<Config>> fields,
                                             const std::string& option) {
  if (option.rfind("--", 0) != 0) return nullptr;
  std::string name = option.substr(2);
  std::replace(name.begin(), name.end(), '-', '_');
  for (const auto& field : fields)
    if (name == field.name) return &field;
  return nullptr;
}

// A comma-separated list, each item read by `item`.
template <class Item, class Read>
std::vector<Item> comma_list(const std::string& text, Read read) {
  std::vector<Item> list;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    list.push_back(read(text.substr(start, end - start)));
    start = end + 1;
  }
  return list;
}

// A command-line value read as the field's type.
inline config::FieldValue field_value(config::FieldType type, const std::string& option, const std::string& text) {
  using config::FieldType;
  switch (type) {
    case FieldType::kBool:
      if (text == "true" || text == "1" || text == "yes") return true;
      if (text == "false" || text == "0" || text == "no") return false;
      throw UsageError(option + ": expected true or false, got '" + text + "'");
    case FieldType::kUnsigned:
      return config::FieldInteger{parse_uint(option, text), false};
    case FieldType::kFloat:
      return parse_double(option, text);
    case FieldType::kText:
      return text;
    case FieldType::kMix: {
      std::map<std::string, double> mix;
      for (const std::string& item : comma_list<std::string>(text, [](const std::string& s) { return s; })) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos) throw UsageError(option + ": expected TYPE=WEIGHT, got '" + item + "'");
        mix[item.substr(0, eq)] = parse_double(option, item.substr(eq + 1));
      }
      return mix;
    }
    case FieldType::kUnsignedList:
      return comma_list<config::FieldInteger>(
          text, [&](const std::string& item) { return config::FieldInteger{parse_uint(option, item), false}; });
  }
  throw UsageError(option + ": unsupported setting type");
}

// Sets the field through the table; its range errors name the option.
template <class Config>
void set_field(Config& config, const config::Field<Config>& field, const std::string& option,
               const std::string& text) {
  try {
    field.set(config, field_value(field.type, option, text));
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    const std::string own = std::string(field.name) + ":";
    throw UsageError(what.rfind(own, 0) == 0 ? option + what.substr(own.size() - 1) : option + ": " + what);
  }
}

// Reads `--field value` pairs from argv[first..] into `config`; `flag` may
// take an option first (returns true when it did, e.g. --help).
template <class Config, class Flag>
void parse_field_options(Config& config, std::span<const config::Field<Config>> fields, int first, int argc,
                         char** argv, Flag flag) {
  for (int i = first; i < argc; ++i) {
    const std::string option = argv[i];
    if (flag(option)) continue;
    const auto* field = field_of_option(fields, option);
    if (field == nullptr) throw UsageError("unknown option '" + option + "'");
    if (i + 1 >= argc) throw UsageError(option + ": missing value");
    set_field(config, *field, option, argv[++i]);
  }
}

}  // namespace dbrepro::cli
