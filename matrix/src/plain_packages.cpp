#include "plain_packages.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bevenv/core/name.hpp"
#include "source_ref.hpp"

namespace bevenv::matrix::detail {
namespace {

// The keys of a `[[package]]` record that can hold a plain value; `build_step` and `variants` are
// tables, which the fast path leaves to toml++. `generated` (a one-line inline table of two
// strings) and `artifacts` (one inline table per line) are what the generated layer writes.
enum class Field : std::uint8_t {
  name,
  version,
  requires_,
  sources,
  python,
  cuda,
  sass,
  ptx,
  published,
  index,
  find_links,
  url,
  sha256,
  note,
  build,
  deps,
  generated,
  artifacts,
};
constexpr std::size_t kFieldCount = 18;

enum class Kind : std::uint8_t { absent, string, strings, boolean, provenance, artifacts };

struct KnownKey {
  std::string_view key;
  Field field;
  Kind kind;  // the only kind the full reader accepts without a report
};
constexpr std::array<KnownKey, kFieldCount> kKnownKeys = {{
    {"name", Field::name, Kind::string},
    {"version", Field::version, Kind::string},
    {"requires", Field::requires_, Kind::strings},
    {"sources", Field::sources, Kind::strings},
    {"python", Field::python, Kind::string},
    {"cuda", Field::cuda, Kind::string},
    {"sass", Field::sass, Kind::strings},
    {"ptx", Field::ptx, Kind::strings},
    {"published", Field::published, Kind::boolean},
    {"index", Field::index, Kind::string},
    {"find_links", Field::find_links, Kind::string},
    {"url", Field::url, Kind::string},
    {"sha256", Field::sha256, Kind::string},
    {"note", Field::note, Kind::string},
    {"build", Field::build, Kind::string},
    {"deps", Field::deps, Kind::string},
    {"generated", Field::generated, Kind::provenance},
    {"artifacts", Field::artifacts, Kind::artifacts},
}};

struct Value {
  Kind kind = Kind::absent;
  std::string_view text;  // a string's contents (no escapes: they are never taken)
  std::size_t first = 0;  // an array's items: Table::items[first, first + count)
  std::size_t count = 0;
  bool flag = false;
};

// One line of `artifacts` as written; `size` is nullopt when left out.
struct ArtifactText {
  std::string_view filename, url, sha256;
  std::optional<std::uint64_t> size;
};

// One `[[package]]` table as written: its header position and its values by field.
struct Table {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::array<Value, kFieldCount> values{};
  std::vector<std::string_view> items;
  std::string_view index, read;  // `generated`
  std::vector<ArtifactText> artifacts;
  bool in_artifacts = false;  // between `artifacts = [` and its `]`
  // The last artifact line ended without a comma: TOML allows that only before the `]`.
  bool artifact_without_comma = false;

  const Value& operator[](Field field) const { return values[static_cast<std::size_t>(field)]; }
  Value& operator[](Field field) { return values[static_cast<std::size_t>(field)]; }
};

bool is_space(char c) { return c == ' ' || c == '\t'; }

bool is_bare_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

// Printable ASCII: what a comment or a string may hold without toml++ having a say about it.
bool is_plain_char(char c) { return c >= 0x20 && c < 0x7f; }

// Reads one line of the file; `at` is the index into it.
class LineScanner {
 public:
  explicit LineScanner(std::string_view line) : line_(line) {}

