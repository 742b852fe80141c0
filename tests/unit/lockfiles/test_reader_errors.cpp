// Every way the reader refuses a file, with the exact message and position it gives.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "bevenv/lockfiles/writer.hpp"
#include "sample_lock.hpp"
#include "thrown_error.hpp"

using namespace bevenv;
using namespace bevenv::lockfiles;

namespace {

const std::string& good_text() {
  static const std::string text = to_toml(lockfiles::testing::sample_lock());
  return text;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// "line:column" where `needle` starts in `text` (after `skip` bytes), counted independently of
// the reader.
std::string where(const std::string& text, const std::string& needle, std::size_t skip = 0) {
  const std::size_t at = text.find(needle, skip);
  REQUIRE(at != std::string::npos);
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return std::to_string(line) + ":" + std::to_string(at - line_start + 1);
}

ReadError error_of(const std::string& text) {
  auto result = parse_lockfile(text, "bevenv.lock");
  REQUIRE_FALSE(result.has_value());
  return result.error();
}

void check_error(const std::string& text, const std::string& position, const std::string& message) {
  const ReadError e = error_of(text);
  CHECK(e.to_string() == "bevenv.lock:" + position + ": " + message);
  CHECK_FALSE(e.hint.empty());
}

// The sample lock with `from` replaced by `to` is refused where `at` starts in the edited text,
// with `message`.
void check_edit_refused(const std::string& from, const std::string& to, const std::string& at,
                        const std::string& message) {
  const std::string text = replaced(good_text(), from, to);
  check_error(text, where(text, at), message);
}

// An edit of the sample lock that the reader must refuse: the section it is checked in, the text
// replaced and its replacement, where in the edited text the error points and what it says.
struct RefusedEdit {
  std::string section;
  std::string from;
  std::string to;
  std::string at;
  std::string message;
};

void check_refused_edits(const std::vector<RefusedEdit>& edits) {
  for (const auto& edit : edits) {
    SECTION(edit.section) { check_edit_refused(edit.from, edit.to, edit.at, edit.message); }
  }
}

}  // namespace

TEST_CASE("the canonical sample reads without error") {
  REQUIRE(parse_lockfile(good_text(), "bevenv.lock").has_value());
}

TEST_CASE("TOML syntax errors name the position") {
  const std::string text = "schema_version = 1\ngenerator = \n";
  const ReadError e = error_of(text);
  CHECK(e.file == "bevenv.lock");
  CHECK(e.line == 2);
  CHECK(e.message.rfind("not valid TOML: ", 0) == 0);
}

TEST_CASE("schema version errors") {
  SECTION("missing") {
    const ReadError e = error_of("generator = \"bevenv 0.1.0\"\n");
    CHECK(e.to_string() == "bevenv.lock:1:1: missing `schema_version` (expected an integer)");
    CHECK(e.hint == "is this a bevenv lockfile? Create one with `bevenv lock`");
  }
  SECTION("newer, even with keys this bevenv does not know") {
    const std::string text =
        replaced(good_text(), "schema_version = 1", "schema_version = 2\nnew_key = 1");
    const ReadError e = error_of(text);
    CHECK(e.to_string() == "bevenv.lock:" + where(text, "2\nnew") +
                               ": lockfile schema 2 is newer than this bevenv supports (1)");
    CHECK(e.hint == "upgrade bevenv to read it, or re-create it with this bevenv: `bevenv lock`");
  }
  check_refused_edits({
      {"older", "schema_version = 1", "schema_version = 0", "0\n",
       "`schema_version`: expected 1, found 0"},
      {"not an integer", "schema_version = 1", "schema_version = \"1\"", "\"1\"",
       "`schema_version`: expected an integer, found a string"},
  });
}

TEST_CASE("unknown keys are errors at the key") {
  SECTION("top level") {
    const std::string text = replaced(good_text(), "profile =", "colour = true\nprofile =");
    const ReadError e = error_of(text);
    CHECK(e.to_string() ==
          "bevenv.lock:" + where(text, "colour") + ": unknown key `colour` at the top level");
    CHECK(e.hint.rfind("the keys allowed there are `schema_version`, `generator`", 0) == 0);
  }
  check_refused_edits({
      {"in a package", "name = \"torch\"\n", "name = \"torch\"\nhomepage = \"x\"\n", "homepage",
       "unknown key `homepage` in `package[2]`"},
      {"in an inline table", "kind = \"pypi\",", "kind = \"pypi\", mirror = \"x\",", "mirror",
       "unknown key `mirror` in `package[1].source`"},
      {"in an artifact", "size = 816903", "size = 816903, uploaded = 3", "uploaded",
       "unknown key `uploaded` in `package[1].artifacts[0]`"},
  });
}

TEST_CASE("wrong types name the field and what was expected") {
  check_refused_edits({
      {"string expected", "version = \"1.10.1+cu113\"", "version = 1.5", "1.5",
       "`package[2].version`: expected a string, found a float"},
      {"table expected",
       "source = { kind = \"index\", url = \"https://download.pytorch.org/whl/cu113\" }",
       "source = \"index\"", "\"index\"", "`package[2].source`: expected a table, found a string"},
      {"array element", "gpus = [\"sm_70\", \"sm_86\"]", "gpus = [\"sm_70\", 86]", "86]",
       "`target.gpus[1]`: expected a string, found an integer"},
      {"size", "size = 816903", "size = -1", "-1 }",
       "`package[1].artifacts[0].size`: expected a size in bytes, found -1"},
      {"kind", "kind = \"pypi\"", "kind = \"git\"", "\"git\"",
       "`package[1].source.kind`: expected one of `index`, `find-links`, `path`, `pypi`, "
       "found `git`"},
      {"empty string", "variant = \"cu113\"", "variant = \"\"", "\"\"",
       "`package[0].variant`: expected a non-empty string"},
  });
  SECTION("array of tables expected") {
    std::string text = good_text();
    text.erase(text.find("\n[[rule]]"));
    text = replaced(text, "profile = \"bevfusion\"", "profile = \"bevfusion\"\nrule = 3");
    check_error(text, where(text, "3\n"), "`rule`: expected an array of tables, found an integer");
  }
}

TEST_CASE("missing fields point at the table that lacks them") {
  SECTION("package version") {
    const std::string text = replaced(good_text(), "version = \"58.0.4\"\n", "");
    check_error(text, where(text, "[[package]]", text.find("mmcv") + 1),
                "`package[1].version` is missing (expected a string)");
  }
  SECTION("target table") {
    std::string text = good_text();
    const std::size_t from = text.find("[target]");
    text.erase(from, text.find("[environment]") - from);
    check_error(text, "1:1", "`target` is missing (expected a table)");
  }
  SECTION("build commands") {
    std::string text = good_text();
    const std::size_t from = text.find("commands = [");
    text.erase(from, text.find("]\n", from) + 2 - from);
    check_error(text, where(text, "[[build]]"),
                "`build[0].commands` is missing (expected an array of strings)");
  }
}

TEST_CASE("broken facts are reported at the field") {
  check_refused_edits({
      {"non-canonical version", "\"1.10.1+cu113\"", "\"1.10.01+cu113\"", "\"1.10.01",
       "`package[2].version`: expected the canonical version `1.10.1+cu113`, found "
       "`1.10.01+cu113`"},
      {"dangling dependency", "[\"setuptools\", \"typing-extensions\"]",
       "[\"numpy\", \"setuptools\"]", "\"numpy\"",
       "`package[2].dependencies[0]`: names package `numpy`, which is not in the lockfile"},
      {"duplicate package, under another spelling", "name = \"setuptools\"", "name = \"MMCV_Full\"",
       "\"MMCV_Full\"", "`package[1].name`: package `MMCV_Full` appears more than once"},
      {"gpu architecture", "\"sm_70\"", "\"70\"", "\"70\"",
       "`target.gpus[0]`: expected an architecture like `sm_86`, found `70`"},
      {"rule id not in [[rule]]", "rule_id = \"setuptools-distutils-version\"",
       "rule_id = \"nope\"", "\"nope\"",
       "`package[1].why[1].rule_id`: names rule `nope`, which is not in `rule`"},
      {"required-by without a package", ", package = \"torch\" },\n]\n\n[[build",
       " },\n]\n\n[[build", "{ kind = \"required-by\", text = \"typing-extensions\"",
       "`package[3].why[0]`: a `required-by` reason needs `package`"},
      {"environment variable name", "MMCV_WITH_OPS = \"1\"", "\"MMCV WITH OPS\" = \"1\"",
       "[environment.variables]",
       "`environment.variables`: expected environment variable names, found `MMCV WITH OPS`"},
  });
  SECTION("not a version") {
    const std::string text = replaced(good_text(), "\"58.0.4\"", "\"banana\"");
    const ReadError e = error_of(text);
    CHECK(e.to_string().rfind(
              "bevenv.lock:" + where(text, "\"banana\"") +
                  ": `package[1].version`: expected a PEP 440 version, found `banana` (",
              0) == 0);
  }
  SECTION("artifact hash") {
    const std::string text = replaced(good_text(), "sha256 = \"9ee3", "sha256 = \"9EE3");
    check_error(text, where(text, "\"9EE3"),
                "`package[1].artifacts[0].sha256`: expected 64 lower-case hex digits, found `" +
                    text.substr(text.find("9EE3"), 64) + "`");
  }
  SECTION("artifact URL with shell syntax RFC 3986 forbids") {
    const std::string text =
        replaced(good_text(), "https://files.pythonhosted.org/packages/setuptools-58.0.4",
                 "https://files.pythonhosted.org/`touch x`/setuptools-58.0.4");
    CHECK(error_of(text).to_string().find(
              "`package[1].artifacts[0].url`: expected an http(s) URL of RFC 3986 characters") !=
          std::string::npos);
  }
  SECTION("artifact file name that is a path") {
    const std::string text = replaced(good_text(), "filename = \"setuptools-58.0.4",
                                      "filename = \"../../setuptools-58.0.4");
    CHECK(error_of(text).to_string().find("`package[1].artifacts[0].filename`: expected a wheel "
                                          "or sdist file name") != std::string::npos);
  }
  SECTION("input hash") {
    const std::string text = replaced(good_text(), "input_hash = \"sha256:", "input_hash = \"md5:");
    const ReadError e = error_of(text);
    CHECK(e.to_string().rfind("bevenv.lock:6:14: `input_hash`: expected `sha256:` and 64 "
                              "lower-case hex digits, found `md5:",
                              0) == 0);
  }
  SECTION("marker") {
    const std::string text = replaced(good_text(), "markers = \"python_version < \\\"3.9\\\"\"",
                                      "markers = \"python_version <\"");
    const ReadError e = error_of(text);
    CHECK(e.to_string().rfind("bevenv.lock:" + where(text, "\"python_version <\"") +
                                  ": `package[0].markers`: expected a PEP 508 marker: ",
                              0) == 0);
  }
}

TEST_CASE("read_lockfile turns errors into core::Error with the hint") {
  const auto dir = std::filesystem::temp_directory_path() / "bevenv-lockfiles-read";
  std::filesystem::create_directories(dir);
  const auto path = dir / "bevenv.lock";
  core::write_file_atomic(path, replaced(good_text(), "schema_version = 1", "schema_version = 7"));
  const auto e = bevenv::testing::thrown_error([&] { (void)read_lockfile(path); });
  REQUIRE(e.has_value());
  CHECK(e->code() == core::ExitCode::bad_input);
  CHECK(std::string(e->what()) ==
        path.string() + ":3:18: lockfile schema 7 is newer than this bevenv supports (1)");
  CHECK(e->hint() == "upgrade bevenv to read it, or re-create it with this bevenv: `bevenv lock`");
  CHECK_THROWS_AS(read_lockfile(dir / "absent.lock"), core::Error);
}

TEST_CASE("a lockfile nesting deeper than the limit is refused before toml++ parses it") {
  std::string header = "[a";
  for (int i = 0; i < 31000; ++i) header += ".a";
  const ReadError deep_header = error_of(good_text() + header + "]\n");
  CHECK(deep_header.line ==
        static_cast<std::size_t>(std::count(good_text().begin(), good_text().end(), '\n')) + 1);
  CHECK_THAT(deep_header.message, Catch::Contains("at most 64"));
  const ReadError deep_array = error_of("schema_version = 1\nx = " + std::string(100000, '['));
  CHECK(deep_array.line == 2);
  CHECK(deep_array.column == 5 + 63);  // the 64th `[`, one level below the key `x`
  CHECK_FALSE(deep_array.hint.empty());
}

TEST_CASE("read_lockfile refuses a FIFO and a directory as bad input") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("bevenv-lock-fifo-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  REQUIRE(::mkfifo((dir / "bevenv.lock").c_str(), 0600) == 0);
  for (const auto& path : {dir / "bevenv.lock", dir}) {
    try {
      (void)read_lockfile(path);
      FAIL("no error");
    } catch (const core::Error& error) {
      CHECK(error.code() == core::ExitCode::bad_input);
      CHECK_THAT(error.what(), Catch::Contains("`" + path.string() + "`"));
    }
  }
  std::filesystem::remove_all(dir);
}
