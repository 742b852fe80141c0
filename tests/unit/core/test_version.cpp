// PEP 440 versions: the cases the spec spells out, the error messages, and the promise that
// comparing versions never allocates (the solver compares millions of them).
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <vector>

#include "bevenv/core/version.hpp"

using bevenv::core::PreKind;
using bevenv::core::Version;

namespace {

std::atomic<std::size_t> g_allocations{0};

Version v(const char* text) {
  auto parsed = Version::parse(text);
  INFO(text);
  REQUIRE(parsed);
  return *parsed;
}

std::string normal(const char* text) { return v(text).to_string(); }

std::string error_of(const char* text) {
  auto parsed = Version::parse(text);
  INFO(text);
  REQUIRE_FALSE(parsed);
  return parsed.error().to_string();
}

}  // namespace

// GCC cannot see that this file's operator new is malloc, and warns about the matching free.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

// Counting every allocation of the test binary is the simplest way to prove a path has none.
void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
// Every other form too, so that no allocation the sanitizer tags as `new` reaches this `free`
// (std::stable_sort's buffer comes from the nothrow form).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

TEST_CASE("versions normalize as PEP 440 says", "[version]") {
  CHECK(normal("1.0") == "1.0");
  CHECK(normal("v1.0") == "1.0");
  CHECK(normal(" \t1.0\n") == "1.0");
  CHECK(normal("1.0-1") == "1.0.post1");
  CHECK(normal("1.0_post1") == "1.0.post1");
  CHECK(normal("1.0-r2") == "1.0.post2");
  CHECK(normal("1.0REV3") == "1.0.post3");
  CHECK(normal("1.0.post") == "1.0.post0");
  CHECK(normal("1.0ALPHA1") == "1.0a1");
  CHECK(normal("1.0-beta.2") == "1.0b2");
  CHECK(normal("1.0c3") == "1.0rc3");
  CHECK(normal("1.0pre4") == "1.0rc4");
  CHECK(normal("1.0preview5") == "1.0rc5");
  CHECK(normal("1.0a") == "1.0a0");
  CHECK(normal("1.0-dev") == "1.0.dev0");
  CHECK(normal("1!2.0rc1.post2.dev3+CU113") == "1!2.0rc1.post2.dev3+cu113");
  CHECK(normal("1.0+ubuntu-1_2") == "1.0+ubuntu.1.2");
  CHECK(normal("1.0+01") == "1.0+1");
  CHECK(normal("0!1.0") == "1.0");
  CHECK(normal("01.002") == "1.2");
}

TEST_CASE("version parts are exposed", "[version]") {
  const Version x = v("2!1.10.1rc2.post3.dev4+cu113.7");
  CHECK(x.epoch() == 2);
  CHECK(x.release() == std::vector<std::uint64_t>{1, 10, 1});
  REQUIRE(x.pre());
  CHECK(x.pre()->kind == PreKind::rc);
  CHECK(x.pre()->number == 2);
  CHECK(x.post() == 3U);
  CHECK(x.dev() == 4U);
  CHECK(x.is_prerelease());
  CHECK(x.is_postrelease());
  CHECK(x.is_devrelease());
  CHECK(x.has_local());
  CHECK(x.local_string() == "cu113.7");
  CHECK(x.public_string() == "2!1.10.1rc2.post3.dev4");
  CHECK(x.without_local().to_string() == "2!1.10.1rc2.post3.dev4");
  CHECK(x.base_version().to_string() == "2!1.10.1");
  CHECK_FALSE(v("1.0.post1").is_prerelease());
  CHECK(v("1.0.dev1").is_prerelease());
}

TEST_CASE("versions follow the PEP 440 order", "[version]") {
  const std::vector<const char*> ascending = {"0.dev0",      "0",
                                              "1.0.dev0",    "1.0a1.dev1",
                                              "1.0a1",       "1.0a1.post1.dev1",
                                              "1.0a1.post1", "1.0b1",
                                              "1.0rc1",      "1.0",
                                              "1.0+abc",     "1.0+abc.1",
                                              "1.0+1",       "1.0+1.abc",
                                              "1.0+2",       "1.0.post1.dev1",
                                              "1.0.post1",   "1.0.1",
                                              "1.1",         "1.10",
                                              "2.0",         "1!0.1"};
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
    INFO(ascending[i] << " < " << ascending[i + 1]);
    CHECK(v(ascending[i]) < v(ascending[i + 1]));
  }
  CHECK(v("2.0.0") == v("2.0"));
  CHECK(v("2") == v("2.0.0.0"));
  CHECK(v("1.0+ABC") == v("1.0+abc"));
  CHECK(v("1.0+1") == v("1.0+01"));
  CHECK(v("1.0") != v("1.0+0"));
}

TEST_CASE("invalid versions say where and why", "[version]") {
  CHECK(error_of("") == "expected a version, found nothing at column 1");
  CHECK(error_of("abc") == "expected a version number, found `a` at column 1");
  CHECK(error_of("1!") == "expected a release number after the epoch `1!` at column 3");
  CHECK(error_of("1.0foo") ==
        "unexpected `f` after version `1.0`; expected a pre-, post- or dev-release tag (`rc1`, "
        "`.post1`, `.dev1`) or `+local` at column 4");
  CHECK(error_of("1.0+") ==
        "expected a local version label (letters and digits) after `+` at "
        "column 5");
  CHECK(error_of("1.0 a1").find("at column 4") != std::string::npos);
  CHECK(error_of("1.0+a..b").find("at column 6") != std::string::npos);
  CHECK(error_of("é1.0").find("at column 1") != std::string::npos);
  CHECK(error_of("1.0é").find("at column 4") != std::string::npos);
}

TEST_CASE("numbers beyond 64 bits are a clear error", "[version]") {
  CHECK(v("18446744073709551615").release() == std::vector<std::uint64_t>{18446744073709551615U});
  CHECK(error_of("1.18446744073709551616") ==
        "number `18446744073709551616` is too large (bevenv supports numbers up to 2^64-1) at "
        "column 3");
  CHECK(error_of("1.0+99999999999999999999").find("too large") != std::string::npos);
  CHECK(error_of("1.0.dev99999999999999999999").find("at column 8") != std::string::npos);
}

TEST_CASE("comparing versions does not allocate", "[version][performance]") {
  const std::vector<Version> versions = {
      v("1.0"),      v("1.0.0"), v("1.0+cu113.7"), v("1.0+cu113.abc"), v("1!1.0rc1.post2.dev3"),
      v("1.0.post1")};
  const std::size_t before = g_allocations.load();
  int less = 0;
  for (int round = 0; round < 1000; ++round) {
    for (const Version& a : versions) {
      for (const Version& b : versions) {
        less += (a < b) ? 1 : 0;
        less += (a == b) ? 1 : 0;
      }
    }
  }
  const std::size_t allocations = g_allocations.load() - before;
  CHECK(allocations == 0);
  CHECK(less > 0);
}
