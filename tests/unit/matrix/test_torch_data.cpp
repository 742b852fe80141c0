// The shipped PyTorch records agree with each other and with the toolkits: a lock holds one CUDA
// version, so torchvision and torchaudio need a build for every CUDA build of the torch they pin,
// and a build can only carry machine code its toolkit's nvcc targets.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "bevenv/matrix/loader.hpp"

using namespace bevenv;

namespace {

const matrix::Matrix& shipped() {
  static const matrix::Matrix m = [] {
    auto loaded = matrix::load_embedded();
    REQUIRE(loaded.has_value());
    return std::move(*loaded);
  }();
  return m;
}

// The torch pin of a torchvision/torchaudio build (every release pins one).
const core::Requirement* torch_pin(const matrix::PackageVersion& v) {
  for (const auto& r : v.requirements) {
    if (r.name == "torch") return &r;
  }
  return nullptr;
}

// The curated records only: the generated layer carries no CUDA.
std::vector<const matrix::PackageVersion*> curated(const char* name) {
  std::vector<const matrix::PackageVersion*> out;
  for (const auto& v : shipped().find_package(name)->versions) {
    if (!v.generated) out.push_back(&v);
  }
  return out;
}

bool has_build(const char* name, const core::Version& public_version, const std::string& local,
               const core::Version& cuda) {
  for (const auto* v : curated(name)) {
    if (v->version.without_local() == public_version && v->version.local_string() == local &&
        v->cuda && *v->cuda == cuda) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("every CUDA build of torch has a torchvision and torchaudio build of the same CUDA") {
  std::size_t checked = 0;
  for (const char* companion : {"torchvision", "torchaudio"}) {
    for (const auto* c : curated(companion)) {
      if (!c->cuda || c->version.has_local()) continue;  // once per release, from its PyPI build
      const core::Requirement* pin = torch_pin(*c);
      REQUIRE(pin != nullptr);
      for (const auto* t : curated("torch")) {
        if (!t->cuda || !pin->specifier.contains(t->version, true)) continue;
        INFO(c->id() << " pins " << pin->to_string() << "; " << t->id() << " carries CUDA "
                     << t->cuda->to_string());
        CHECK(has_build(companion, c->version, t->version.local_string(), *t->cuda));
        ++checked;
      }
    }
  }
  CHECK(checked > 200);
}

TEST_CASE("a torch build's cu tag names its CUDA, and its SASS is what that nvcc targets") {
  std::size_t with_sass = 0;
  for (const auto* t : curated("torch")) {
    INFO(t->id());
    REQUIRE(t->cuda);
    const std::string local = t->version.local_string();
    if (!local.empty()) {
      const std::string digits = t->cuda->to_string();
      std::string expected = "cu";
      for (char ch : digits) {
        if (ch != '.') expected += ch;
      }
      CHECK(local == expected);
    }
    const matrix::Toolkit* toolkit = shipped().find_toolkit(*t->cuda);
    REQUIRE(toolkit != nullptr);
    for (const auto& sm : t->sass) CHECK(toolkit->supports(sm));
    if (!t->sass.empty()) ++with_sass;
  }
  // The PyPI build of every release 1.8-2.12 has its list read off the wheel.
  CHECK(with_sass > 80);
}

TEST_CASE("torch's shipped CUDA facts match PyTorch's published builds") {
  const auto* pypi_2_11 = shipped().find_package("torch")->find(*core::Version::parse("2.11.0"));
  REQUIRE(pypi_2_11 != nullptr);
  CHECK(pypi_2_11->cuda->to_string() == "13.0");
  CHECK(pypi_2_11->sass ==
        std::vector<std::string>{"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"});
  const auto* cu118 = shipped().find_package("torch")->find(*core::Version::parse("2.1.2+cu118"));
  REQUIRE(cu118 != nullptr);
  CHECK(cu118->sass.front() == "sm_37");  // kept on CUDA 11.8 builds, gone from the 12.x ones
  const auto* cu121 = shipped().find_package("torch")->find(*core::Version::parse("2.1.2+cu121"));
  REQUIRE(cu121 != nullptr);
  CHECK(cu121->sass.front() == "sm_50");
  const matrix::Toolkit* cuda13 = shipped().find_toolkit(*core::Version::parse("13.0"));
  REQUIRE(cuda13 != nullptr);
  CHECK_FALSE(cuda13->supports("sm_70"));  // Volta offline compilation left in CUDA 13.0
  CHECK(cuda13->supports("sm_110"));
}
