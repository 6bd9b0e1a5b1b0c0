#pragma once
// A number as a message shows it: the shortest text that reads back as the
// same double (std::to_chars), so 1.0000001 is reported as given, not
// rounded to std::to_string's six decimals ("1.000000").
#include <charconv>
#include <string>

namespace dbrepro {

inline std::string number_text(double v) {
  char text[32];
  const auto [end, error] = std::to_chars(text, text + sizeof(text), v);
  return error == std::errc{} ? std::string(text, end) : std::to_string(v);
}

}  // namespace dbrepro
