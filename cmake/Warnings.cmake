# One place for the warning set so every module target gets the same flags.
add_library(bevenv_warnings INTERFACE)
target_compile_options(bevenv_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Woverloaded-virtual -Wconversion -Wsign-conversion
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
# GCC 12 at -O3 reports -Wrestrict inside libstdc++'s `"text" + std::string&&` (GCC PR 105651,
# a false positive fixed in GCC 13); every Release build of string-building code trips it.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(bevenv_warnings INTERFACE -Wno-restrict)
endif()
if(BEVENV_WERROR)
  target_compile_options(bevenv_warnings INTERFACE -Werror)
endif()

# Adds a module library: bevenv_add_module(NAME SOURCES ... [DEPS ...]).
function(bevenv_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE bevenv_warnings ${ARG_PRIVATE_DEPS})
endfunction()
