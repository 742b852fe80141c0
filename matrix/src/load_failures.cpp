// `[[failure]]`: the failure catalogue (matrix/data/failures.toml). Each entry is read into a
// Failure; references to rules are checked once every file is merged (validate_failures).
#include <regex>

#include "bevenv/core/name.hpp"
#include "sections.hpp"
#include "source_ref.hpp"

namespace bevenv::matrix::detail {
namespace {

const std::vector<std::string> kSeverities = {"problem", "warning"};

// A fix's `checks` and `container`: the doctor findings it answers, and where the host runs.
void read_fix_facts(TableReader& reader, EnvCondition& out) {
  if (auto checks = reader.strings("checks")) out.checks = std::move(*checks);
  out.container = reader.boolean("container");
}

// `{ python = "<3.12", packages = { torch = "<1.11" } }`; false when it could not be read. A
// fix's condition may also name `checks` and `container`.
bool read_condition(const toml::table& table, std::string context, const FileContext& file,
                    EnvCondition& out, bool fix = false) {
  TableReader reader(table, context, file);
  if (fix) read_fix_facts(reader, out);
  const bool packages_ok = read_package_conditions(reader, file, out.packages);
  out.python = reader.specifier("python");
  reader.finish();
  return reader.ok() && packages_ok;
}

// A regex the scanner could not compile would fail every `doctor --log`: refuse it here.
void read_patterns(TableReader& reader, Failure& failure) {
  reader.each_table("patterns", [&](TableReader& pattern) {
    LogSignature signature;
    signature.literal = pattern.string("literal").value_or("");
    signature.regex = pattern.string("regex").value_or("");
    pattern.finish();
    if (!pattern.ok()) return;
    if (signature.literal.empty() && signature.regex.empty()) {
      pattern.file_error(pattern.position(),
                         "`" + pattern.context() + "`: needs `literal` or `regex`");
      return;
    }
    if (!signature.regex.empty()) {
      try {
        const std::regex compiled(signature.regex);
      } catch (const std::regex_error& error) {
        pattern.file_error(pattern.position("regex"),
                           "`" + pattern.context() + ".regex`: not a valid ECMAScript regex (" +
                               error.what() + ")");
        return;
      }
    }
    failure.patterns.push_back(std::move(signature));
  });
}

void read_fixes(TableReader& reader, const FileContext& file, Failure& failure) {
  std::size_t entries = 0;
  reader.each_table("fixes", [&](TableReader& fix_reader) {
    ++entries;
    const std::string& context = fix_reader.context();
    FailureFix fix;
    bool when_ok = true;
    if (const toml::table* when = fix_reader.table("when")) {
      when_ok = read_condition(*when, context + ".when", file, fix.when, true);
      if (when_ok && fix.when.empty()) {
        fix_reader.file_error(fix_reader.position("when"),
                              "`" + context +
                                  ".when`: needs `python`, `packages`, `checks` or "
                                  "`container`");
        when_ok = false;
      }
    }
    const auto text = fix_reader.string("text", true);
    // `{sm}` in a fix is a fact of a doctor finding; a stray brace is caught here rather than
    // shown to a user.
    if (text && !placeholders_of(*text)) {
      fix_reader.file_error(fix_reader.position("text"),
                            "`" + context +
                                ".text`: a brace must enclose a fact's name "
                                "(`{sm}`: lower-case letters and `_`)");
    }
    fix_reader.finish();
    if (!fix_reader.ok() || !when_ok || !text) return;
    fix.text = *text;
    failure.fixes.push_back(std::move(fix));
  });
  if (reader.has("fixes") && entries == 0) {
    reader.file_error(reader.position("fixes"), "`failure.fixes`: needs at least one fix");
  }
}

std::optional<FailureCheck> read_check(const toml::table& table, const FileContext& file) {
  TableReader reader(table, "failure.check", file);
  FailureCheck check;
  const auto package = reader.string("package", true);
  const auto ok = reader.string("ok", true);
  const auto problem = reader.string("problem", true);
  const auto severity = reader.choice("severity", kSeverities, "problem");
  reader.finish();
  if (!reader.ok() || !package || !ok || !problem) return std::nullopt;
  check.package = core::normalize_name(*package);
  check.ok = *ok;
  check.problem = *problem;
  check.warning = severity && *severity == "warning";
  return check;
}

}  // namespace

std::optional<Failure> read_failure(TableReader& reader, const FileContext& file) {
  Failure failure;
  failure.origin = file.origin(reader.position());
  const auto id =
      read_id(reader, is_failure_id, "`F` and a number, or lower-case letters, digits, `-`, `.`");
  const auto title = reader.string("title", true);
  const auto cause = reader.string("cause", true);
  failure.symptom = reader.string("symptom").value_or("");
  bool applies_ok = true;
  if (const toml::table* applies = reader.table("applies")) {
    applies_ok = read_condition(*applies, "failure.applies", file, failure.applies);
  }
  reader.each_table("applies_any", [&](const TableReader& any) {
    EnvCondition condition;
    if (!read_condition(any.table(), any.context(), file, condition)) {
      applies_ok = false;
    } else if (condition.empty()) {
      reader.file_error(reader.position("applies_any"),
                        "`" + any.context() + "`: needs `python` or `packages`");
      applies_ok = false;
    } else {
      failure.applies_any.push_back(std::move(condition));
    }
  });
  read_patterns(reader, failure);
  if (!reader.has("fixes")) {
    reader.file_error(reader.position(), "`failure`: missing required key `fixes`");
  }
  read_fixes(reader, file, failure);
  if (const toml::table* check = reader.table("check")) failure.check = read_check(*check, file);
  if (auto rules = reader.strings("prevented_by")) failure.prevented_by = std::move(*rules);
  if (auto checks = reader.strings("detected_by")) failure.detected_by = std::move(*checks);
  auto sources = read_sources(reader, id ? *id : "");
  reader.finish();
  if (!reader.ok() || !applies_ok || !id || !title || !cause || !sources) return std::nullopt;
  failure.id = *id;
  failure.title = *title;
  failure.cause = *cause;
  failure.sources = std::move(*sources);
  return failure;
}

}  // namespace bevenv::matrix::detail