  std::size_t at() const { return at_; }
  bool done() const { return at_ == line_.size(); }
  char peek() const { return line_[at_]; }
  void skip_space() {
    while (!done() && is_space(peek())) ++at_;
  }
  bool take(std::string_view word) {
    if (line_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }
  // Spaces, then the end of the line or a comment of printable text.
  bool rest_is_blank() {
    skip_space();
    if (done()) return true;
    if (peek() != '#') return false;
    return std::all_of(line_.begin() + static_cast<std::ptrdiff_t>(at_ + 1), line_.end(),
                       [](char c) { return is_plain_char(c) || c == '\t'; });
  }
  std::string_view bare_key() {
    const std::size_t start = at_;
    while (!done() && is_bare_key_char(peek())) ++at_;
    return line_.substr(start, at_ - start);
  }
  // A basic string without escapes or a literal string (whose text is as written, so the two read
  // alike); false for anything else.
  bool string(std::string_view& out) {
    if (done() || (peek() != '"' && peek() != '\'')) return false;
    const char quote = peek();
    const std::size_t start = ++at_;
    while (!done() && peek() != quote) {
      if (!is_plain_char(peek()) || (quote == '"' && peek() == '\\')) return false;
      ++at_;
    }
    if (done()) return false;
    out = line_.substr(start, at_ - start);
    ++at_;
    return true;
  }
  // `["a", "b"]` on one line, a trailing comma allowed.
  bool strings(std::vector<std::string_view>& items) {
    if (!take("[")) return false;
    for (;;) {
      skip_space();
      if (take("]")) return true;
      std::string_view item;
      if (!string(item)) return false;
      items.push_back(item);
      skip_space();
      if (take("]")) return true;
      if (!take(",")) return false;
    }
  }
  // A decimal integer toml++ reads the same: no sign, `_` or leading zero, and well inside int64.
  bool size(std::uint64_t& out) {
    const std::size_t start = at_;
    while (!done() && peek() >= '0' && peek() <= '9') ++at_;
    const std::size_t length = at_ - start;
    if (length == 0 || length > 18 || (length > 1 && line_[start] == '0')) return false;
    out = 0;
    for (std::size_t i = start; i < at_; ++i)
      out = out * 10 + static_cast<unsigned>(line_[i] - '0');
    return done() || is_space(peek()) || peek() == ',' || peek() == '}';
  }
  // `key = "text"` for one of `keys`, each at most once, in an inline table.
  bool inline_strings(std::span<const std::string_view> keys, std::span<std::string_view*> into) {
    if (!take("{")) return false;
    std::vector<bool> seen(keys.size(), false);
    for (;;) {
      skip_space();
      const std::string_view key = bare_key();
      const auto it = std::find(keys.begin(), keys.end(), key);
      if (it == keys.end()) return false;
      const auto k = static_cast<std::size_t>(it - keys.begin());
      if (seen[k]) return false;
      seen[k] = true;
      skip_space();
      if (!take("=")) return false;
      skip_space();
      if (!string(*into[k])) return false;
      skip_space();
      if (take("}")) return std::all_of(seen.begin(), seen.end(), [](bool b) { return b; });
      if (!take(",")) return false;
    }
  }
  bool boolean(bool& out) {
    if (take("true")) {
      out = true;
    } else if (take("false")) {
      out = false;
    } else {
      return false;
    }
    return done() || is_space(peek()) || peek() == '#';
  }

 private:
  std::string_view line_;
  std::size_t at_ = 0;
};

// `{ filename = "...", url = "...", sha256 = "...", size = N },`: one line of `artifacts`.
bool read_artifact(LineScanner& scanner, Table& table) {
  if (table.artifact_without_comma || !scanner.take("{")) return false;
  ArtifactText artifact;
  std::array<bool, 4> seen{};
  for (;;) {
    scanner.skip_space();
    const std::string_view key = scanner.bare_key();
    constexpr std::array<std::string_view, 4> kKeys = {"filename", "url", "sha256", "size"};
    const auto it = std::find(kKeys.begin(), kKeys.end(), key);
    if (it == kKeys.end()) return false;
    const auto k = static_cast<std::size_t>(it - kKeys.begin());
    if (seen[k]) return false;
    seen[k] = true;
    scanner.skip_space();
    if (!scanner.take("=")) return false;
    scanner.skip_space();
    std::uint64_t size = 0;
    const bool took = k == 0   ? scanner.string(artifact.filename)
                      : k == 1 ? scanner.string(artifact.url)
                      : k == 2 ? scanner.string(artifact.sha256)
                               : scanner.size(size);
    if (!took) return false;
    if (k == 3) artifact.size = size;
    scanner.skip_space();
    if (scanner.take("}")) break;
    if (!scanner.take(",")) return false;
  }
  if (!seen[0] || !seen[1] || !seen[2]) return false;
  table.artifacts.push_back(artifact);
  scanner.skip_space();
  table.artifact_without_comma = !scanner.take(",");
  return scanner.rest_is_blank();
}

// A line inside `artifacts = [ ... ]`.
bool read_artifacts_line(LineScanner& scanner, Table& table) {
  if (scanner.take("]")) {
    table.in_artifacts = false;
    return scanner.rest_is_blank();
  }
  return read_artifact(scanner, table);
}

// The opening of `artifacts`: `[]`, or `[` alone with the tables on the lines that follow.
bool open_artifacts(LineScanner& scanner, Table& table) {
  if (!scanner.take("[")) return false;
  scanner.skip_space();
  if (scanner.take("]")) return scanner.rest_is_blank();
  table.in_artifacts = true;
  table.artifact_without_comma = false;
  return scanner.rest_is_blank();
}

// `key = value`; false when the line is anything else or repeats a key.
bool read_key_value(LineScanner& scanner, Table& table) {
  const std::string_view key = scanner.bare_key();
  const auto known = std::find_if(kKnownKeys.begin(), kKnownKeys.end(),
                                  [&](const KnownKey& k) { return k.key == key; });
  if (known == kKnownKeys.end()) return false;
  Value& value = table[known->field];
  if (value.kind != Kind::absent) return false;
  scanner.skip_space();
  if (!scanner.take("=")) return false;
  scanner.skip_space();
  if (scanner.done()) return false;
  value.kind = known->kind;
  if (known->kind == Kind::string) {
    if (!scanner.string(value.text)) return false;
  } else if (known->kind == Kind::strings) {
    value.first = table.items.size();
    if (!scanner.strings(table.items)) return false;
    value.count = table.items.size() - value.first;
  } else if (known->kind == Kind::provenance) {
    constexpr std::array<std::string_view, 2> kKeys = {"index", "read"};
    std::array<std::string_view*, 2> into = {&table.index, &table.read};
    if (!scanner.inline_strings(kKeys, into)) return false;
  } else if (known->kind == Kind::artifacts) {
    return open_artifacts(scanner, table);
  } else if (!scanner.boolean(value.flag)) {
    return false;
  }
  return scanner.rest_is_blank();
}

// A transparent hash, so that lookups by string_view build no string.
struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const {
    return std::hash<std::string_view>{}(text);
  }
};

// The length of the project name `text` starts with, when pep508's identifier rule reads the
// same name whatever follows: a run of letters, digits, `-`, `_` and `.` that starts and ends
// with a letter or digit (the character after the run is then no word character). 0 otherwise.
std::size_t plain_name_length(std::string_view text) {
  std::size_t end = 0;
  while (end < text.size() && (is_bare_key_char(text[end]) || text[end] == '.')) ++end;
  const auto alnum = [](char c) { return is_bare_key_char(c) && c != '-' && c != '_'; };
  if (end == 0 || !alnum(text[0]) || !alnum(text[end - 1])) return 0;
  return end;
}

// Parsed values by their text, for the records of one file: generated overlays repeat version
// strings and requirement tails (`>=1.0,<=3.0` after the name) thousands of times. Only
// successful parses are kept: a text that fails makes the file not plain anyway.
class ParseCache {
 public:
  bool version(std::string_view text, core::Version& into) {
    return parse_cached(versions_, text, into);
  }

