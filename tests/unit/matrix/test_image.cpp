// The compiled image of the embedded matrix (matrix/src/image.hpp) must hold exactly what the
// data files make: the image a start-up reads is compared with a fresh read of the files, and
// damaged or foreign images are refused instead of misread.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "bevenv/matrix/loader.hpp"
#include "image.hpp"
#include "stand_ins.hpp"

using namespace bevenv;

namespace {

// Every kind of field the image writes: optional numbers set and unset, a negative integer, a
// fractional one, markers, specifiers in their written order, maps, nested records.
const char* kOverlay = R"(
[[package]]
name = "image-probe"
version = "2.0.post1+cu118"
published = false
python = "<3.12,>=3.8"
cuda = "11.8"
sass = ["sm_80", "sm_90"]
ptx = ["compute_90"]
requires = ["numpy[extra-b,extra-a] <2,>=1.21 ; python_version < \"3.11\" and platform_machine == \"x86_64\"", "torch==2.1.0"]
sources = ["https://example.org/image-probe"]
note = "a note with \"quotes\" and a \\ backslash"

[[package]]
name = "image-probe"
version = "1.0"
python = ">=3.6"
requires = ["numpy"]
sources = ["https://example.org/image-probe"]
)";

matrix::Matrix loaded(const std::vector<matrix::SourceFile>& extra = {}) {
  std::vector<matrix::SourceFile> files = matrix::embedded_files();
  files.insert(files.end(), extra.begin(), extra.end());
  auto result = matrix::load_sources(files);
  if (!result) {
    for (const auto& d : result.error()) UNSCOPED_INFO(d.to_string());
    FAIL("the matrix does not load");
  }
  return std::move(result).value();
}

matrix::SourceFile overlay() { return {"overlay/probe.toml", kOverlay, 1, matrix::Layer::overlay}; }

}  // namespace

TEST_CASE("the compiled image is the matrix the embedded files make", "[matrix][image]") {
  const std::string digest(matrix::embedded_digest());
  REQUIRE_FALSE(matrix::detail::embedded_image().empty());
  auto compiled = matrix::detail::read_image(matrix::detail::embedded_image(), digest);
  REQUIRE(compiled);
  // The writer lists every field (image_fields.hpp): equal images are equal matrices.
  CHECK(matrix::detail::write_image(*compiled, digest) ==
        matrix::detail::write_image(loaded(), digest));
  CHECK(compiled->version_count() == loaded().version_count());
  // load() and load_embedded() start from it.
  auto through_load = matrix::load(matrix::LoadOptions{});
  REQUIRE(through_load);
  CHECK(matrix::detail::write_image(*through_load, digest) ==
        matrix::detail::write_image(*compiled, digest));
}

TEST_CASE("an image reads back every kind of field", "[matrix][image]") {
  const matrix::Matrix original = loaded({overlay()});
  const std::string image = matrix::detail::write_image(original, "d1");
  auto back = matrix::detail::read_image(image, "d1");
  REQUIRE(back);
  CHECK(matrix::detail::write_image(*back, "d1") == image);
  const matrix::Package* probe = back->find_package("image-probe");
  REQUIRE(probe != nullptr);
  REQUIRE(probe->versions.size() == 2);
  const matrix::PackageVersion& v = probe->versions[1];
  CHECK(v.version.to_string() == "2.0.post1+cu118");
  CHECK_FALSE(v.local_is_published);
  CHECK(v.python.to_string() == "<3.12,>=3.8");
  REQUIRE(v.python.specifiers().size() == 2);
  CHECK(v.python.specifiers()[0].to_string() == "<3.12");  // the order as written
  REQUIRE(v.cuda);
  CHECK(v.cuda->to_string() == "11.8");
  CHECK(v.sass == std::vector<std::string>{"sm_80", "sm_90"});
  REQUIRE(v.requirements.size() == 2);
  CHECK(v.requirements[0].extras == std::vector<std::string>{"extra-a", "extra-b"});
  CHECK(v.requirements[0].to_string() ==
        original.find_package("image-probe")->versions[1].requirements[0].to_string());
  CHECK(v.requirements[0].marker.to_string() ==
        R"(python_version < "3.11" and platform_machine == "x86_64")");
  CHECK(v.note == "a note with \"quotes\" and a \\ backslash");
  CHECK(v.origin.file == "overlay/probe.toml");
  CHECK(v.origin.layer == matrix::Layer::overlay);
  CHECK(v.origin.line == original.find_package("image-probe")->versions[1].origin.line);
  CHECK(probe->versions[0].requirements[0].marker.empty());
  // Profiles keep their numbers and maps (a memory figure is fractional, workers an integer).
  for (const auto& [name, profile] : original.profiles) {
    const matrix::Profile* read = back->find_profile(name);
    REQUIRE(read != nullptr);
    CHECK(read->train_gpu_memory_gib == profile.train_gpu_memory_gib);
    CHECK(read->dataloader_workers_per_gpu == profile.dataloader_workers_per_gpu);
    CHECK(read->env == profile.env);
    CHECK(read->lineage == profile.lineage);
  }
}

