// Offline locks leave out the releases a newer release stands for (matrix/src/stand_ins.hpp,
// src/app/src/lock_stand_ins.hpp) because the solver could never choose them: first from a
// matrix loaded without them, and where a lock needs one, from the whole matrix, making no
// record of those it does not need. This checks that claim where it matters: every shipped
// profile, on targets of three GPU generations, solves to the same packages, the same versions
// and the same reasons all three ways; and so does each of a few hundred random small matrices
// under random requests and replaced locks' pins.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "bevenv/app/lock.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "bevenv/matrix/loader.hpp"
#include "fresh_dir.hpp"
#include "lock_extras.hpp"
#include "lock_inputs.hpp"
#include "lock_keep.hpp"
#include "lock_translate.hpp"
#include "stand_ins.hpp"

using namespace bevenv;

namespace {

struct Solved {
  std::size_t records = 0;
  std::vector<std::string> packages;  // `name version <- who requires it`, or the explanation
};

// As an offline lock does (lock_command.cpp, resolve_in), with `later` the replaced lock's pins.
// A matrix loaded without the stood-for releases solves only where the lock needs none of them.
Solved solve(const app::LockInputs& inputs, bool leave_stand_ins_out,
             const std::vector<solver::Preference>& later = {}) {
  app::Translation translation =
      app::translate(inputs, app::requested_extras(inputs), app::RecordScope::installable,
                     leave_stand_ins_out ? &later : nullptr);
  if (translation.needs_whole_matrix) return {0, {"needs the whole matrix"}};
  app::keep_previous_pins(translation, later);
  app::add_extra_records(translation, inputs);
  app::merge_alike_versions(translation);
  Solved out;
  out.records = translation.database.records().size();
  const auto result = app::solve_with_preferences(translation, inputs);
  const auto* solution = std::get_if<solver::Solution>(&result);
  if (solution == nullptr) {
    out.packages.push_back("unsolvable");
    return out;
  }
  for (const auto& chosen : solution->packages) {
    std::string line = chosen.name + " " + chosen.version.to_string() + " <-";
    for (const auto& link : chosen.required_by)
      line += " " + std::string(link.dependency.origin.view());
    out.packages.push_back(std::move(line));
  }
  return out;
}

}  // namespace

TEST_CASE("leaving stood-for releases out changes no profile's solution", "[stand-ins]") {
  const auto matrix = matrix::load_embedded();
  REQUIRE(matrix.has_value());
  std::size_t fewer = 0;
  for (const auto& [name, profile] : matrix->profiles) {
    for (const auto& [gpu, driver] :
         {std::pair{"sm_86", "12.8"}, std::pair{"sm_70", "11.4"}, std::pair{"sm_120", "12.8"}}) {
      INFO(name << " on " << gpu << ", CUDA driver " << driver);
      app::LockOptions options;
      options.profile = name;
      options.target.gpus = {gpu};
      options.target.cuda_driver = driver;
      options.target.detect = false;
      const app::LockInputs inputs = app::gather_lock_inputs(options);
      const Solved all = solve(inputs, false);
      const Solved merged = solve(inputs, true);
      CHECK(merged.packages == all.packages);
      CHECK(merged.records <= all.records);
      if (merged.records < all.records) ++fewer;
      const app::LockInputs slim =
          app::gather_lock_inputs(options, app::MatrixReleases::without_stood_for);
      REQUIRE(slim.without_stood_for);
      const Solved loaded_without = solve(slim, true);
      CHECK(loaded_without.packages == all.packages);
      CHECK(loaded_without.records == merged.records);
      // Replaced by a lock of its own pins, which name no stood-for release, it stays slim.
      std::vector<solver::Preference> own_pins;
      for (const std::string& line : all.packages) {
        const auto space = line.find(' ');
        own_pins.push_back(
            {line.substr(0, space),
             core::SpecifierSet::parse(
                 "===" + line.substr(space + 1, line.find(' ', space + 1) - space - 1))
                 .value()});
      }
      CHECK(solve(slim, true, own_pins).packages == all.packages);
    }
  }
  // Most cases have releases stood for: the check above is not vacuous.
  CHECK(fewer * 2 > matrix->profiles.size() * 3);
}

TEST_CASE("a lock that asks a release a newer one stands for reads the whole matrix",
          "[stand-ins]") {
  const auto matrix = matrix::load_embedded();
  REQUIRE(matrix.has_value());
  const auto dir = testing::fresh_dir("stand-ins");
  app::LockOptions options;
  options.profile = "smoke";
  options.target.detect = false;
  options.output = dir / "bevenv.lock";
  REQUIRE(app::lock(options).exit_code == core::ExitCode::ok);
  // A pinned release whose next older one it stands for: asking that one, which the matrix an
  // offline lock loads first leaves out, must pin it all the same.
  std::string name;
  std::string older;
  for (const auto& pinned : lockfiles::read_lockfile(*options.output).packages) {
    const matrix::Package* package = matrix->find_package(pinned.name);
    if (package == nullptr) continue;
    for (std::size_t i = 1; i < package->versions.size() && older.empty(); ++i) {
      if (package->versions[i].version.to_string() == pinned.version &&
          package->versions[i - 1].newer_stands_for) {
        name = package->name;
        older = package->versions[i - 1].version.to_string();
      }
    }
  }
  REQUIRE_FALSE(older.empty());
  INFO(name << "==" << older);
  options.requirements = {name + "==" + older};
  REQUIRE(app::lock(options).exit_code == core::ExitCode::ok);
  const auto relocked = lockfiles::read_lockfile(*options.output);
  const lockfiles::Package* pin = relocked.find_package(name);
  REQUIRE(pin != nullptr);
  CHECK(pin->version == older);
}

