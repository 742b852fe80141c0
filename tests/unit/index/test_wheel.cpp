// Wheel names and PEP 425 tags, with Python's `packaging` as the oracle for the tag order.
#include <catch2/catch.hpp>
#include <sstream>

#include "bevenv/core/subprocess.hpp"
#include "bevenv/index/wheel.hpp"

using namespace bevenv;

namespace {

core::Version v(const char* text) { return core::Version::parse(text).value(); }

// packaging.tags for CPython `python` on Linux `arch` with glibc `glibc`, one `py-abi-plat` a line.
std::vector<std::string> oracle_tags(int minor, int glibc_minor, const std::string& arch) {
  const std::string script =
      "import sys, packaging.tags as t, packaging._manylinux as m\n"
      "minor, gl, arch = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]\n"
      "m._get_glibc_version = lambda: (2, gl)\n"
      "m._have_compatible_abi = lambda exe, archs: True\n"
      "m._get_manylinux_module = lambda: None\n"
      "plats = list(m.platform_tags([arch])) + ['linux_' + arch]\n"
      "abi = 'cp3%d' % minor + ('m' if minor < 8 else '')\n"
      "tags = list(t.cpython_tags((3, minor), abis=[abi], platforms=plats))\n"
      "tags += list(t.compatible_tags((3, minor), 'cp3%d' % minor, plats))\n"
      "print('\\n'.join(str(x) for x in tags))\n";
  const auto result = core::run_process(
      {"python3", "-c", script, std::to_string(minor), std::to_string(glibc_minor), arch});
  REQUIRE(result.exit_code == 0);
  std::vector<std::string> lines;
  std::istringstream in(result.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("supported tags match packaging's order", "[index][tags]") {
  for (const auto& [minor, glibc, arch] : std::vector<std::tuple<int, int, std::string>>{
           {8, 31, "x86_64"}, {7, 17, "x86_64"}, {11, 35, "aarch64"}, {10, 28, "x86_64"}}) {
    const auto target =
        index::TargetTags::from(v(("3." + std::to_string(minor) + ".2").c_str()), "linux_" + arch,
                                v(("2." + std::to_string(glibc)).c_str()));
    std::vector<std::string> ours;
    for (const auto& tag : target.supported()) {
      ours.push_back(tag.python + "-" + tag.abi + "-" + tag.platform);
    }
    INFO("python 3." << minor << " glibc 2." << glibc << " " << arch);
    CHECK(ours == oracle_tags(minor, glibc, arch));
  }
}

TEST_CASE("wheel file names parse as PEP 427 says", "[index][wheel]") {
  const auto w = index::parse_wheel_filename(
      "numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  REQUIRE(w);
  CHECK(w->name == "numpy");
  CHECK(w->version == v("1.26.4"));
  REQUIRE(w->tags.size() == 2);
  CHECK(w->tags[1].platform == "manylinux2014_x86_64");

  const auto build = index::parse_wheel_filename("Foo_Bar-2.0-1local-py2.py3-none-any.whl");
  REQUIRE(build);
  CHECK(build->name == "foo-bar");
  CHECK(build->build == "1local");
  CHECK(build->tags.size() == 2);

  const auto torch = index::parse_wheel_filename("torch-1.10.1+cu113-cp38-cp38-linux_x86_64.whl");
  REQUIRE(torch);
  CHECK(torch->version.local_string() == "cu113");

  CHECK_FALSE(index::parse_wheel_filename("numpy-1.26.4.tar.gz"));
  CHECK_FALSE(index::parse_wheel_filename("numpy-cp311-none-any.whl"));
  CHECK_FALSE(index::parse_wheel_filename("numpy-1.0-x-cp311-none-any.whl"));
}

TEST_CASE("wheel and sdist names that hold paths or odd bytes are refused", "[index][wheel]") {
  for (const char* bad : {"pkg-1.0-1/../../../../tmp/x/y-py3-none-any.whl",
                          "pkg-1.0-1..-py3-none-any.whl/x.whl", "pkg-1.0-py3-none-any/../../x.whl",
                          "pkg-1.0-py3-none-linux\x86.whl", "pkg-1.0-py3-no ne-any.whl",
                          "pkg-1.0-py3-none-an\xc3\xa9.whl", "pkg-1.0-1$x-py3-none-any.whl"}) {
    INFO(bad);
    CHECK_FALSE(index::parse_wheel_filename(bad));
  }
  CHECK_FALSE(index::parse_wheel_filename(std::string_view("pkg-1.0-py3-none-any\0.whl", 25)));
  CHECK_FALSE(index::parse_sdist_filename("x/../pkg-1.0.tar.gz"));
  CHECK_FALSE(index::parse_sdist_filename("pkg-1.0;id.tar.gz"));
  CHECK_FALSE(index::parse_sdist_filename(std::string_view("pkg-1.0\0.tar.gz", 15)));
}

TEST_CASE("sdist names split at the version", "[index][wheel]") {
  const auto s = index::parse_sdist_filename("mmcv-full-1.4.0.tar.gz");
  REQUIRE(s);
  CHECK(s->name == "mmcv-full");
  CHECK(s->version == v("1.4.0"));
  const auto named = index::parse_sdist_filename("foo-2-1.0.zip", "foo-2");
  REQUIRE(named);
  CHECK(named->version == v("1.0"));
  CHECK_FALSE(index::parse_sdist_filename("foo-1.0.whl"));
}

TEST_CASE("the best wheel for a target is the one pip would pick", "[index][tags]") {
  const index::TagRanking ranking(index::TargetTags::from(v("3.8.18"), "linux_x86_64", v("2.31")));
  auto rank = [&](const char* name) { return ranking.rank(*index::parse_wheel_filename(name)); };
  const auto manylinux = rank("x-1-cp38-cp38-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  const auto linux_tag = rank("x-1-cp38-cp38-linux_x86_64.whl");
  const auto pure = rank("x-1-py3-none-any.whl");
  REQUIRE(manylinux);
  REQUIRE(linux_tag);
  REQUIRE(pure);
  CHECK(*manylinux < *linux_tag);
  CHECK(*linux_tag < *pure);
  CHECK_FALSE(rank("x-1-cp39-cp39-manylinux2014_x86_64.whl"));
  CHECK_FALSE(rank("x-1-cp38-cp38-manylinux_2_34_x86_64.whl"));  // needs a newer glibc
  CHECK_FALSE(rank("x-1-cp38-cp38-manylinux2014_aarch64.whl"));
  CHECK(rank("x-1-cp36-abi3-manylinux2014_x86_64.whl"));
}