  // `python` ranges repeat as much as versions do (`>=3.8`).
  bool specifiers(std::string_view text, core::SpecifierSet& into) {
    return parse_cached(specifiers_, text, into);
  }

  // A file's path and a snapshot's index and date: one shared copy for all the records naming it.
  const util::SharedText& shared(std::string_view text) {
    auto it = texts_.find(text);
    if (it == texts_.end()) it = texts_.emplace(std::string(text), std::string(text)).first;
    return it->second;
  }

  // After the name, core::Requirement::parse reads the tail alone; the name is kept as written.
  bool requirement(std::string_view text, core::Requirement& into) {
    const std::size_t name_length = plain_name_length(text);
    const std::string_view tail = text.substr(name_length);
    if (name_length > 0) {
      if (const auto it = tails_.find(tail); it != tails_.end()) {
        into = it->second;
        into.name = std::string(text.substr(0, name_length));
        return true;
      }
    }
    auto parsed = core::Requirement::parse(text);
    if (!parsed) return false;
    into = std::move(parsed).value();
    if (name_length > 0) tails_.emplace(std::string(tail), into);
    return true;
  }

 private:
  template <class T>
  using ByText = std::unordered_map<std::string, T, TextHash, std::equal_to<>>;

  // The value `text` parsed to before, else T::parse's, kept when it succeeds.
  template <class T>
  static bool parse_cached(ByText<T>& cache, std::string_view text, T& into) {
    if (const auto it = cache.find(text); it != cache.end()) {
      into = it->second;
      return true;
    }
    auto parsed = T::parse(text);
    if (!parsed) return false;
    into = cache.emplace(std::string(text), std::move(parsed).value()).first->second;
    return true;
  }

  ByText<core::Version> versions_;
  ByText<core::Requirement> tails_;
  ByText<core::SpecifierSet> specifiers_;
  ByText<util::SharedText> texts_;
};

// How many records each written name has, from the lines that start `name = "`: a sizing hint,
// so that each name's list is allocated once instead of growing record by record.
using NameCounts = std::unordered_map<std::string_view, std::size_t, TextHash, std::equal_to<>>;

NameCounts count_names(std::string_view text) {
  constexpr std::string_view kPrefix = "name = \"";
  NameCounts counts;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.substr(0, kPrefix.size()) != kPrefix) continue;
    const std::string_view value = line.substr(kPrefix.size());
    ++counts[value.substr(0, value.find('"'))];
  }
  return counts;
}

