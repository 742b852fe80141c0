// PEP 503 pages and find-links pages: every `<a>` element is a file.
#include <cstdint>
#include <map>

#include "bevenv/core/name.hpp"
#include "bevenv/index/project.hpp"

namespace bevenv::index {
namespace {

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

void append_code_point(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x110000) {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The character references attribute values of index pages use: named ones for markup
// characters and numeric ones (`&#62;`, `&#x3E;`).
std::string decode_entities(std::string_view text) {
  if (text.find('&') == std::string_view::npos) return std::string(text);
  static const std::map<std::string_view, char> named = {
      {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto semi = text.find(';', i);
    if (text[i] != '&' || semi == std::string_view::npos || semi - i > 10) {
      out += text[i];
      continue;
    }
    const std::string_view ref = text.substr(i + 1, semi - i - 1);
    if (!ref.empty() && ref[0] == '#') {
      const bool hex = ref.size() > 1 && (ref[1] == 'x' || ref[1] == 'X');
      std::uint32_t cp = 0;
      bool ok = ref.size() > (hex ? 2u : 1u);
      for (char c : ref.substr(hex ? 2 : 1)) {
        const char l = ascii_lower(c);
        std::uint32_t digit = 0;
        if (l >= '0' && l <= '9') {
          digit = static_cast<std::uint32_t>(l - '0');
        } else if (hex && l >= 'a' && l <= 'f') {
          digit = static_cast<std::uint32_t>(l - 'a' + 10);
        } else {
          ok = false;
          break;
        }
        cp = cp * (hex ? 16u : 10u) + digit;
        if (cp > 0x10FFFF) ok = false;
      }
      if (ok) {
        append_code_point(out, cp);
        i = semi;
        continue;
      }
    } else if (const auto it = named.find(ref); it != named.end()) {
      out += it->second;
      i = semi;
      continue;
    }
    out += text[i];
  }
  return out;
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      auto hex = [](char c) -> int {
        c = ascii_lower(c);
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
      };
      const int hi = hex(text[i + 1]);
      const int lo = hex(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

// Attributes of one start tag, names lower-cased; `attributes` starts after the tag name.
std::map<std::string, std::string> parse_attributes(std::string_view attributes) {
  std::map<std::string, std::string> out;
  std::size_t i = 0;
  while (i < attributes.size()) {
    while (i < attributes.size() && (is_space(attributes[i]) || attributes[i] == '/')) ++i;
    const std::size_t name_start = i;
    while (i < attributes.size() && !is_space(attributes[i]) && attributes[i] != '=' &&
           attributes[i] != '/') {
      ++i;
    }
    std::string name;
    for (char c : attributes.substr(name_start, i - name_start)) name += ascii_lower(c);
    while (i < attributes.size() && is_space(attributes[i])) ++i;
    std::string value;
    if (i < attributes.size() && attributes[i] == '=') {
      ++i;
      while (i < attributes.size() && is_space(attributes[i])) ++i;
      if (i < attributes.size() && (attributes[i] == '"' || attributes[i] == '\'')) {
        const char quote = attributes[i++];
        const auto end = attributes.find(quote, i);
        const auto stop = end == std::string_view::npos ? attributes.size() : end;
        value = decode_entities(attributes.substr(i, stop - i));
        i = stop + 1;
      } else {
        const std::size_t start = i;
        while (i < attributes.size() && !is_space(attributes[i])) ++i;
        value = decode_entities(attributes.substr(start, i - start));
      }
    }
    if (!name.empty()) out.emplace(std::move(name), std::move(value));
  }
  return out;
}

// `sha256=<hex>` from a fragment or a metadata attribute: empty when there is none (another
// algorithm, or none at all). A sha256 that is not 64 hex digits is an error, never "no hash":
// the file would then be taken unchecked.
core::Expected<std::string, std::string> sha256_of(std::string_view text, std::string_view field,
                                                   std::string_view filename) {
  const std::string_view key = "sha256=";
  const auto pos = text.find(key);
  if (pos == std::string_view::npos) return std::string();
  std::string_view value = text.substr(pos + key.size());
  value = value.substr(0, value.find('&'));
  std::string hex;
  for (char c : value) {
    const char l = ascii_lower(c);
    if (!((l >= '0' && l <= '9') || (l >= 'a' && l <= 'f'))) {
      return core::unexpected("`" + std::string(filename) + "`: the sha256 in `" +
                              std::string(field) + "` is not hexadecimal");
    }
    hex += l;
  }
  if (hex.size() != 64) {
    return core::unexpected("`" + std::string(filename) + "`: the sha256 in `" +
                            std::string(field) + "` has " + std::to_string(hex.size()) +
                            " hex digits, not 64");
  }
  return hex;
}

// The PEP 658/714 attributes of a link: whether a metadata file is published, and its hash.
// An error text for a hash that is not one.
std::optional<std::string> read_metadata_attributes(
    const std::map<std::string, std::string>& attributes, Artifact& artifact) {
  for (const char* key : {"data-core-metadata", "data-dist-info-metadata"}) {
    const auto meta = attributes.find(key);
    if (meta == attributes.end() || meta->second == "false") continue;
    artifact.has_metadata_file = true;
    auto hash = sha256_of(meta->second, key, artifact.filename);
    if (!hash) return hash.error();
    artifact.metadata_sha256 = std::move(hash).value();
    break;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Artifact> artifact_from_filename(std::string_view filename, std::string_view url,
                                               std::string_view project) {
  Artifact artifact;
  artifact.filename = std::string(filename);
  artifact.url = std::string(url);
  if (auto wheel = parse_wheel_filename(filename)) {
    if (!project.empty() && wheel->name != project) return std::nullopt;
    artifact.kind = ArtifactKind::wheel;
    artifact.name = wheel->name;
    artifact.version = wheel->version;
    artifact.wheel = std::move(wheel);
    return artifact;
  }
  if (auto sdist = parse_sdist_filename(filename, project)) {
    artifact.kind = ArtifactKind::sdist;
    artifact.name = sdist->name;
    artifact.version = sdist->version;
    return artifact;
  }
  return std::nullopt;
}

core::Expected<std::vector<Artifact>, std::string> parse_simple_html(std::string_view html,
                                                                     std::string_view page_url,
                                                                     std::string_view project) {
  std::vector<Artifact> out;
  // A `<base href>` changes what relative links resolve against (PEP 503 allows it).
  std::string base(page_url);
  std::size_t pos = 0;
  while ((pos = html.find('<', pos)) != std::string_view::npos) {
    const auto close = html.find('>', pos);
    if (close == std::string_view::npos) break;
    const std::string_view tag = html.substr(pos + 1, close - pos - 1);
    pos = close + 1;
    std::size_t name_end = 0;
    while (name_end < tag.size() && !is_space(tag[name_end]) && tag[name_end] != '/') ++name_end;
    std::string tag_name;
    for (char c : tag.substr(0, name_end)) tag_name += ascii_lower(c);
    if (tag_name != "a" && tag_name != "base") continue;
    auto attributes = parse_attributes(tag.substr(name_end));
    const auto href = attributes.find("href");
    if (href == attributes.end() || href->second.empty()) continue;
    if (tag_name == "base") {
      const std::string resolved = resolve_url(page_url, href->second);
      if (is_allowed_link(page_url, resolved)) base = resolved;
      continue;
    }
    const std::string absolute = resolve_url(base, href->second);
    if (!is_allowed_link(page_url, absolute)) continue;
    const auto hash_at = absolute.find('#');
    const std::string url = absolute.substr(0, hash_at);
    const std::string fragment = hash_at == std::string::npos ? "" : absolute.substr(hash_at + 1);
    std::string_view path = url;
    if (const auto q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
    const std::string filename = percent_decode(path.substr(path.rfind('/') + 1));
    auto artifact = artifact_from_filename(filename, url, project);
    if (!artifact) continue;
    auto hash = sha256_of(fragment, "#sha256=", artifact->filename);
    if (!hash) return core::unexpected(hash.error());
    artifact->sha256 = std::move(hash).value();
    if (const auto rp = attributes.find("data-requires-python"); rp != attributes.end()) {
      if (auto spec = core::SpecifierSet::parse(rp->second)) artifact->requires_python = *spec;
    }
    if (auto error = read_metadata_attributes(attributes, *artifact))
      return core::unexpected(*error);
    artifact->yanked = attributes.count("data-yanked") > 0;
    out.push_back(std::move(*artifact));
  }
  return out;
}

}  // namespace bevenv::index
