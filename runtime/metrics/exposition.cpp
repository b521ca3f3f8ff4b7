// SPDX-License-Identifier: Apache-2.0
#include "metrics/exposition.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace distlock::detail::prometheus {

void append_header(std::string& out, std::string_view name, std::string_view help,
                   std::string_view type) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void append_sample(std::string& out, std::string_view name, std::string_view type,
                   std::string_view more_labels, std::string_view value) {
  out += name;
  out += "{type=\"";
  out += escape_label_value(type);
  out += '"';
  out += more_labels;
  out += "} ";
  out += value;
  out += '\n';
}

std::string escape_label_value(std::string_view value) {
  std::string escaped;
  escaped.reserve(value.size());
  for (const char c : value) {
    switch (c) {
      case '\\':
        escaped += "\\\\";
        break;
      case '"':
        escaped += "\\\"";
        break;
      case '\n':
        escaped += "\\n";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

std::string format_number(double value) {
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (std::isnan(value)) return "NaN";
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (error != std::errc()) return "NaN";
  return std::string(buffer, end);
}

}  // namespace distlock::detail::prometheus
