// core/shared_library: a library is opened by name and its functions bound by their own
// prototypes; one that cannot be loaded, or lacks a function, is refused with the install hint.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "bevenv/core/error.hpp"
#include "bevenv/core/shared_library.hpp"

using bevenv::core::Error;
using bevenv::core::SharedLibrary;

TEST_CASE("a shared library's function is bound by its own prototype", "[core]") {
  const SharedLibrary libc("libc.so.6", "install glibc");
  decltype(&::strlen) length = nullptr;
  libc.bind("strlen", length);
  REQUIRE(length != nullptr);
  CHECK(length("bevenv") == 6);
}

TEST_CASE("a library that cannot be loaded is refused with its install hint", "[core]") {
  try {
    const SharedLibrary missing("libbevenv-no-such-library.so.9", "install bevenv-no-such");
    FAIL("a missing library was opened");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("`libbevenv-no-such-library.so.9` could not be loaded") == 0);
    CHECK(e.hint() == "fix: install bevenv-no-such");
    CHECK(e.code() == bevenv::core::ExitCode::failure);
  }
}

TEST_CASE("a library without a function of the table is refused, naming it", "[core]") {
  const SharedLibrary libc("libc.so.6", "install glibc 2.99");
  decltype(&::strlen) slot = nullptr;
  try {
    libc.bind("bevenv_no_such_function", slot, "glibc 2.99 or newer");
    FAIL("a missing function was bound");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "`libc.so.6` has no `bevenv_no_such_function` (glibc 2.99 or newer)");
    CHECK(e.hint() == "fix: install glibc 2.99");
  }
  CHECK(slot == nullptr);
}
