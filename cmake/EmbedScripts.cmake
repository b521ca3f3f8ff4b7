# SPDX-License-Identifier: Apache-2.0
# cmake -DOUTPUT=<header> -DSCRIPTS=<a.lua;b.lua> -P EmbedScripts.cmake
# Writes one `inline constexpr std::string_view k<Name>Script` per script.
set(text "// Generated from runtime/backends/redis/locks/scripts/*.lua by cmake/EmbedScripts.cmake.\n#pragma once\n#include <string_view>\nnamespace distlock::detail::redis_scripts {\n")
foreach(script IN LISTS SCRIPTS)
  get_filename_component(name ${script} NAME_WE)
  file(READ ${script} body)
  string(APPEND text "inline constexpr std::string_view k_${name} = R\"distlock_lua(${body})distlock_lua\";\n")
endforeach()
string(APPEND text "}  // namespace distlock::detail::redis_scripts\n")
file(WRITE ${OUTPUT}.tmp "${text}")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
