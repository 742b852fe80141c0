// `build_image` end to end with buildah: lockfile -> Dockerfile -> image -> a command run inside
// it shows the locked versions. Run through e2e_buildah.sh, which serves the wheels.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "bevenv/app/build_image.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/name.hpp"
#include "bevenv/core/sha256.hpp"
#include "bevenv/core/subprocess.hpp"
#include "bevenv/lockfiles/writer.hpp"
#include "thrown_error.hpp"

namespace fs = std::filesystem;
using namespace bevenv;

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) FAIL("run this test through e2e_buildah.sh (" << name << " is unset)");
  return value;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

std::string file_sha256(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return core::sha256_hex(bytes.str());
}

lockfiles::Package served(const std::string& name, const std::string& version,
                          const std::string& filename) {
  lockfiles::Package p;
  p.name = name;
  p.version = version;
  p.source = {lockfiles::SourceKind::find_links, env("BEVENV_E2E_FIND_LINKS")};
  p.why.push_back({lockfiles::ReasonKind::requested, "profile smoke", std::nullopt, std::nullopt,
                   std::nullopt});
  if (!filename.empty()) {
    lockfiles::Artifact a;
    a.filename = filename;
    a.url = env("BEVENV_E2E_FIND_LINKS") + filename;
    a.sha256 = file_sha256(fs::path(env("BEVENV_E2E_WHEELS")) / filename);
    p.artifacts.push_back(a);
  }
  return p;
}

// The smoke profile's shape: packaging from a wheel, six compiled from its sdist in the image,
// and a project build that writes a file.
lockfiles::Lockfile smoke_lock() {
  lockfiles::Lockfile lock;
  lock.generator = "bevenv 0.1.0";
  lock.matrix_version = "e2e";
  lock.input_hash = "sha256:" + core::sha256_hex("buildah e2e");
  lock.profile = "smoke";
  lock.target.python = "3.11.2";
  lock.target.platform = "linux_x86_64";
  lock.environment.base_image.tag = env("BEVENV_E2E_BASE");
  lock.environment.variables["BEVENV_TRICKY"] = R"(a "b" $HOME \c 'd')";
  lock.packages.push_back(served("packaging", "24.1", "packaging-24.1-py3-none-any.whl"));
  lock.packages.push_back(served("six", "1.16.0", ""));
  lockfiles::BuildStep six;
  six.name = "six";
  six.after = {"six"};
  six.env["SIX_BUILT_BY"] = "bevenv";
  six.commands = {"pip install --no-deps --no-build-isolation ."};
  lock.builds.push_back(six);
  // An sdist whose URL holds `;` and `$IFS`, built from its `source`, never from a RUN line.
  lockfiles::Package tricky = served("tricky", "1.0", "");
  lockfiles::Artifact sdist;
  sdist.filename = "tricky-1.0.tar.gz";
  sdist.url = env("BEVENV_E2E_FIND_LINKS") + "x;true$IFS/tricky-1.0.tar.gz";
  sdist.sha256 = file_sha256(fs::path(env("BEVENV_E2E_WHEELS")) / "x;true$IFS" / sdist.filename);
  tricky.artifacts.push_back(sdist);
  lock.packages.push_back(tricky);
  lockfiles::BuildStep tricky_build;
  tricky_build.name = "tricky-sdist";
  tricky_build.package = "tricky";
  tricky_build.source = sdist;
  lock.builds.push_back(tricky_build);
  lockfiles::BuildStep project;
  project.name = "smoke-project";
  project.after = {"packaging", "six"};
  project.working_dir = "/workspace/smoke";
  project.commands = {"python -c \"import six; open('built.txt', 'w').write(six.__version__)\""};
  lock.builds.push_back(project);
  return lock;
}

struct Scratch {
  fs::path dir;
  Scratch() {
    dir = fs::path(env("BEVENV_E2E_WORK")) / "case";
    fs::remove_all(dir);
    fs::create_directories(dir / "project");
    std::ofstream(dir / "project/setup.cfg") << "[metadata]\nname = smoke\n";
  }
};

app::BuildImageOptions options_for(const Scratch& s, std::vector<std::string>* log) {
  app::BuildImageOptions options;
  options.lockfile = s.dir / "bevenv.lock";
  options.output = s.dir / "image";
  options.context_dir = s.dir / "project";
  options.builder = "buildah";
  options.builder_args = split(env("BEVENV_E2E_STORAGE"));
  options.builder_args.insert(options.builder_args.end(), {"--isolation=chroot", "--pull=never"});
  options.tag = "localhost/bevenv-e2e:smoke";
  options.probe = fs::path(env("BEVENV_E2E_PROBE"));
  options.check_inputs = false;
  options.on_log_line = [log](std::string_view line) {
    log->emplace_back(line);
    std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  };
  return options;
}

// The error the build of `lock` stops with, or nothing when the image builds.
std::optional<core::Error> build_error(const Scratch& s, const lockfiles::Lockfile& lock,
                                       std::vector<std::string>* log) {
  lockfiles::write_lockfile(s.dir / "bevenv.lock", lock);
  return bevenv::testing::thrown_error([&] { app::build_image(options_for(s, log)); });
}

// An error's causes, one a line: what the failed step printed.
std::string causes_of(const core::Error& e) {
  std::string causes;
  for (const auto& c : e.causes()) causes += c + "\n";
  return causes;
}

