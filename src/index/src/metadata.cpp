#include "bevenv/index/metadata.hpp"

#include <memory>

#include "bevenv/core/libarchive.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/util/text.hpp"
#include "sdist_scan.hpp"

namespace bevenv::index {
namespace {

std::string_view trim(std::string_view s) { return util::trim(s, " \t\r"); }

// The fields resolution reads; the rest (descriptions, classifiers, licenses: most of a file) are
// skipped without a copy.
enum class Field { name, version, requires_python, requires_dist, provides_extra, other };

Field field_of(std::string_view key) {
  static constexpr std::pair<std::string_view, Field> kFields[] = {
      {"name", Field::name},
      {"version", Field::version},
      {"requires-python", Field::requires_python},
      {"requires-dist", Field::requires_dist},
      {"provides-extra", Field::provides_extra}};
  for (const auto& [lower, field] : kFields) {
    if (util::iequals_ascii(key, lower)) return field;
  }
  return Field::other;
}

core::Expected<CoreMetadata, std::string> from_fields(
    const std::vector<std::pair<Field, std::string>>& fields) {
  CoreMetadata out;
  bool have_name = false;
  bool have_version = false;
  for (const auto& [field, value] : fields) {
    switch (field) {
      case Field::name:
        out.name = value;
        have_name = true;
        break;
      case Field::version: {
        auto version = core::Version::parse(value);
        if (!version) return core::unexpected("`Version: " + value + "` is not a PEP 440 version");
        out.version = std::move(version).value();
        have_version = true;
        break;
      }
      case Field::requires_python:
        if (auto spec = core::SpecifierSet::parse(value))
          out.requires_python = std::move(spec).value();
        break;
      case Field::requires_dist: {
        auto requirement = core::Requirement::parse(value);
        if (!requirement) {
          return core::unexpected("`Requires-Dist: " + value +
                                  "` is not PEP 508: " + requirement.error().to_string());
        }
        out.requires_dist.push_back(std::move(requirement).value());
        break;
      }
      case Field::provides_extra:
        out.provides_extra.push_back(core::normalize_name(value));
        break;
      case Field::other:
        break;
    }
  }
  if (!have_name) return core::unexpected(std::string("no `Name` field"));
  if (!have_version) return core::unexpected(std::string("no `Version` field"));
  return out;
}

using ArchivePtr = std::unique_ptr<archive, decltype(&::archive_read_free)>;

// The METADATA of the one top-level `.dist-info` directory.
core::Expected<std::string, std::string> read_metadata(archive* reader, std::string_view what,
                                                       std::uint64_t limit) {
  const auto& la = core::libarchive::api();
  archive_entry* entry = nullptr;
  while (la.read_next_header(reader, &entry) == ARCHIVE_OK) {
    const char* raw = la.entry_pathname(entry);
    const std::string_view path = raw != nullptr ? raw : "";
    const auto slash = path.find('/');
    const bool wanted = slash != std::string_view::npos && path.substr(slash) == "/METADATA" &&
                        path.substr(0, slash).ends_with(".dist-info");
    if (!wanted) continue;
    return read_archive_entry(reader, path, what, limit);
  }
  const char* error = la.error_string(reader);
  return core::unexpected(std::string(what) + " has no `*.dist-info/METADATA`" +
                          (error != nullptr ? std::string(" (") + error + ")" : std::string()));
}

ArchivePtr zip_reader() {
  const auto& la = core::libarchive::api();
  ArchivePtr reader(la.read_new(), la.read_free);
  la.read_support_format_zip_seekable(reader.get());
  return reader;
}

}  // namespace

core::Expected<CoreMetadata, std::string> parse_core_metadata(std::string_view text) {
  std::vector<std::pair<Field, std::string>> fields;
  bool seen_field = false;  // a blank-led line continues a field only after one
  bool in_wanted = false;   // whether that field is kept
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    // Only an empty line ends the headers: a line of blanks continues a field (RFC 822, as
    // Python's email parser reads it), and long License fields are full of them.
    if (line.empty() || line == "\r") break;  // the description body follows
    if ((line.front() == ' ' || line.front() == '\t') && seen_field) {
      if (in_wanted) fields.back().second.append(" ").append(trim(line));
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const Field field = field_of(trim(line.substr(0, colon)));
    seen_field = true;
    in_wanted = field != Field::other;
    if (in_wanted) fields.emplace_back(field, std::string(trim(line.substr(colon + 1))));
  }
  return from_fields(fields);
}

core::Expected<std::string, std::string> wheel_metadata_text(const std::filesystem::path& wheel,
                                                             std::uint64_t limit) {
  const auto& la = core::libarchive::api();
  ArchivePtr reader = zip_reader();
  if (la.read_open_filename(reader.get(), wheel.c_str(), 65536) != ARCHIVE_OK) {
    return core::unexpected("cannot open `" + wheel.string() +
                            "` as a zip: " + la.error_string(reader.get()));
  }
  return read_metadata(reader.get(), "`" + wheel.filename().string() + "`", limit);
}

core::Expected<std::string, std::string> wheel_metadata_text_from_memory(std::string_view bytes,
                                                                         std::uint64_t limit) {
  const auto& la = core::libarchive::api();
  ArchivePtr reader = zip_reader();
  if (la.read_open_memory(reader.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
    return core::unexpected(std::string("the wheel is not a zip: ") +
                            la.error_string(reader.get()));
  }
  return read_metadata(reader.get(), "the wheel", limit);
}

core::Expected<std::string, std::string> sdist_metadata_text(const std::filesystem::path& sdist,
                                                             std::uint64_t limit) {
  const auto& la = core::libarchive::api();
  ArchivePtr reader(la.read_new(), la.read_free);
  la.read_support_format_tar(reader.get());
  la.read_support_format_zip(reader.get());
  la.read_support_filter_gzip(reader.get());
  la.read_support_filter_bzip2(reader.get());
  if (la.read_open_filename(reader.get(), sdist.c_str(), 65536) != ARCHIVE_OK) {
    return core::unexpected("cannot open `" + sdist.string() +
                            "`: " + la.error_string(reader.get()));
  }
  return scan_sdist(reader.get(), "`" + sdist.filename().string() + "`", limit);
}

}  // namespace bevenv::index
