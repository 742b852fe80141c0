// Fuzzes Dockerfile rendering from hostile lock text: bytes read as a lockfile (the reader
// refuses most), then rendered as `bevenv build-image` would. Rendering either refuses with
// core::Error(bad_input) or emits files in which no lockfile value changes the meaning:
//   - every instruction is one the renderer writes, and continuation lines join as intended;
//   - ENV and LABEL values are double-quoted with `\`, `"` and `$` escaped;
//   - RUN lines lex as sh words with balanced quotes and no expansion (`$`, backticks) outside
//     single quotes;
//   - COPY, WORKDIR, USER and FROM take plain words only;
//   - the requirements files hold no pip option but the ones export writes, not even after a
//     requirement on its line (pip would read it).
// Build commands are shell text from the matrix by design; the target replaces them with a fixed
// command so that the checks above can hold for every other value.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/containers/dockerfile.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "fuzz_check.hpp"

using bevenv::fuzz::require;

namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    out.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

bool plain_word(std::string_view word) {
  if (word.empty()) return false;
  for (char c : word) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("._/:@+-=,").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const std::size_t begin = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > begin) out.push_back(text.substr(begin, i - begin));
  }
  return out;
}

// `KEY="value" KEY="value"`: keys plain, values double-quoted with every `"`, `$` and `\` escaped.
void check_key_values(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i == text.size()) break;
    const std::size_t eq = text.find('=', i);
    require(eq != std::string_view::npos, "an ENV/LABEL pair without `=`");
    const std::string_view key = text.substr(i, eq - i);
    require(plain_word(key) && key.find('=') == std::string_view::npos, "an ENV/LABEL key");
    i = eq + 1;
    require(i < text.size() && text[i] == '"', "an unquoted ENV/LABEL value");
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      require(text[i] != '$', "an unescaped `$` in an ENV/LABEL value");
      if (text[i] == '\\') ++i;
    }
    require(i < text.size(), "an ENV/LABEL value without its closing quote");
    ++i;
    require(i == text.size() || text[i] == ' ', "text glued to an ENV/LABEL value");
  }
}

// sh words of a RUN line: quotes balance, and nothing expands outside single quotes.
void check_shell(std::string_view text) {
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == '\'') {
      if (c == '\'') quote = 0;
      continue;
    }
    require(c != '`', "a backtick outside single quotes in a RUN line");
    require(c != '$', "a `$` outside single quotes in a RUN line");
    if (c == '\\') {
      ++i;
      continue;
    }
    if (quote == '"') {
      if (c == '"') quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
  }
  require(quote == 0, "a RUN line whose quotes do not balance");
}

void check_instruction(const std::string& logical) {
  const std::size_t space = logical.find(' ');
  const std::string keyword = logical.substr(0, space);
  const std::string_view rest =
      space == std::string::npos ? std::string_view() : std::string_view(logical).substr(space + 1);
  if (keyword == "ENV" || keyword == "LABEL") return check_key_values(rest);
  if (keyword == "RUN") return check_shell(rest);
  if (keyword == "SHELL") {
    require(rest == R"(["/bin/bash", "-o", "pipefail", "-c"])", "a SHELL of another shape");
    return;
  }
  const bool words_only = keyword == "FROM" || keyword == "COPY" || keyword == "WORKDIR" ||
                          keyword == "USER" || keyword == "ARG";
  require(words_only, "an instruction the renderer does not write");
  const auto parts = words(rest);
  require(!parts.empty(), "an instruction without arguments");
  for (const auto word : parts) require(plain_word(word), "a word that is not plain");
  if (keyword == "FROM" || keyword == "WORKDIR" || keyword == "USER") {
    require(parts.size() == 1, "FROM, WORKDIR or USER with more than one word");
  }
  if (keyword == "COPY") require(parts.size() == 2, "COPY of another shape");
}

void check_dockerfile(const std::string& dockerfile) {
  std::string logical;
  bool continued = false;
  for (const std::string& line : lines_of(dockerfile)) {
    if (!continued && (line.empty() || line[0] == '#')) continue;
    require(line.find('\r') == std::string::npos, "a carriage return in the Dockerfile");
    const bool continues = line.ends_with(" \\");
    logical += continues ? line.substr(0, line.size() - 2) : line;
    continued = continues;
    if (continued) {
      logical += ' ';
      continue;
    }
    check_instruction(logical);
    logical.clear();
  }
  require(!continued, "a Dockerfile that ends in a continuation");
}

void check_requirements(const std::string& text) {
  for (const std::string& line : lines_of(text)) {
    const std::size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line[start] == '#') continue;
    const std::string_view body = std::string_view(line).substr(start);
    if (body.starts_with("-")) {
      const bool known = body.starts_with("--hash=sha256:") ||
                         body.starts_with("--extra-index-url ") ||
                         body.starts_with("--find-links ") || body.starts_with("--index-url ");
      require(known, "a pip option export does not write");
      continue;
    }
    const char c = body[0];
    const bool name_start =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    require(name_start, "a requirements line that is neither a pin nor a known option");
    // pip reads options after a requirement too (`--hash`, `--global-option`, `--config-settings`):
    // it starts them at the first word that begins with `-`, quotes or not.
    for (const auto word : words(body)) {
      require(word == "\\" || !word.starts_with("-"), "a pip option inside a requirement line");
    }
  }
}

void render_and_check(const bevenv::lockfiles::Lockfile& lock, bool with_project) {
  bevenv::containers::ImageOptions options;
  options.with_probe = true;
  options.with_project = with_project;
  options.lockfile_digest = "sha256:" + std::string(64, 'a');
  try {
    const auto files = bevenv::containers::render_image_files(lock, options);
    check_dockerfile(files.dockerfile);
    check_requirements(files.requirements);
    check_requirements(files.unhashed_requirements);
    for (const auto& [name, text] : files.build_requirements) {
      require(plain_word(name) && name.find('/') == std::string::npos, "a context file name");
      check_requirements(text);
    }
    if (std::getenv("BEVENV_FUZZ_VERBOSE") != nullptr) std::fprintf(stderr, "rendered\n");
  } catch (const bevenv::core::Error& error) {
    // BEVENV_FUZZ_VERBOSE=1 shows why a seed is refused (a seed that renders nothing tests little).
    if (std::getenv("BEVENV_FUZZ_VERBOSE") != nullptr) std::fprintf(stderr, "%s\n", error.what());
    require(error.code() == bevenv::core::ExitCode::bad_input, "a refusal that is not bad input");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);  // NOLINT
  try {
    auto lock = bevenv::lockfiles::parse_lockfile(text, "fuzz.lock");
    if (!lock) return 0;
    for (auto& build : lock->builds) {
      for (auto& command : build.commands) command = "python setup.py develop";
    }
    render_and_check(*lock, false);
    render_and_check(*lock, true);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "exception: %s\n", error.what());
    require(false, "an exception other than core::Error escaped rendering");
  }
  return 0;
}
