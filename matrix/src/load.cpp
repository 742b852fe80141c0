#include <algorithm>
#include <iterator>
#include <thread>

#include "bevenv/core/error.hpp"
#include "bevenv/core/text_input.hpp"
#include "bevenv/core/toml_nesting.hpp"
#include "bevenv/matrix/loader.hpp"
#include "load_files.hpp"
#include "plain_packages.hpp"
#include "sections.hpp"
#include "stand_ins.hpp"

namespace bevenv::matrix {
namespace {

using detail::Collected;
using detail::FileContext;

// Reads one top-level key's value into `out`.
using SectionReader = void (*)(const toml::node& node, const FileContext& file, std::size_t layer,
                               Collected& out);

// An EntrySection object (sections.hpp) as a plain function, to stand in the table below.
template <const auto& section>
void read_entries(const toml::node& node, const FileContext& file, std::size_t layer,
                  Collected& out) {
  section(node, file, layer, out);
}

struct TopLevelKey {
  std::string_view name;
  SectionReader read;
};

// The keys a matrix file may have at the top, and what reads each.
constexpr TopLevelKey kTopLevelKeys[] = {
    {"matrix", detail::read_meta},
    {"package", detail::read_packages},
    {"rule", read_entries<detail::read_rules>},
    {"toolkit", read_entries<detail::read_toolkits>},
    {"profile", read_entries<detail::read_profiles>},
    {"observed", read_entries<detail::read_observed>},
    {"observed_host", read_entries<detail::read_observed_hosts>},
    {"failure", read_entries<detail::read_failures>},
};

// "unknown top-level key `NAME`", with the closest known key as a suggestion.
std::string unknown_key_message(std::string_view name) {
  std::vector<std::string> known;
  for (const TopLevelKey& key : kTopLevelKeys) known.emplace_back(key.name);
  std::string message = "unknown top-level key `" + std::string(name) + "`";
  const std::string suggestion = detail::closest(name, known);
  if (!suggestion.empty()) message += "; did you mean `" + suggestion + "`?";
  return message;
}

void read_file(const SourceFile& source, Collected& out, std::vector<Diagnostic>& diagnostics) {
  FileContext file{source.path, source.layer, &diagnostics};
  // The plain reader first: what it takes nests four levels deep at most, far below the guard's
  // limit, and scanning the 2 MB generated layer for nesting cost as much as reading it.
  if (detail::read_plain_packages(source, out)) return;
  if (const auto deep = core::check_toml_nesting(source.text)) {
    diagnostics.push_back(Diagnostic{source.path, static_cast<std::uint32_t>(deep->line),
                                     static_cast<std::uint32_t>(deep->column), deep->message});
    return;
  }
  toml::table document;
  try {
    // No source path: toml++ would share it with every node, and diagnostics name the file
    // from `FileContext` anyway.
    document = toml::parse(source.text);
  } catch (const toml::parse_error& error) {
    const auto& at = error.source().begin;
    file.error(at, "invalid TOML: " + std::string(error.description()));
    return;
  }
  for (const auto& [key, node] : document) {
    const std::string_view name = key.str();
    const auto known = std::find_if(std::begin(kTopLevelKeys), std::end(kTopLevelKeys),
                                    [&](const TopLevelKey& top) { return top.name == name; });
    if (known != std::end(kTopLevelKeys)) {
      known->read(node, file, source.layer_index, out);
    } else {
      file.error(key.source().begin, unknown_key_message(name));
    }
  }
}

}  // namespace

// The `*.toml` files of one overlay directory, by name.
void detail::read_overlay_dir(const std::filesystem::path& dir, std::size_t layer_index,
                              std::vector<SourceFile>& files,
                              std::vector<Diagnostic>& diagnostics) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    diagnostics.push_back(Diagnostic{dir.generic_string(), 0, 0,
                                     "not a directory; `--matrix` and `BEVENV_MATRIX_PATH` "
                                     "name directories of `*.toml` files"});
    return;
  }
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.is_regular_file() && entry.path().extension() == ".toml") {
      paths.push_back(entry.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    std::string text;
    try {
      text = core::read_regular_file(path, "");
    } catch (const core::Error& refused) {
      // The message starts with the path, which the diagnostic names already.
      const std::string what = refused.what();
      const auto after = what.find("` ");
      diagnostics.push_back(Diagnostic{path.generic_string(), 0, 0,
                                       after == std::string::npos ? what : what.substr(after + 2)});
      continue;
    }
    const bool observed = path.filename().string().rfind("observed", 0) == 0;
    files.push_back(SourceFile{path.generic_string(), std::move(text), layer_index,
                               observed ? Layer::observed : Layer::overlay});
  }
}

namespace {

template <class T>
void append(std::vector<T>& into, std::vector<T>&& from) {
  into.insert(into.end(), std::make_move_iterator(from.begin()),
              std::make_move_iterator(from.end()));
}

// `part`'s records after `into`'s, as if its file had been read after theirs.
void append(Collected& into, Collected&& part) {
  append(into.meta, std::move(part.meta));
  into.packages.absorb(std::move(part.packages));
  append(into.rules, std::move(part.rules));
  append(into.toolkits, std::move(part.toolkits));
  append(into.profiles, std::move(part.profiles));
  append(into.observed, std::move(part.observed));
  append(into.observed_hosts, std::move(part.observed_hosts));
  append(into.failures, std::move(part.failures));
}

// A file this large is read on a thread of its own while the others are read on this one (the
// generated layer is 4.6 MB, the curated files together a tenth of that).
constexpr std::size_t kOwnThreadBytes = 256 * 1024;

}  // namespace

// By pointer: the embedded files (2 MB and more) are read where they are, never copied. The
// records and diagnostics are those of reading the files one after the other, in order.
LoadResult detail::load_files(const std::vector<const SourceFile*>& files, bool known_only) {
  std::vector<Collected> parts(files.size());
  std::vector<std::vector<Diagnostic>> found(files.size());
  {
    std::vector<std::jthread> large;
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (files[i]->text.size() >= kOwnThreadBytes)
        large.emplace_back([&, i] { read_file(*files[i], parts[i], found[i]); });
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (files[i]->text.size() < kOwnThreadBytes) read_file(*files[i], parts[i], found[i]);
    }
  }  // the threads join here
  std::vector<Diagnostic> diagnostics;
  Collected collected;
  for (std::size_t i = 0; i < files.size(); ++i) {
    append(collected, std::move(parts[i]));
    append(diagnostics, std::move(found[i]));
  }
  Matrix matrix;
  auto checks = detail::build_matrix(std::move(collected), matrix, known_only);
  diagnostics.insert(diagnostics.end(), checks.begin(), checks.end());
  if (!diagnostics.empty()) {
    sort_diagnostics(diagnostics);
    return core::unexpected(std::move(diagnostics));
  }
  mark_stand_ins(matrix);
  return matrix;
}

std::vector<const SourceFile*> detail::pointers(const std::vector<SourceFile>& files) {
  std::vector<const SourceFile*> out;
  out.reserve(files.size());
  for (const SourceFile& file : files) out.push_back(&file);
  return out;
}

LoadResult load_sources(const std::vector<SourceFile>& files, bool known_only) {
  return detail::load_files(detail::pointers(files), known_only);
}

}  // namespace bevenv::matrix
