// Every way the reader refuses a file, with the exact message and position it gives.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "bevenv/lockfiles/writer.hpp"
#include "sample_lock.hpp"

using namespace bevenv;
using namespace bevenv::lockfiles;

namespace {

const std::string& good_text() {
  static const std::string text = to_toml(testing::sample_lock());
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
  SECTION("older") {
    const std::string text = replaced(good_text(), "schema_version = 1", "schema_version = 0");
    check_error(text, where(text, "0\n"), "`schema_version`: expected 1, found 0");
  }
  SECTION("not an integer") {
    const std::string text = replaced(good_text(), "schema_version = 1", "schema_version = \"1\"");
    check_error(text, where(text, "\"1\""),
                "`schema_version`: expected an integer, found a string");
  }
}

TEST_CASE("unknown keys are errors at the key") {
  SECTION("top level") {
    const std::string text = replaced(good_text(), "profile =", "colour = true\nprofile =");
    const ReadError e = error_of(text);
    CHECK(e.to_string() ==
          "bevenv.lock:" + where(text, "colour") + ": unknown key `colour` at the top level");
    CHECK(e.hint.rfind("the keys allowed there are `schema_version`, `generator`", 0) == 0);
  }
  SECTION("in a package") {
    const std::string text =
        replaced(good_text(), "name = \"torch\"\n", "name = \"torch\"\nhomepage = \"x\"\n");
    check_error(text, where(text, "homepage"), "unknown key `homepage` in `package[2]`");
  }
  SECTION("in an inline table") {
    const std::string text =
        replaced(good_text(), "kind = \"pypi\",", "kind = \"pypi\", mirror = \"x\",");
    check_error(text, where(text, "mirror"), "unknown key `mirror` in `package[1].source`");
  }
  SECTION("in an artifact") {
    const std::string text = replaced(good_text(), "size = 816903", "size = 816903, uploaded = 3");
    check_error(text, where(text, "uploaded"),
                "unknown key `uploaded` in `package[1].artifacts[0]`");
  }
}

TEST_CASE("wrong types name the field and what was expected") {
  SECTION("string expected") {
    const std::string text = replaced(good_text(), "version = \"1.10.1+cu113\"", "version = 1.5");
    check_error(text, where(text, "1.5"), "`package[2].version`: expected a string, found a float");
  }
  SECTION("table expected") {
    const std::string text =
        replaced(good_text(),
                 "source = { kind = \"index\", url = \"https://download.pytorch.org/whl/cu113\" }",
                 "source = \"index\"");
    check_error(text, where(text, "\"index\""),
                "`package[2].source`: expected a table, found a string");
  }
  SECTION("array of tables expected") {
    std::string text = good_text();
    text.erase(text.find("\n[[rule]]"));
    text = replaced(text, "profile = \"bevfusion\"", "profile = \"bevfusion\"\nrule = 3");
    check_error(text, where(text, "3\n"), "`rule`: expected an array of tables, found an integer");
  }
  SECTION("array element") {
    const std::string text =
        replaced(good_text(), "gpus = [\"sm_70\", \"sm_86\"]", "gpus = [\"sm_70\", 86]");
    check_error(text, where(text, "86]"), "`target.gpus[1]`: expected a string, found an integer");
  }
  SECTION("size") {
    const std::string text = replaced(good_text(), "size = 816903", "size = -1");
    check_error(text, where(text, "-1 }"),
                "`package[1].artifacts[0].size`: expected a size in bytes, found -1");
  }
  SECTION("kind") {
    const std::string text = replaced(good_text(), "kind = \"pypi\"", "kind = \"git\"");
    check_error(text, where(text, "\"git\""),
                "`package[1].source.kind`: expected one of `index`, `find-links`, `path`, `pypi`, "
                "found `git`");
  }
  SECTION("empty string") {
    const std::string text = replaced(good_text(), "variant = \"cu113\"", "variant = \"\"");
    check_error(text, where(text, "\"\""), "`package[0].variant`: expected a non-empty string");
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
  SECTION("non-canonical version") {
    const std::string text = replaced(good_text(), "\"1.10.1+cu113\"", "\"1.10.01+cu113\"");
    check_error(text, where(text, "\"1.10.01"),
                "`package[2].version`: expected the canonical version `1.10.1+cu113`, found "
                "`1.10.01+cu113`");
  }
  SECTION("not a version") {
    const std::string text = replaced(good_text(), "\"58.0.4\"", "\"banana\"");
    const ReadError e = error_of(text);
    CHECK(e.to_string().rfind(
              "bevenv.lock:" + where(text, "\"banana\"") +
                  ": `package[1].version`: expected a PEP 440 version, found `banana` (",
              0) == 0);
  }
  SECTION("dangling dependency") {
    const std::string text = replaced(good_text(), "[\"setuptools\", \"typing-extensions\"]",
                                      "[\"numpy\", \"setuptools\"]");
    check_error(
        text, where(text, "\"numpy\""),
        "`package[2].dependencies[0]`: names package `numpy`, which is not in the lockfile");
  }
  SECTION("duplicate package, under another spelling") {
    const std::string text = replaced(good_text(), "name = \"setuptools\"", "name = \"MMCV_Full\"");
    check_error(text, where(text, "\"MMCV_Full\""),
                "`package[1].name`: package `MMCV_Full` appears more than once");
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
  SECTION("gpu architecture") {
    const std::string text = replaced(good_text(), "\"sm_70\"", "\"70\"");
    check_error(text, where(text, "\"70\""),
                "`target.gpus[0]`: expected an architecture like `sm_86`, found `70`");
  }
  SECTION("rule id not in [[rule]]") {
    const std::string text =
        replaced(good_text(), "rule_id = \"setuptools-distutils-version\"", "rule_id = \"nope\"");
    check_error(text, where(text, "\"nope\""),
                "`package[1].why[1].rule_id`: names rule `nope`, which is not in `rule`");
  }
  SECTION("required-by without a package") {
    const std::string text =
        replaced(good_text(), ", package = \"torch\" },\n]\n\n[[build", " },\n]\n\n[[build");
    check_error(text, where(text, "{ kind = \"required-by\", text = \"typing-extensions\""),
                "`package[3].why[0]`: a `required-by` reason needs `package`");
  }
  SECTION("marker") {
    const std::string text = replaced(good_text(), "markers = \"python_version < \\\"3.9\\\"\"",
                                      "markers = \"python_version <\"");
    const ReadError e = error_of(text);
    CHECK(e.to_string().rfind("bevenv.lock:" + where(text, "\"python_version <\"") +
                                  ": `package[0].markers`: expected a PEP 508 marker: ",
                              0) == 0);
  }
  SECTION("environment variable name") {
    const std::string text =
        replaced(good_text(), "MMCV_WITH_OPS = \"1\"", "\"MMCV WITH OPS\" = \"1\"");
    check_error(
        text, where(text, "[environment.variables]"),
        "`environment.variables`: expected environment variable names, found `MMCV WITH OPS`");
  }
}

TEST_CASE("read_lockfile turns errors into core::Error with the hint") {
  const auto dir = std::filesystem::temp_directory_path() / "bevenv-lockfiles-read";
  std::filesystem::create_directories(dir);
  const auto path = dir / "bevenv.lock";
  core::write_file_atomic(path, replaced(good_text(), "schema_version = 1", "schema_version = 7"));
  try {
    (void)read_lockfile(path);
    FAIL("expected core::Error");
  } catch (const core::Error& e) {
    CHECK(e.code() == core::ExitCode::bad_input);
    CHECK(std::string(e.what()) ==
          path.string() + ":3:18: lockfile schema 7 is newer than this bevenv supports (1)");
    CHECK(e.hint() == "upgrade bevenv to read it, or re-create it with this bevenv: `bevenv lock`");
  }
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