TEST_CASE("the image shares one specifier list among the sets written alike", "[matrix][image]") {
  auto compiled = matrix::detail::read_image(matrix::detail::embedded_image(),
                                             std::string(matrix::embedded_digest()));
  REQUIRE(compiled);
  // Every set written alike in the image is one list: copies cost a reference count.
  std::set<const void*> lists;
  std::size_t sets = 0;
  for (const auto& [name, package] : compiled->packages) {
    for (const auto& version : package.versions) {
      for (const auto& requirement : version.requirements) {
        if (requirement.specifier.empty()) continue;
        ++sets;
        lists.insert(requirement.specifier.identity());
      }
    }
  }
  CHECK(sets > 2 * lists.size());  // far fewer lists than sets
  const matrix::Package* numba = compiled->find_package("numba");
  REQUIRE(numba != nullptr);
  const void* first = nullptr;
  std::size_t shared = 0;
  for (const auto& version : numba->versions) {
    for (const auto& requirement : version.requirements) {
      if (requirement.name != "numpy" || requirement.specifier.empty()) continue;
      if (first == nullptr) first = requirement.specifier.identity();
      if (requirement.specifier.identity() == first) ++shared;
    }
  }
  CHECK(shared > 1);
}

TEST_CASE("a damaged or foreign image is refused, never misread", "[matrix][image]") {
  matrix::Matrix small;
  small.version = "2026.1";
  small.schema = -3;
  matrix::Package package;
  package.name = "p";
  matrix::PackageVersion version;
  version.name = "p";
  version.version = core::Version::parse("1.0").value();
  version.requirements.push_back(core::Requirement::parse("q>=1; python_version<'4'").value());
  version.artifacts.push_back({"p-1.0.tar.gz", "https://x/p-1.0.tar.gz", std::string(64, 'a'), 7});
  package.versions.push_back(version);
  small.packages.emplace("p", package);
  const std::string image = matrix::detail::write_image(small, "d");
  REQUIRE(matrix::detail::read_image(image, "d"));
  CHECK(matrix::detail::read_image(image, "d")->schema == -3);

  SECTION("made from other files") { CHECK_FALSE(matrix::detail::read_image(image, "e")); }
  SECTION("empty, or not an image") {
    CHECK_FALSE(matrix::detail::read_image("", "d"));
    CHECK_FALSE(matrix::detail::read_image("[[package]]\nname = \"p\"\n", "d"));
  }
  SECTION("cut anywhere") {
    for (std::size_t size = 0; size < image.size(); ++size)
      CHECK_FALSE(matrix::detail::read_image(image.substr(0, size), "d"));
  }
  SECTION("followed by more bytes") { CHECK_FALSE(matrix::detail::read_image(image + "x", "d")); }
  SECTION("any byte changed: refused or read, never a crash") {
    for (std::size_t at = 0; at < image.size(); ++at) {
      std::string changed = image;
      changed[at] = static_cast<char>(changed[at] ^ 0xff);
      (void)matrix::detail::read_image(changed, "d");
    }
  }
}

TEST_CASE("an overlay is read with the files, not the image", "[matrix][image]") {
  const auto dir = std::filesystem::temp_directory_path() / "bevenv-test-image-overlay";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "probe.toml") << kOverlay; }
  matrix::LoadOptions options;
  options.overlays = {dir};
  auto result = matrix::load(options);
  std::filesystem::remove_all(dir);
  REQUIRE(result);
  CHECK(result->find_package("image-probe") != nullptr);
}

TEST_CASE("the image leaves the generated layer out unread when asked", "[matrix][image]") {
  matrix::LoadOptions options;
  options.without_generated_releases = true;
  auto skipped = matrix::load(options);
  REQUIRE(skipped);
  // The reference: the files read, then the generated releases taken out.
  matrix::Matrix expected = loaded();
  std::size_t generated = 0;
  for (auto it = expected.packages.begin(); it != expected.packages.end();) {
    auto& versions = it->second.versions;
    generated += std::erase_if(versions, [](const auto& v) { return v.generated.has_value(); });
    it = versions.empty() ? expected.packages.erase(it) : std::next(it);
  }
  // A curated release's stand-in may have been a generated one: no release stands in then.
  matrix::detail::forget_stand_ins(expected);
  CHECK(generated > 1000);
  const std::string digest(matrix::embedded_digest());
  CHECK(matrix::detail::write_image(*skipped, digest) ==
        matrix::detail::write_image(expected, digest));
  // Through the files (an overlay directory, even an empty one, reads them), the same.
  const auto dir = std::filesystem::temp_directory_path() / "bevenv-test-image-empty-overlay";
  std::filesystem::create_directories(dir);
  options.overlays = {dir};
  auto through_files = matrix::load(options);
  std::filesystem::remove_all(dir);
  REQUIRE(through_files);
  CHECK(matrix::detail::write_image(*through_files, digest) ==
        matrix::detail::write_image(expected, digest));
}

