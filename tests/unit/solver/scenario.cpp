#include "scenario.hpp"

#include <sstream>
#include <stdexcept>

namespace bevenv::solver::testing {
namespace {

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return {};
  const auto end = s.find_last_not_of(" \t");
  return s.substr(begin, end - begin + 1);
}

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  Scenario run() {
    std::istringstream in(text_);
    std::string line;
    std::optional<PackageRecord> package;
    auto flush = [&] {
      if (package) scenario_.database.add(std::move(*package));
      package.reset();
    };
    while (std::getline(in, line)) {
      ++line_number_;
      const bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
      line = trim(line);
      if (line.empty() || line[0] == '#') continue;
      std::string origin;
      if (auto bar = line.find(" | "); bar != std::string::npos) {
        origin = trim(line.substr(bar + 3));
        line = trim(line.substr(0, bar));
      }
      std::istringstream words(line);
      std::string keyword;
      words >> keyword;
      if (indented) {
        if (!package) fail("a dependency line outside a package");
        package_line(*package, keyword, words, origin);
        continue;
      }
      flush();
      if (keyword == "package") {
        package = package_header(words);
      } else if (keyword == "want") {
        scenario_.request.requirements.push_back(dependency(words, origin));
      } else if (keyword == "conflict") {
        conflict(words, origin);
      } else if (keyword == "forbid") {
        scenario_.request.conflicts.push_back({dependency(words, {}), std::nullopt, origin});
      } else if (keyword == "prefer" || keyword == "disfavor") {
        const Dependency d = dependency(words, {});
        auto& list =
            keyword == "prefer" ? scenario_.request.preferred : scenario_.request.disfavored;
        list.push_back({d.name, d.specifier});
      } else if (keyword == "allow-prereleases") {
        std::string name;
        if (words >> name) {
          scenario_.request.allow_prereleases_for.insert(name);
        } else {
          scenario_.request.allow_prereleases = true;
        }
      } else {
        fail("unknown keyword `" + keyword + "`");
      }
    }
    flush();
    return std::move(scenario_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("scenario line " + std::to_string(line_number_) + ": " + what);
  }

  core::Version version(const std::string& text) const {
    auto parsed = core::Version::parse(text);
    if (!parsed) fail("bad version `" + text + "`: " + parsed.error().to_string());
    return parsed.value();
  }

  Dependency dependency(std::istringstream& words, std::string origin) const {
    std::string name;
    std::string spec;
    if (!(words >> name)) fail("expected a package name");
    words >> spec;
    auto parsed = core::SpecifierSet::parse(spec);
    if (!parsed) fail("bad specifier `" + spec + "`: " + parsed.error().to_string());
    return {name, parsed.value(), std::move(origin)};
  }

  PackageRecord package_header(std::istringstream& words) const {
    PackageRecord record;
    std::string version_text;
    if (!(words >> record.name >> version_text)) fail("expected `package NAME VERSION`");
    record.version = version(version_text);
    std::string flag;
    while (words >> flag) {
      if (flag == "system") {
        record.kind = RecordKind::system;
      } else if (flag == "preferred") {
        record.preferred = true;
      } else if (flag == "disfavored") {
        record.disfavored = true;
      } else {
        fail("unknown package flag `" + flag + "`");
      }
    }
    return record;
  }

  void package_line(PackageRecord& record, const std::string& keyword, std::istringstream& words,
                    const std::string& origin) const {
    if (keyword == "requires") {
      record.requirements.push_back(dependency(words, origin));
    } else if (keyword == "conflicts") {
      record.conflicts.push_back(dependency(words, origin));
    } else if (keyword == "provides") {
      std::string name;
      std::string version_text;
      if (!(words >> name)) fail("expected `provides NAME [VERSION]`");
      Provide provide{name, std::nullopt};
      if (words >> version_text) provide.version = version(version_text);
      record.provides.push_back(std::move(provide));
    } else {
      fail("unknown package line `" + keyword + "`");
    }
  }

  void conflict(std::istringstream& words, const std::string& origin) {
    ImposedConflict c;
    c.subject = dependency(words, {});
    std::string with;
    if (!(words >> with) || with != "with") fail("expected `conflict A SPEC with B SPEC`");
    c.other = dependency(words, {});
    c.origin = origin;
    scenario_.request.conflicts.push_back(std::move(c));
  }

  const std::string& text_;
  Scenario scenario_;
  int line_number_ = 0;
};

}  // namespace

Scenario parse_scenario(const std::string& text) { return Parser(text).run(); }

}  // namespace bevenv::solver::testing
