// SPDX-License-Identifier: Apache-2.0
// Writing Prometheus's text exposition format (0.0.4): the lines and the escaping.
#pragma once

#include <string>
#include <string_view>

namespace distlock::detail::prometheus {

// "# HELP name help\n# TYPE name type\n".
void append_header(std::string& out, std::string_view name, std::string_view help,
                   std::string_view type);

// `name{type="<type>"<more labels>} value\n`; `more_labels` is empty or starts with a comma.
void append_sample(std::string& out, std::string_view name, std::string_view type,
                   std::string_view more_labels, std::string_view value);

// A label value with backslash, double quote and line feed escaped, as the format asks.
std::string escape_label_value(std::string_view value);

// The shortest text that reads back as the same double ("0.005", "300", "+Inf").
std::string format_number(double value);

}  // namespace distlock::detail::prometheus