// The checks read_packages makes, as yes/no: a record they would report is not plain.
class RecordBuilder {
 public:
  RecordBuilder(const Table& table, ParseCache& cache, const NameCounts& counts)
      : table_(table), cache_(cache), counts_(counts) {}

  // Adds the record to `out`, or returns false (maybe having added a partial one).
  bool build(const SourceFile& source, PackageRecords& out) {
    const std::string_view* name = string(Field::name, true);
    if (name == nullptr || !core::is_valid_name(*name)) return false;
    std::string normalized = core::normalize_name(*name);
    const std::string_view* version = string(Field::version, true);
    core::Version parsed_version;
    if (version == nullptr || !cache_.version(*version, parsed_version)) return false;
    const auto count = counts_.find(*name);
    PackageVersion& record =
        out.add(source.layer_index, normalized, count == counts_.end() ? 1 : count->second);
    record.name = std::move(normalized);
    record.version = std::move(parsed_version);
    record.origin = Origin{cache_.shared(source.path), table_.line, table_.column, source.layer};
    if (const auto* python = string(Field::python)) {
      if (!cache_.specifiers(*python, record.python)) return false;
    }
    if (const auto* cuda = string(Field::cuda)) {
      core::Version parsed;
      if (!cache_.version(*cuda, parsed)) return false;
      record.cuda = std::move(parsed);
    }
    if (!arches(Field::sass, "sm_", record.sass) || !arches(Field::ptx, "compute_", record.ptx)) {
      return false;
    }
    const Value& published = table_[Field::published];
    if (published.kind != Kind::absent) record.local_is_published = published.flag;
    copy(Field::index, record.index_url);
    copy(Field::find_links, record.find_links);
    copy(Field::url, record.artifact_url);
    copy(Field::sha256, record.sha256);
    copy(Field::note, record.note);
    const Value& requirements = table_[Field::requires_];
    if (requirements.kind != Kind::absent) {
      std::vector<core::Requirement>& list = record.requirements.edit();
      list.reserve(requirements.count);
      for (const std::string_view text : items(requirements)) {
        if (!cache_.requirement(text, list.emplace_back())) return false;
      }
    }
    const Value& sources = table_[Field::sources];
    if (sources.kind != Kind::absent) {
      for (const std::string_view text : items(sources)) {
        if (!is_source_ref(text)) return false;  // the toml++ path reports it
        record.sources.emplace_back(text);
      }
    }
    if (const auto* build = string(Field::build)) {
      const bool generated = table_[Field::generated].kind != Kind::absent;
      if (*build == "sdist") {
        record.build = BuildKind::sdist;
      } else if (*build == "source" && generated) {
        record.build = BuildKind::source;  // the sdist of a curated source build (merge.cpp)
      } else if (*build != "wheel") {
        return false;  // `source` needs a `build_step` table; anything else is reported
      }
    }
    if (const auto* deps = string(Field::deps)) {
      if (*deps != "curated" && *deps != "complete") return false;
      record.deps_complete = *deps == "complete";
    }
    if (table_[Field::generated].kind != Kind::absent) {
      record.generated = Provenance{cache_.shared(table_.index), cache_.shared(table_.read)};
    }
    if (!artifacts(record.artifacts)) return false;
    return ok_ && (!record.sources.empty() || record.generated) && plain_sha256(record.sha256);
  }

 private:
  // A string field's text, or null when absent (read_key_value took only the right kinds).
  const std::string_view* string(Field field, bool required = false) {
    const Value& value = table_[field];
    if (value.kind == Kind::absent) {
      ok_ = ok_ && !required;
      return nullptr;
    }
    return &value.text;
  }
  void copy(Field field, std::string& into) {
    if (const auto* text = string(field)) into = std::string(*text);
  }
  std::span<const std::string_view> items(const Value& value) const {
    return std::span<const std::string_view>(table_.items).subspan(value.first, value.count);
  }
  bool arches(Field field, std::string_view prefix, std::vector<std::string>& into) {
    const Value& value = table_[field];
    if (value.kind == Kind::absent) return true;
    for (const std::string_view text : items(value)) {
      if (!is_arch_name(text, prefix)) return false;
      into.emplace_back(text);
    }
    return true;
  }
  bool artifacts(std::vector<Artifact>& into) const {
    into.reserve(table_.artifacts.size());
    for (const ArtifactText& text : table_.artifacts) {
      if (text.sha256.size() != 64 || !plain_sha256(text.sha256)) return false;
      into.push_back(
          {std::string(text.filename), std::string(text.url), std::string(text.sha256), text.size});
    }
    std::sort(into.begin(), into.end(),
              [](const Artifact& a, const Artifact& b) { return a.filename < b.filename; });
    return true;
  }
  static bool plain_sha256(std::string_view sha) {
    if (sha.empty()) return true;
    return sha.size() == 64 && std::all_of(sha.begin(), sha.end(), [](char c) {
             return std::isxdigit(static_cast<unsigned char>(c)) != 0;
           });
  }

