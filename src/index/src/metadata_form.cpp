// Layout: a magic line; name, version and Requires-Python as text; the count of Requires-Dist
// entries, each its name, extras, specifier, URL and marker (canonical texts); the count of
// Provides-Extra names, each as text.
#include "metadata_form.hpp"

#include "bevenv/util/bytes.hpp"

namespace bevenv::index::metadata_form {
namespace {

constexpr std::string_view kMagic = "bevenv core metadata\n";

void put_texts(std::string& out, const std::vector<std::string>& texts) {
  util::put_number(out, texts.size());
  for (const auto& text : texts) util::put_text(out, text);
}

std::vector<std::string> texts(util::ByteReader& in) {
  std::vector<std::string> out(in.count());
  for (auto& text : out) text = in.text();
  return out;
}

void put_requirement(std::string& out, const core::Requirement& r) {
  util::put_text(out, r.name);
  put_texts(out, r.extras);
  util::put_text(out, r.specifier.empty() ? std::string() : r.specifier.to_string());
  util::put_text(out, r.url);
  util::put_text(out, r.marker.empty() ? std::string() : r.marker.to_string());
}

}  // namespace

std::string encode(const CoreMetadata& metadata) {
  std::string out(kMagic);
  util::put_text(out, metadata.name);
  util::put_text(out, metadata.version.to_string());
  util::put_text(
      out, metadata.requires_python.empty() ? std::string() : metadata.requires_python.to_string());
  util::put_number(out, metadata.requires_dist.size());
  for (const auto& r : metadata.requires_dist) put_requirement(out, r);
  put_texts(out, metadata.provides_extra);
  return out;
}

template <class T>
const T& Reader::parsed(std::unordered_map<std::string, T>& memo, std::string_view text) {
  auto [at, added] = memo.try_emplace(std::string(text));
  if (added && !text.empty()) {
    auto value = T::parse(text);
    if (!value) {
      memo.erase(at);
      throw util::DamagedBytes{};
    }
    at->second = std::move(value).value();
  }
  return at->second;
}

std::optional<CoreMetadata> Reader::decode(std::string_view bytes) {
  if (!bytes.starts_with(kMagic)) return std::nullopt;
  util::ByteReader in(bytes.substr(kMagic.size()));
  try {
    CoreMetadata out;
    out.name = in.text();
    auto version = core::Version::parse(in.text());
    if (!version) return std::nullopt;
    out.version = std::move(version).value();
    out.requires_python = parsed(specifiers_, in.text());
    out.requires_dist.resize(in.count());
    for (auto& r : out.requires_dist) {
      r.name = in.text();
      r.extras = texts(in);
      r.specifier = parsed(specifiers_, in.text());
      r.url = in.text();
      r.marker = parsed(markers_, in.text());
    }
    out.provides_extra = texts(in);
    if (!in.done()) return std::nullopt;
    return out;
  } catch (const util::DamagedBytes&) {
    return std::nullopt;
  }
}

}  // namespace bevenv::index::metadata_form
