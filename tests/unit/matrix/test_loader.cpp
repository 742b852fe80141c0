#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "bevenv/matrix/loader.hpp"
#include "load_errors.hpp"

using namespace bevenv;

namespace {

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(BEVENV_SOURCE_DIR) + "/" + relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// 1-based line of the first line containing `needle` after the line containing `after`.
std::uint32_t line_of(const std::string& text, const std::string& after,
                      const std::string& needle) {
  std::istringstream in(text);
  std::string line;
  std::uint32_t number = 0;
  bool armed = after.empty();
  while (std::getline(in, line)) {
    ++number;
    if (!armed && line.find(after) != std::string::npos) armed = true;
    if (armed && line.find(needle) != std::string::npos) return number;
  }
  return 0;
}

core::Version v(const char* text) { return core::Version::parse(text).value(); }

}  // namespace

TEST_CASE("the embedded matrix loads and keeps where each record came from") {
  auto loaded = matrix::load_embedded();
  if (!loaded) FAIL(loaded.error().front().to_string());
  const matrix::Matrix& m = loaded.value();
  CHECK(m.version == "2026.11.1");
  CHECK(m.profiles.size() == 9);  // mmdet3d-1.4 is the sixth; then the three torch 2.8 ports

  const auto* torch = m.find_version("torch", v("1.10.1+cu113"));
  REQUIRE(torch != nullptr);
  CHECK(torch->cuda == v("11.3"));
  CHECK(std::find(torch->sass.begin(), torch->sass.end(), "sm_86") != torch->sass.end());
  CHECK(torch->find_links == "https://download.pytorch.org/whl/torch_stable.html");
  CHECK(torch->install_version() == "1.10.1+cu113");
  CHECK(torch->origin.file == "matrix/data/torch.toml");
  CHECK(torch->origin.layer == matrix::Layer::embedded);
  const std::string text = read_source("matrix/data/torch.toml");
  CHECK(torch->origin.line == line_of(text, "version = \"1.10.1\"", "local = \"cu113\""));

  const auto* mmcv = m.find_version("MMCV_Full", v("1.4.0+cu111.torch1.9.0"));
  REQUIRE(mmcv != nullptr);
  CHECK(mmcv->install_version() == "1.4.0");
  CHECK(mmcv->find_links == "https://download.openmmlab.com/mmcv/dist/cu111/torch1.9.0/index.html");

  const auto* source_build = m.find_version("mmcv-full", v("1.6.0+source"));
  REQUIRE(source_build != nullptr);
  REQUIRE(source_build->build_step.has_value());
  CHECK(source_build->build_step->env.at("MMCV_WITH_OPS") == "1");
}

TEST_CASE("profiles resolve `extends`: inherit, override per requirement name") {
  auto loaded = matrix::load_embedded();
  REQUIRE(loaded.has_value());
  const matrix::Profile* bevformer = loaded->find_profile("bevformer");
  REQUIRE(bevformer != nullptr);
  CHECK(bevformer->lineage == std::vector<std::string>{"bevformer", "uniad"});
  CHECK(bevformer->is_a("uniad"));
  CHECK(bevformer->cuda == "11.1");
  CHECK(bevformer->env.at("TORCH_CUDA_ARCH_LIST") == "6.0 6.1 7.0 7.5 8.0+PTX");
  int numpy_pins = 0;
  for (const auto& r : bevformer->requirements) {
    if (r.normalized_name() == "numpy") {
      ++numpy_pins;
      CHECK(r.specifier.to_string() == "==1.19.5");
    }
    if (r.normalized_name() == "torch") CHECK(r.specifier.to_string() == "==1.9.1");
  }
  CHECK(numpy_pins == 1);
  CHECK(bevformer->dataloader_workers_per_gpu == 4);
  CHECK(loaded->find_profile("uniad")->dataloader_workers_per_gpu == 8);
  const matrix::Profile* bevfusion = loaded->find_profile("bevfusion");
  REQUIRE(bevfusion != nullptr);
  REQUIRE(bevfusion->builds.size() == 1);
  CHECK(bevfusion->builds[0].env.at("TORCH_CUDA_ARCH_LIST") == "7.0 7.5 8.0 8.6");
}

TEST_CASE("every error is reported, sorted by file and line, with a suggestion for typos") {
  const std::vector<matrix::SourceFile> files = {
      {"b.toml",
       "[[toolkit]]\nversion = \"11.3\"\nmin_drivr = \"465.19.01\"\nsm = []\n"
       "sources = [\"https://example.org/t\"]\n",
       0, matrix::Layer::overlay},
      {"a.toml",
       "[[package]]\nname = \"foo\"\nversion = \"1.0\"\npyton = \">=3\"\nsources = []\n"
       "[[package]]\nname = \"bar\"\nversion = \"x\"\nsources = [\"https://example.org/t\"]\n",
       0, matrix::Layer::overlay},
  };
  const auto got = matrix::testing::load_errors(files);
  REQUIRE(got.size() == 5);
  CHECK(got[0] == "a.toml:1:1: `package`: missing required key `sources` (at least one)");
  CHECK(got[1] == "a.toml:4:1: `package`: unknown key `pyton`; did you mean `python`?");
  CHECK(got[2] == "a.toml:8:12: `package.version`: invalid version `x`: " +
                      core::Version::parse("x").error().to_string());
  CHECK(got[3] == "b.toml:1:1: `toolkit`: missing required key `min_driver` (a version string)");
  CHECK(got[4] == "b.toml:3:1: `toolkit`: unknown key `min_drivr`; did you mean `min_driver`?");
}
