// Layout: a magic line, the count of artifacts, then for each: file name, URL, sha256, size
// (a flag, then the number), Requires-Python as canonical text, whether a PEP 658 file is
// published and its sha256, whether the file is yanked. Name, version and wheel tags come from the
// file name again, by the parser that read the page.
#include "listing_form.hpp"

#include <map>

#include "bevenv/core/outside_text.hpp"
#include "bevenv/util/bytes.hpp"

namespace bevenv::index::listing_form {
namespace {

constexpr std::string_view kMagic = "bevenv listing\n";

void put_artifact(std::string& out, const Artifact& a) {
  util::put_text(out, a.filename);
  util::put_text(out, a.url);
  util::put_text(out, a.sha256);
  util::put_number(out, a.size ? 1 : 0);
  if (a.size) util::put_number(out, *a.size);
  util::put_text(out, a.requires_python.empty() ? std::string() : a.requires_python.to_string());
  util::put_number(out, a.has_metadata_file ? 1 : 0);
  util::put_text(out, a.metadata_sha256);
  util::put_number(out, a.yanked ? 1 : 0);
}

std::string_view sha256_text(util::ByteReader& in) {
  const std::string_view hex = in.text();
  if (!hex.empty() && !core::is_sha256_hex(hex)) throw util::DamagedBytes{};
  return hex;
}

// Files of one project mostly share a few Requires-Python texts: each is parsed once.
class ArtifactReader {
 public:
  ArtifactReader(std::string_view bytes, std::string_view project)
      : in_(bytes), project_(project) {}

  util::ByteReader& bytes() { return in_; }

  Artifact next() {
    const std::string_view filename = in_.text();
    const std::string_view url = in_.text();
    auto artifact = artifact_from_filename(filename, url, project_);
    if (!artifact) throw util::DamagedBytes{};
    artifact->sha256 = sha256_text(in_);
    if (in_.flag()) artifact->size = in_.number();
    artifact->requires_python = requires_python(in_.text());
    artifact->has_metadata_file = in_.flag();
    artifact->metadata_sha256 = sha256_text(in_);
    artifact->yanked = in_.flag();
    return std::move(*artifact);
  }

 private:
  const core::SpecifierSet& requires_python(std::string_view text) {
    auto [at, added] = specifiers_.try_emplace(text);
    if (added && !text.empty()) {
      auto parsed = core::SpecifierSet::parse(text);
      if (!parsed) throw util::DamagedBytes{};
      at->second = std::move(parsed).value();
    }
    return at->second;
  }

  util::ByteReader in_;
  std::string_view project_;
  std::map<std::string_view, core::SpecifierSet> specifiers_;
};

}  // namespace

std::string encode(const std::vector<Artifact>& artifacts) {
  std::string out(kMagic);
  util::put_number(out, artifacts.size());
  for (const Artifact& a : artifacts) put_artifact(out, a);
  return out;
}

std::optional<std::vector<Artifact>> decode(std::string_view bytes, std::string_view project) {
  if (!bytes.starts_with(kMagic)) return std::nullopt;
  ArtifactReader reader(bytes.substr(kMagic.size()), project);
  try {
    std::vector<Artifact> out(reader.bytes().count());
    for (Artifact& a : out) a = reader.next();
    if (!reader.bytes().done()) return std::nullopt;
    return out;
  } catch (const util::DamagedBytes&) {
    return std::nullopt;
  }
}

}  // namespace bevenv::index::listing_form
