#pragma once
// The one JSON writer of the engine's front ends: the run records
// (driver/result_json.cpp) and the native CLI's durable-run and recover
// reports print through it, so every string is escaped the same way (a
// path with a quote, a backslash or a newline stays one valid JSON line).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/types.hpp"

namespace dbrepro {

// A minimal JSON writer: enough for flat records of numbers and strings.
class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }

  JsonWriter& key(const char* k) {
    comma();
    string_literal(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(const std::string& s) {
    comma();
    string_literal(s);
    return *this;
  }
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& null() {
    comma();
    out_ += "null";
    return *this;
  }
  JsonWriter& value(bool b) {
    comma();
    out_ += b ? "true" : "false";
    return *this;
  }
  JsonWriter& value(u64 v) {
    comma();
    out_ += std::to_string(v);
    return *this;
  }
  JsonWriter& value(u32 v) { return value(static_cast<u64>(v)); }
  JsonWriter& value(i64 v) {
    comma();
    out_ += std::to_string(v);
    return *this;
  }
  JsonWriter& value(int v) {
    comma();
    out_ += std::to_string(v);
    return *this;
  }
  JsonWriter& value(double v) {
    comma();
    if (!std::isfinite(v)) {
      out_ += "null";
    } else {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.17g", v);
      out_ += buf;
      // Keep doubles recognisable as such ("0.0", not "0") for typed readers.
      if (std::strpbrk(buf, ".eEn") == nullptr) out_ += ".0";
    }
    return *this;
  }
  template <class T>
  JsonWriter& field(const char* k, const T& v) {
    key(k);
    return value(v);
  }

  std::string str() && { return std::move(out_); }

 private:
  JsonWriter& open(char c) {
    comma();
    out_ += c;
    first_ = true;
    return *this;
  }
  JsonWriter& close(char c) {
    out_ += c;
    first_ = false;
    return *this;
  }
  void comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_) out_ += ',';
    first_ = false;
  }
  void string_literal(const std::string& s) {
    out_ += '"';
    for (char c : s) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += c;
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  bool first_ = true;
  bool after_key_ = false;
};

}  // namespace dbrepro
