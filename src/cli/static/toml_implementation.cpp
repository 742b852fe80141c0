// toml++'s implementation, compiled once into `bevenv` and `bevenv-static` (Debian ships
// toml++ as a shared library only). Every other translation unit uses the declarations alone
// (TOML_HEADER_ONLY=0, as the shared library's CMake package sets it).
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