TEST_CASE("an image read without stood-for releases holds the rest and their versions",
          "[matrix][image]") {
  const std::string digest(matrix::embedded_digest());
  const auto whole = matrix::detail::read_image(matrix::detail::embedded_image(), digest);
  const auto slim = matrix::detail::read_image(matrix::detail::embedded_image(), digest,
                                               matrix::detail::LeftOut::stood_for);
  REQUIRE(whole);
  REQUIRE(slim);
  REQUIRE(slim->packages.size() == whole->packages.size());
  std::size_t left = 0;
  for (const auto& [name, package] : whole->packages) {
    INFO(name);
    const matrix::Package& read = slim->packages.at(name);
    std::vector<std::string> kept, stood_for, read_kept, read_stood_for;
    for (const auto& release : package.versions) {
      (release.newer_stands_for ? stood_for : kept).push_back(release.id());
    }
    for (const auto& release : read.versions) {
      CHECK_FALSE(release.newer_stands_for);
      read_kept.push_back(release.id());
    }
    for (const auto& version : read.stood_for)
      read_stood_for.push_back(name + "@" + version.to_string());
    CHECK(read_kept == kept);
    CHECK(read_stood_for == stood_for);
    left += stood_for.size();
  }
  CHECK(left > 1000);  // the generated layer has long runs of alike releases
  // The files, loaded the same way, agree with the image.
  matrix::Matrix from_files = *matrix::load_sources(matrix::embedded_files());
  matrix::detail::leave_out_stood_for(from_files);
  for (const auto& [name, package] : from_files.packages) {
    INFO(name);
    CHECK(package.stood_for == slim->packages.at(name).stood_for);
    CHECK(package.versions.size() == slim->packages.at(name).versions.size());
  }
}

TEST_CASE("an image keeps versions and specifiers of every shape as their parse made them",
          "[matrix][image]") {
  // Made in place: the loader would ask that each requirement match a release of the matrix.
  matrix::Matrix original = loaded();
  matrix::PackageVersion shaped;
  shaped.name = "image-shapes";
  shaped.version = core::Version::parse("1!2.0rc1.post2.dev3+cu113.7.abc").value();
  for (const char* text : {"numpy===1.21.0-custom", "torch~=1.4.5", "tqdm==4.*", "pyyaml!=5.*",
                           "six>=1.0-rc1,<2.0.0a1", "packaging>=v1.0.post0,<=3"}) {
    shaped.requirements.push_back(core::Requirement::parse(text).value());
  }
  original.packages["image-shapes"] = matrix::Package{"image-shapes", {shaped}, {}};
  const std::string image = matrix::detail::write_image(original, "d2");
  auto back = matrix::detail::read_image(image, "d2");
  REQUIRE(back);
  const auto& written = original.find_package("image-shapes")->versions.front();
  const auto& read = back->find_package("image-shapes")->versions.front();
  CHECK(read.version.to_string() == "1!2.0rc1.post2.dev3+cu113.7.abc");
  CHECK(read.version == written.version);
  CHECK(read.version.local() == written.version.local());
  CHECK(read.version.is_prerelease());
  REQUIRE(read.requirements.size() == written.requirements.size());
  const auto probes = {"1.21.0-custom", "1.4.9", "1.5", "4.0.1", "5.1", "1.0rc1", "1.0", "3"};
  for (std::size_t i = 0; i < read.requirements.size(); ++i) {
    const auto& a = written.requirements[i].specifier.specifiers();
    const auto& b = read.requirements[i].specifier.specifiers();
    REQUIRE(a.size() == b.size());
    for (std::size_t j = 0; j < a.size(); ++j) {
      INFO(a[j].to_string());
      CHECK(b[j].to_string() == a[j].to_string());  // as written: `>=1.0-rc1`
      CHECK(b[j].op() == a[j].op());
      CHECK(b[j].is_wildcard() == a[j].is_wildcard());
      CHECK(b[j].version_text() == a[j].version_text());
      CHECK(b[j].version().has_value() == a[j].version().has_value());
      CHECK(b[j].mentions_prerelease() == a[j].mentions_prerelease());
      for (const char* text : probes) {
        const auto v = core::Version::parse(text);
        if (v) CHECK(b[j].matches(*v) == a[j].matches(*v));
      }
    }
  }
}