namespace {

// A random matrix of the generated layer's form: packages `p0`..`p4`, each with releases whose
// requirements, Python ranges and files are drawn from small pools, so that runs of alike
// releases form and specifiers split some of them.
class RandomMatrix {
 public:
  explicit RandomMatrix(unsigned seed) : random_(seed) {}

  std::string text() {
    std::string out;
    for (int p = 0; p < kPackages; ++p) {
      const int releases = draw(2, 7);
      for (int r = 0; r < releases; ++r) out += release(p, version(r));
    }
    return out;
  }
  std::string requirement(int not_of) {
    int p = draw(0, kPackages - 1);
    if (p == not_of) p = (p + 1) % kPackages;
    static const char* const kOps[] = {">=", "<", "==", "!=", "<=", ">"};
    std::string out = "p" + std::to_string(p);
    if (draw(0, 3) > 0) out += kOps[draw(0, 5)] + version(draw(0, 6));
    return out;
  }
  std::string version(int r) { return r == 3 && prerelease_ ? "1.3rc1" : "1." + std::to_string(r); }
  int draw(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }

 private:
  static constexpr int kPackages = 5;
  std::string release(int p, const std::string& v) {
    const std::string name = "p" + std::to_string(p);
    std::string requires_ = "[";
    // Neighbouring releases often share their requirements: the runs stand-ins come from.
    if (draw(0, 2) == 0 || shared_.empty()) {
      shared_.clear();
      for (int n = draw(0, 2); n > 0; --n) {
        std::string r = requirement(p);
        if (draw(0, 5) == 0) r += "; python_version < '3.9'";
        shared_.push_back(r);
      }
    }
    for (const std::string& r : shared_) requires_ += "\"" + r + "\", ";
    requires_ += "]";
    const std::string tags = draw(0, 6) == 0 ? "cp39-cp39-manylinux1_x86_64" : "py3-none-any";
    const std::string python = draw(0, 6) == 0 ? ">=3.11" : ">=3.7";
    return "[[package]]\nname = \"" + name + "\"\nversion = \"" + v + "\"\npython = \"" + python +
           "\"\nrequires = " + requires_ +
           "\ndeps = \"complete\"\n"
           "generated = { index = \"https://pypi.org/simple\", read = \"2026-12-01\" }\n"
           "artifacts = [\n  { filename = \"" +
           name + "-" + v + "-" + tags + ".whl\", url = \"https://f/" + name + "-" + v +
           ".whl\", sha256 = \"" + std::string(64, 'a') + "\", size = 10 },\n]\n\n";
  }

  std::mt19937 random_;
  bool prerelease_ = true;
  std::vector<std::string> shared_;
};

}  // namespace

TEST_CASE("leaving stood-for releases out changes no solution of random matrices and requests",
          "[stand-ins]") {
  std::size_t left_out = 0;
  std::size_t needed_whole = 0;
  for (unsigned seed = 1; seed <= 300; ++seed) {
    RandomMatrix random(seed);
    const std::string text = random.text();
    auto matrix = matrix::load_sources(
        {matrix::SourceFile{"gen/pypi.toml", text, 0, matrix::Layer::embedded}});
    if (!matrix) FAIL(text + "\n" + matrix.error().front().message);
    app::LockInputs inputs;
    inputs.matrix = std::move(*matrix);
    inputs.target.python = core::Version::parse("3.10.12").value();
    inputs.target.python_minor = "3.10";
    inputs.target.glibc = core::Version::parse("2.31").value();
    for (int n = random.draw(1, 3); n > 0; --n) {
      inputs.requirements.push_back(
          {core::Requirement::parse(random.requirement(-1)).value(), "--require"});
    }
    // A replaced lock's pins: exact releases, which tell them from the rest of their run.
    std::vector<solver::Preference> later;
    for (int n = random.draw(0, 3); n > 0; --n) {
      later.push_back(
          {"p" + std::to_string(random.draw(0, 4)),
           core::SpecifierSet::parse("===" + random.version(random.draw(0, 6))).value()});
    }
    INFO("seed " << seed << "\n" << text);
    const Solved all = solve(inputs, false, later);
    const Solved merged = solve(inputs, true, later);
    CHECK(merged.packages == all.packages);
    left_out += all.records - merged.records;
    // Loaded without the stood-for releases: the same, or the lock says it needs them.
    app::LockInputs slim = inputs;
    matrix::detail::leave_out_stood_for(slim.matrix);
    slim.without_stood_for = true;
    const Solved loaded_without = solve(slim, true, later);
    if (loaded_without.records == 0) {
      ++needed_whole;
    } else {
      CHECK(loaded_without.packages == all.packages);
    }
  }
  CHECK(left_out > 300);    // stand-ins were in play, not a vacuous comparison
  CHECK(needed_whole > 0);  // and so were the releases a lock keeps
  CHECK(needed_whole < 300);
}
