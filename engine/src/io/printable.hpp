#pragma once
// Text a user gave (a path, an option's value, a line of a file) as it may
// stand in a one-line message: every control byte (a newline, a tab, an
// escape) as \xNN, so that `--dir $'a\nb'` cannot split an error in two.
// `ascii_only` (a file's contents, shown between quotes) escapes every byte
// outside printable ASCII, and the quote, too.
#include <cstdio>
#include <string>
#include <string_view>

namespace dbrepro::io {

inline std::string printable(std::string_view text, bool ascii_only = false) {
  std::string shown;
  shown.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool escape = c < 0x20 || c == 0x7f || (ascii_only && (c >= 0x80 || c == '\''));
    if (!escape) {
      shown += ch;
      continue;
    }
    char hex[8];
    std::snprintf(hex, sizeof(hex), "\\x%02x", c);
    shown += hex;
  }
  return shown;
}

}  // namespace dbrepro::io
