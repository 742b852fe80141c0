// The parsed forms the download cache keeps (listing_form, metadata_form): what is encoded reads
// back equal, and bytes cut short or changed read as nothing rather than as something else.
#include <catch2/catch.hpp>

#include "bevenv/index/metadata.hpp"
#include "bevenv/index/project.hpp"
#include "listing_form.hpp"
#include "metadata_form.hpp"

using namespace bevenv;

namespace {

const std::string kHtml = R"(
<a href="../../f/yapf-0.40.1-py3-none-any.whl#sha256=b8bfc1f280949153e795181768ca14ef43d7312629a06c43e7abd279323af313"
   data-requires-python="&gt;=3.7,&lt;4" data-core-metadata="sha256=1111111111111111111111111111111111111111111111111111111111111111">w</a>
<a href='https://files.example/yapf-0.40.2.tar.gz' data-yanked="">s</a>
<a href="../../f/yapf-0.30.0-cp38-cp38-manylinux2014_x86_64.whl" data-requires-python="&gt;=3.7,&lt;4">w</a>
)";

std::vector<index::Artifact> yapf_files() {
  auto parsed = index::parse_simple_html(kHtml, "https://idx.example/simple/yapf/", "yapf");
  REQUIRE(parsed);
  REQUIRE(parsed->size() == 3);
  (*parsed)[0].size = 190000;
  return std::move(parsed).value();
}

void check_same(const index::Artifact& a, const index::Artifact& b) {
  CHECK(a.filename == b.filename);
  CHECK(a.url == b.url);
  CHECK(a.name == b.name);
  CHECK(a.version == b.version);
  CHECK(a.kind == b.kind);
  CHECK(a.wheel.has_value() == b.wheel.has_value());
  CHECK(a.sha256 == b.sha256);
  CHECK(a.size == b.size);
  CHECK(a.requires_python.to_string() == b.requires_python.to_string());
  CHECK(a.has_metadata_file == b.has_metadata_file);
  CHECK(a.metadata_sha256 == b.metadata_sha256);
  CHECK(a.yanked == b.yanked);
}

constexpr const char* kMetadata =
    "Metadata-Version: 2.1\nName: Demo_Pkg\nVersion: 1.0.post1\nRequires-Python: >=3.8\n"
    "Requires-Dist: six>=1.10\n"
    "Requires-Dist: attrs[tests]<24,>=20; extra == \"docs\" and python_version < \"3.12\"\n"
    "Requires-Dist: tool @ https://example.org/tool-1.0.tar.gz ; sys_platform == \"linux\"\n"
    "Provides-Extra: docs\n\nA description.\n";

std::vector<std::string> requirement_texts(const index::CoreMetadata& m) {
  std::vector<std::string> out;
  for (const auto& r : m.requires_dist) out.push_back(r.to_string());
  return out;
}

}  // namespace

TEST_CASE("a listing reads back as the page parsed", "[index][forms]") {
  const auto files = yapf_files();
  const std::string bytes = index::listing_form::encode(files);
  const auto back = index::listing_form::decode(bytes, "yapf");
  REQUIRE(back);
  REQUIRE(back->size() == files.size());
  for (std::size_t i = 0; i < files.size(); ++i) check_same((*back)[i], files[i]);
  CHECK(index::listing_form::decode(index::listing_form::encode({}), "yapf")->empty());
}

TEST_CASE("a listing cut short, changed, or of another project reads as nothing",
          "[index][forms]") {
  const std::string bytes = index::listing_form::encode(yapf_files());
  for (std::size_t size = 0; size < bytes.size(); ++size)
    CHECK_FALSE(index::listing_form::decode(bytes.substr(0, size), "yapf"));
  CHECK_FALSE(index::listing_form::decode(bytes + "x", "yapf"));
  CHECK_FALSE(index::listing_form::decode(bytes, "six"));
  std::string other_magic = bytes;
  other_magic[0] = 'B';
  CHECK_FALSE(index::listing_form::decode(other_magic, "yapf"));
  // Every single byte changed either reads as nothing or as well-formed artifacts: never a crash.
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string changed = bytes;
    changed[i] = static_cast<char>(changed[i] ^ 0x5a);
    if (const auto read = index::listing_form::decode(changed, "yapf")) {
      for (const auto& a : *read) CHECK(a.name == "yapf");
    }
  }
}

TEST_CASE("core metadata reads back as parsed, markers and specifiers shared", "[index][forms]") {
  const auto parsed = index::parse_core_metadata(kMetadata);
  REQUIRE(parsed);
  const std::string bytes = index::metadata_form::encode(*parsed);
  CHECK(bytes.find("A description") == std::string::npos);
  index::metadata_form::Reader reader;
  const auto back = reader.decode(bytes);
  REQUIRE(back);
  CHECK(back->name == "Demo_Pkg");
  CHECK(back->version == parsed->version);
  CHECK(back->requires_python.to_string() == ">=3.8");
  CHECK(requirement_texts(*back) == requirement_texts(*parsed));
  CHECK(back->requires_dist[1].extras == std::vector<std::string>{"tests"});
  CHECK(back->requires_dist[2].url == "https://example.org/tool-1.0.tar.gz");
  CHECK(back->provides_extra == parsed->provides_extra);
  // A second read shares the parse of each marker with the first.
  const auto again = reader.decode(bytes);
  REQUIRE(again);
  CHECK(again->requires_dist[1].marker.identity() == back->requires_dist[1].marker.identity());
}

TEST_CASE("core metadata cut short or changed reads as nothing", "[index][forms]") {
  const std::string bytes = index::metadata_form::encode(*index::parse_core_metadata(kMetadata));
  index::metadata_form::Reader reader;
  for (std::size_t size = 0; size < bytes.size(); ++size)
    CHECK_FALSE(reader.decode(bytes.substr(0, size)));
  CHECK_FALSE(reader.decode(bytes + "x"));
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string changed = bytes;
    changed[i] = static_cast<char>(changed[i] ^ 0x5a);
    (void)reader.decode(changed);  // nothing or a well-formed value; never a crash
  }
  CHECK(reader.decode(bytes));  // a bad text seen before is not remembered as parsed
}
