// A `sources` entry names an upstream source in one of three forms; the loader refuses the
// rest (a citation of internal notes, free text) with the file, the record and the hint.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "bevenv/matrix/loader.hpp"
#include "load_errors.hpp"
#include "source_ref.hpp"

using namespace bevenv;
using matrix::detail::is_source_ref;

TEST_CASE("a source is a URL, an owner/repo#N issue or an owner/repo@ref:path file") {
  const std::vector<std::string> good = {
      "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html",
      "http://example.org/a?b=1#part",
      "HTTPS://pypi.org/pypi/numpy/1.20.3/json",
      "open-mmlab/mmdetection3d#2821",
      "pytorch/pytorch#69894",
      "fundamentalvision/BEVFormer@master:docs/install.md",
      "open-mmlab/mmdetection3d@v1.0.0rc6:mmdet3d/__init__.py",
      "zhijian-liu/torchpack@c066a1c50af17ca8611b4150c209876232ffe27b:torchpack/utils/tqdm.py",
      "owner/repo.js@release/1.x:src/a+b.c",
  };
  for (const auto& text : good) {
    INFO(text);
    CHECK(is_source_ref(text));
  }
}

TEST_CASE("note citations, free text and near misses are not sources") {
  const std::vector<std::string> bad = {
      "",
      "compat-facts §1 BEVFormer pin",
      "field-failures F3",
      "PyPI wheel metadata",
      "mmdet3d v0.17.1 docs/faq.md",
      "owner/repo#x",
      "owner/repo#",
      "owner/repo#0",
      "owner/repo#12a",
      "owner/repo #12",
      "/repo#12",
      "-owner/repo#12",
      "owner/#12",
      "owner/../x#12",
      "ftp://example.org/file",
      "file:///etc/passwd",
      "https://",
      "https:///path",
      "https://example.org/a b",
      "owner/repo@tag",
      "owner/repo@:path",
      "owner/repo@tag:",
      "owner/repo@tag:/abs",
      "owner/repo@tag:../up",
      "owner/repo@a..b:path",
      "owner/repo@tag:pa th",
      "owner/repo",
  };
  for (const auto& text : bad) {
    INFO("`" << text << "`");
    CHECK_FALSE(is_source_ref(text));
  }
}

TEST_CASE("the loader reports each bad source with its file, record and the accepted forms") {
  const std::vector<matrix::SourceFile> files = {
      {"site/overlay.toml",
       "[[package]]\nname = \"alpha\"\nversion = \"1.0\"\n"
       "sources = [\"https://example.org/alpha\", \"compat-facts §1 BEVFormer pin\"]\n"
       "[[rule]]\nid = \"alpha-rule\"\nkind = \"conflicts\"\n"
       "when.packages = { alpha = \">=1\" }\nthen = \"alpha<1\"\nmessage = \"m\"\nfix = \"f\"\n"
       "sources = [\"field-failures F3\"]\n"
       "[[toolkit]]\nversion = \"11.3\"\nmin_driver = \"465.19.01\"\nsm = [\"sm_86\"]\n"
       "sources = [\"ftp://example.org/notes\"]\n"
       "[[profile]]\nname = \"p\"\npython = \"3.8\"\nrequires = [\"alpha==1.0\"]\n"
       "sources = [\"owner/repo#x\"]\n",
       0, matrix::Layer::overlay},
  };
  const auto got = matrix::testing::load_errors(files);
  const std::string hint = std::string(matrix::detail::kSourceForms);
  REQUIRE(got.size() == 4);
  CHECK(got[0] ==
        "site/overlay.toml:4:41: `package.sources` of `alpha 1.0`: "
        "`compat-facts §1 BEVFormer pin` is not an upstream source; expected " +
            hint);
  CHECK(got[1] ==
        "site/overlay.toml:12:12: `rule.sources` of `alpha-rule`: `field-failures F3` "
        "is not an upstream source; expected " +
            hint);
  CHECK(got[2] ==
        "site/overlay.toml:17:12: `toolkit.sources` of `11.3`: "
        "`ftp://example.org/notes` is not an upstream source; expected " +
            hint);
  CHECK(got[3] ==
        "site/overlay.toml:22:12: `profile.sources` of `p`: `owner/repo#x` is not an "
        "upstream source; expected " +
            hint);
}

TEST_CASE("a variant's bad source names the variant") {
  const std::vector<matrix::SourceFile> files = {
      {"v.toml",
       "[[package]]\nname = \"alpha\"\nversion = \"1.0\"\n"
       "sources = [\"https://example.org/alpha\"]\n"
       "variants = [{ local = \"cu113\", sources = [\"notes §3\"] }]\n",
       0, matrix::Layer::overlay},
  };
  const auto got = matrix::testing::load_errors(files);
  REQUIRE(got.size() == 1);
  CHECK(got[0].find("`package.variants.sources` of `alpha 1.0+cu113`: "
                    "`notes §3` is not an upstream source") != std::string::npos);
}

TEST_CASE("every source in the shipped matrix is an upstream source") {
  const auto loaded = matrix::load_embedded();
  REQUIRE(loaded.has_value());
  std::size_t seen = 0;
  const auto check = [&](const std::vector<std::string>& sources) {
    for (const auto& source : sources) {
      // A curated record that meets a generated one gets that layer's provenance
      // (`matrix/generated/pypi.toml (INDEX, read DATE)`) when layers merge; no file holds it.
      if (source.rfind("matrix/generated/", 0) == 0) continue;
      INFO(source);
      CHECK(is_source_ref(source));
      ++seen;
    }
  };
  for (const auto& [name, package] : loaded->packages) {
    for (const auto& version : package.versions) check(version.sources);
  }
  for (const auto& rule : loaded->rules) check(rule.sources);
  for (const auto& toolkit : loaded->toolkits) check(toolkit.sources);
  for (const auto& [name, profile] : loaded->profiles) check(profile.sources);
  CHECK(seen > 100);
}