  const Table& table_;
  ParseCache& cache_;
  const NameCounts& counts_;
  bool ok_ = true;
};

// A run of whole `[[package]]` tables of a file, and the number of the line before it.
struct Slice {
  std::string_view text;
  std::uint32_t lines_before = 0;
};

// Reads every line of `slice`; false at the first one that is not plain.
bool read_lines(const SourceFile& source, Slice slice, const NameCounts& counts,
                PackageRecords& out) {
  const std::string_view text = slice.text;
  Table table;
  ParseCache cache;
  bool in_table = false;
  const auto finish_table = [&] {
    return !in_table || RecordBuilder(table, cache, counts).build(source, out);
  };
  std::uint32_t line_number = slice.lines_before;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    LineScanner scanner(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    scanner.skip_space();
    if (scanner.rest_is_blank()) continue;
    if (table.in_artifacts) {
      if (!read_artifacts_line(scanner, table)) return false;
      continue;
    }
    if (scanner.peek() == '[') {
      const auto column = static_cast<std::uint32_t>(scanner.at() + 1);
      if (!scanner.take("[[package]]") || !scanner.rest_is_blank() || !finish_table()) {
        return false;
      }
      table.values.fill(Value{});
      table.items.clear();
      table.artifacts.clear();
      table.index = table.read = {};
      table.line = line_number;
      table.column = column;
      in_table = true;
      continue;
    }
    if (!in_table || !read_key_value(scanner, table)) return false;
  }
  return in_table && !table.in_artifacts && finish_table();
}

// Cuts `text` into at most `count` slices, each starting at a `[[package]]` line (the first at
// the start of the text, whatever it holds), of about equal size.
std::vector<Slice> slices_of(std::string_view text, std::size_t count) {
  constexpr std::string_view kTable = "\n[[package]]\n";
  std::vector<Slice> out;
  std::size_t start = 0;
  std::uint32_t lines_before = 0;
  for (std::size_t k = 1; k < count; ++k) {
    const std::size_t wanted = std::max(start, text.size() * k / count);
    const std::size_t cut = text.find(kTable, wanted);
    if (cut == std::string_view::npos) break;
    const std::string_view piece = text.substr(start, cut + 1 - start);
    out.push_back({piece, lines_before});
    lines_before += static_cast<std::uint32_t>(std::count(piece.begin(), piece.end(), '\n'));
    start = cut + 1;
  }
  out.push_back({text.substr(start), lines_before});
  return out;
}

// Files this large are read in slices on as many threads as there are cores (at most four):
// the generated layer (4.6 MB) took a third of an offline lock on one.
constexpr std::size_t kSliceBytes = 512 * 1024;

}  // namespace

bool read_plain_packages(const SourceFile& source, Collected& out) {
  if (source.text.rfind("\xEF\xBB\xBF", 0) == 0) return false;  // a BOM: toml++'s business
  const std::string_view text = source.text;
  const NameCounts counts = count_names(text);
  const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t wanted = std::min<std::size_t>({4, cores, text.size() / kSliceBytes + 1});
  const std::vector<Slice> slices = slices_of(text, wanted);
  std::vector<PackageRecords> records(slices.size());
  std::vector<char> plain(slices.size(), 0);
  {
    std::vector<std::jthread> helpers;
    for (std::size_t i = 1; i < slices.size(); ++i) {
      helpers.emplace_back(
          [&, i] { plain[i] = read_lines(source, slices[i], counts, records[i]) ? 1 : 0; });
    }
    plain[0] = read_lines(source, slices[0], counts, records[0]) ? 1 : 0;
  }  // the helpers join here
  if (std::find(plain.begin(), plain.end(), 0) != plain.end()) return false;
  // In file order, so every name's records keep the order they were written in.
  for (PackageRecords& part : records) out.packages.absorb(std::move(part));
  return true;
}

}  // namespace bevenv::matrix::detail
