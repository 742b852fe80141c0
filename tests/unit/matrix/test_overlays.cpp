#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>

#include "bevenv/matrix/loader.hpp"

using namespace bevenv;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device random;
    path = fs::temp_directory_path() / ("bevenv-matrix-test-" + std::to_string(random()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return path / name;
  }
};

core::Version v(const char* text) { return core::Version::parse(text).value(); }

const char* kSiteTorch = R"(
[[package]]
name = "torch"
version = "1.10.1+cu113"
cuda = "11.3"
find_links = "https://mirror.example/torch.html"
sources = ["https://example.org/site-mirror"]

[[package]]
name = "site-tool"
version = "0.1"
requires = ["numpy<1.20"]
sources = ["https://example.org/site"]
)";

}  // namespace

TEST_CASE("an overlay replaces records by identity and adds new ones, remembering origin") {
  TempDir site;
  site.write("site.toml", kSiteTorch);
  auto loaded = matrix::load({true, {site.path}});
  REQUIRE(loaded.has_value());
  const auto* torch = loaded->find_version("torch", v("1.10.1+cu113"));
  REQUIRE(torch != nullptr);
  CHECK(torch->find_links == "https://mirror.example/torch.html");
  CHECK(torch->origin.layer == matrix::Layer::overlay);
  CHECK(torch->origin.file == (site.path / "site.toml").generic_string());
  CHECK(torch->origin.line == 2);
  const auto* untouched = loaded->find_version("torch", v("1.10.1+cu111"));
  REQUIRE(untouched != nullptr);
  CHECK(untouched->origin.layer == matrix::Layer::embedded);
  CHECK(loaded->find_version("site-tool", v("0.1")) != nullptr);
}

TEST_CASE("later overlays win over earlier ones; one overlay may not define a record twice") {
  TempDir first;
  TempDir second;
  first.write("a.toml", kSiteTorch);
  second.write("a.toml", R"([[package]]
name = "site-tool"
version = "0.1"
note = "second"
sources = ["https://example.org/site"]
)");
  auto loaded = matrix::load({true, {first.path, second.path}});
  REQUIRE(loaded.has_value());
  CHECK(loaded->find_version("site-tool", v("0.1"))->note == "second");

  second.write("b.toml",
               "[[package]]\nname = \"site_tool\"\nversion = \"0.1.0\"\n"
               "sources = [\"https://example.org/again\"]\n");
  auto clash = matrix::load({true, {first.path, second.path}});
  REQUIRE_FALSE(clash.has_value());
  REQUIRE(clash.error().size() == 1);
  CHECK(clash.error()[0].to_string() ==
        (second.path / "b.toml").generic_string() +
            ":1:1: duplicate package `site-tool` `0.1.0`; first defined at " +
            (second.path / "a.toml").generic_string() + ":1:1");
}

TEST_CASE("observed records load into their own layer") {
  TempDir probes;
  probes.write("observed-host1.toml", R"([[observed]]
host = "sha256:9f2c"
date = "2026-11-02"
package = "torch"
version = "1.10.1+cu113"
target = { python = "3.8.18", cuda_driver = "535.54.03", gpu_arch = "sm_86" }
outcome = "ok"
check = "torch-cuda-init"
)");
  auto loaded = matrix::load({true, {probes.path}});
  REQUIRE(loaded.has_value());
  REQUIRE(loaded->observed.size() == 1);
  const auto& record = loaded->observed[0];
  CHECK(record.origin.layer == matrix::Layer::observed);
  CHECK(record.outcome == matrix::Outcome::ok);
  CHECK(record.target.at("gpu_arch") == "sm_86");
}

TEST_CASE("a missing overlay directory is an error, not silently skipped") {
  auto loaded = matrix::load({true, {"/nonexistent/bevenv-overlay"}});
  REQUIRE_FALSE(loaded.has_value());
  CHECK(loaded.error()[0].to_string().rfind("/nonexistent/bevenv-overlay: not a directory", 0) ==
        0);
}

TEST_CASE("an overlay nesting deeper than the limit is a diagnostic at its position") {
  TempDir dir;
  std::string header = "[rule";
  for (int i = 0; i < 31000; ++i) header += ".a";
  dir.write("deep.toml", "# a hostile overlay\n" + header + "]\n");
  auto loaded = matrix::load({true, {dir.path}});
  REQUIRE_FALSE(loaded.has_value());
  const auto& first = loaded.error()[0];
  CHECK(first.file == (dir.path / "deep.toml").generic_string());
  CHECK(first.line == 2);
  CHECK(first.column == 6 + 2 * 63);
  CHECK_THAT(first.message, Catch::Contains("at most 64"));
  // Deep inline tables in the embedded data's form are refused the same way.
  std::string value;
  for (int i = 0; i < 10000; ++i) value += "{a=";
  auto inline_tables =
      matrix::load_sources({{"inline.toml", "x = " + value, 0, matrix::Layer::overlay}});
  REQUIRE_FALSE(inline_tables.has_value());
  CHECK(inline_tables.error()[0].line == 1);
}
