// The one GPU architecture grammar and coverage function, against NVIDIA's compatibility rules:
// SASS runs on the same major with a minor not above the GPU's, `a` SASS only on its own GPU,
// PTX on any GPU at least as new.
#include <catch2/catch.hpp>

#include "bevenv/core/gpu_arch.hpp"

using bevenv::core::arch_support;
using bevenv::core::ArchSupport;
using bevenv::core::GpuArch;
using bevenv::core::parse_arch_entry;
using bevenv::core::parse_gpu_arch;

namespace {

using Texts = std::vector<std::string>;

GpuArch gpu(const char* text) {
  const auto parsed = parse_gpu_arch(text);
  REQUIRE(parsed.has_value());
  return *parsed;
}

}  // namespace

TEST_CASE("every spelling of an architecture reads the same", "[core][gpu_arch]") {
  CHECK(gpu("sm_86").capability == 86);
  CHECK(gpu("8.6") == gpu("sm_86"));
  CHECK(gpu("86") == gpu("sm_86"));
  CHECK(gpu("compute_90").ptx);
  CHECK(gpu("compute_90").name() == "compute_90");
  CHECK(gpu("sm_90a").suffix == 'a');
  CHECK(gpu("sm_90a").name() == "sm_90a");
  CHECK(gpu("sm_100f").suffix == 'f');
  CHECK(gpu("sm_120").dotted() == "12.0");
  for (const char* bad : {"", "sm_", "sm_x", "9", "8.10", "sm_2000", "compute_", "1000", "8.6.1",
                          "sm_90b", "90a.1"}) {
    INFO(bad);
    CHECK_FALSE(parse_gpu_arch(bad).has_value());
  }
}

TEST_CASE("TORCH_CUDA_ARCH_LIST entries, +PTX included", "[core][gpu_arch]") {
  const auto both = parse_arch_entry("8.6+PTX");
  REQUIRE(both.size() == 2);
  CHECK_FALSE(both[0].ptx);
  CHECK(both[1].ptx);
  CHECK(both[1].capability == 86);
  CHECK(parse_arch_entry("SM_90").size() == 1);
  CHECK(parse_arch_entry("garbage").empty());
}

TEST_CASE("coverage follows NVIDIA's compatibility rules", "[core][gpu_arch]") {
  const Texts ampere = {"sm_80", "sm_86"};
  CHECK(arch_support(gpu("sm_86"), ampere) == ArchSupport::sass);
  CHECK(arch_support(gpu("sm_89"), ampere) == ArchSupport::sass);  // 8.6 SASS runs on 8.9
  CHECK(arch_support(gpu("sm_90"), ampere) == ArchSupport::none);  // another major
  CHECK(arch_support(gpu("sm_75"), ampere) == ArchSupport::none);  // older than every build
  CHECK(arch_support(gpu("sm_90"), Texts{"sm_80", "compute_80"}) == ArchSupport::ptx_jit);
  CHECK(arch_support(gpu("sm_75"), Texts{"compute_80"}) ==
        ArchSupport::none);  // PTX newer than GPU
  CHECK(arch_support(gpu("sm_90"), Texts{"sm_90a"}) == ArchSupport::sass);
  CHECK(arch_support(gpu("sm_100"), Texts{"sm_90a", "compute_90"}) == ArchSupport::ptx_jit);
  CHECK(arch_support(gpu("sm_90"), Texts{"7.0", "8.0+PTX"}) == ArchSupport::ptx_jit);
  CHECK(arch_support(gpu("sm_90"), Texts{"9.0"}) == ArchSupport::sass);
  CHECK(arch_support(gpu("sm_90"), Texts{"nonsense"}) == ArchSupport::none);
}