std::string run_in_image(const std::string& command) {
  std::vector<std::string> argv = {"buildah"};
  for (const auto& a : split(env("BEVENV_E2E_STORAGE"))) argv.push_back(a);
  const auto from = core::run_process(
      [&] {
        auto v = argv;
        v.insert(v.end(), {"from", "--pull=never", "localhost/bevenv-e2e:smoke"});
        return v;
      }(),
      {std::chrono::seconds(300), {}, {}, {}});
  REQUIRE(from.exit_code == 0);
  const std::string container = split(from.out).back();
  auto run = argv;
  run.insert(run.end(), {"run", "--isolation=chroot", container, "--", "/bin/bash", "-c", command});
  const auto result = core::run_process(run, {std::chrono::seconds(300), {}, {}, {}});
  auto rm = argv;
  rm.insert(rm.end(), {"rm", container});
  core::run_process(rm);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return result.out;
}

}  // namespace

TEST_CASE("buildah builds the smoke lock and the image holds the locked versions",
          "[integration][buildah]") {
  Scratch s;
  lockfiles::write_lockfile(s.dir / "bevenv.lock", smoke_lock());
  std::vector<std::string> log;
  const auto start = std::chrono::steady_clock::now();
  const app::CommandOutput out = app::build_image(options_for(s, &log));
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start);
  WARN("first build: " << seconds.count() << " s; context " << out.json["context_digest"]);
  CHECK(out.exit_code == core::ExitCode::ok);
  CHECK(out.json["hashes_required"] == true);

  CHECK(run_in_image("python -c 'import packaging, six; print(packaging.__version__, "
                     "six.__version__)'") == "24.1 1.16.0\n");
  // six came from its sdist, built in the image, not from a wheel.
  CHECK(run_in_image(
            "test -d /opt/bevenv/build/six && pip show six | grep -c '^Version: 1.16.0'") == "1\n");
  CHECK(run_in_image("cat /workspace/smoke/built.txt") == "1.16.0");
  // tricky came from its URL through pip, hash-checked: had a shell seen the URL, `;` would have
  // cut it and the fetch would have failed.
  CHECK(run_in_image("python -c 'import tricky; print(tricky.VALUE)'") == "built from source\n");
  CHECK(run_in_image("pip show tricky | grep -c '^Version: 1.0$'") == "1\n");
  CHECK(run_in_image("printenv BEVENV_TRICKY") == "a \"b\" $HOME \\c 'd'\n");
  CHECK(run_in_image("id -u") == "1000\n");

  std::vector<std::string> argv = {"buildah"};
  for (const auto& a : split(env("BEVENV_E2E_STORAGE"))) argv.push_back(a);
  argv.insert(argv.end(), {"inspect", "--type", "image", "localhost/bevenv-e2e:smoke"});
  const auto inspect = core::run_process(argv);
  REQUIRE(inspect.exit_code == 0);
  const auto labels = nlohmann::json::parse(inspect.out)["OCIv1"]["config"]["Labels"];
  CHECK(labels["dev.bevenv.input-hash"] == smoke_lock().input_hash);
  CHECK(labels["dev.bevenv.profile"] == "smoke");

  SECTION("a change of project code leaves the dependency layers cached") {
    std::ofstream(s.dir / "project/setup.cfg", std::ios::app) << "version = 2\n";
    log.clear();
    const auto again = app::build_image(options_for(s, &log));
    CHECK(again.json["context_digest"] != out.json["context_digest"]);
    bool pip_step_seen = false;
    bool pip_step_cached = false;
    for (std::size_t i = 0; i + 1 < log.size(); ++i) {
      if (log[i].find("pip install --no-deps --require-hashes") != std::string::npos &&
          log[i].starts_with("STEP")) {
        pip_step_seen = true;
        pip_step_cached = log[i + 1].find("Using cache") != std::string::npos;
      }
    }
    CHECK(pip_step_seen);
    CHECK(pip_step_cached);
  }

  SECTION("a known-bad pin fails the build at the verification layer, exit 3") {
    // yapf 0.40.2 dropped FormatCode's `verify` (F3): complete and hash-checked, the environment
    // installs, and bevenv-probe's Python checks stop the build.
    auto lock = smoke_lock();
    std::ifstream manifest(fs::path(env("BEVENV_E2E_WHEELS")) / "yapf-bad.txt");
    for (std::string filename; std::getline(manifest, filename);) {
      const auto dash = filename.find('-');
      const auto next = filename.find('-', dash + 1);
      lock.packages.push_back(served(core::normalize_name(filename.substr(0, dash)),
                                     filename.substr(dash + 1, next - dash - 1), filename));
    }
    REQUIRE(lock.packages.size() > 4);
    const auto error = build_error(s, lock, &log);
    REQUIRE(error.has_value());
    CHECK(error->code() == core::ExitCode::failure);
    INFO(error->what());
    CHECK(std::string(error->what()).find("--fail-on problem") != std::string::npos);
    const std::string causes = causes_of(*error);
    INFO(causes);
    CHECK(causes.find("F3") != std::string::npos);
  }

  SECTION("a wrong hash fails the build at the pip step, exit 3") {
    auto lock = smoke_lock();
    lock.packages[0].artifacts[0].sha256 = core::sha256_hex("not the wheel");
    const auto error = build_error(s, lock, &log);
    REQUIRE(error.has_value());
    CHECK(error->code() == core::ExitCode::failure);
    CHECK(std::string(error->what()).find("pip install --no-deps --require-hashes") !=
          std::string::npos);
    CHECK(causes_of(*error).find("HASHES") != std::string::npos);
  }
}
