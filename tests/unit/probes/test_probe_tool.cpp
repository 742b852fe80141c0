// Runs the real bevenv-probe binary on this (GPU-less) machine.
#include <dlfcn.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <vector>

#include "bevenv/probes/findings.hpp"
#include "probe_runner.hpp"

using bevenv::probes::Severity;
using namespace bevenv::probes::test;

namespace {

bool driver_present() {
  void* handle = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  return handle != nullptr;
}

const bevenv::probes::Finding* find_check(const std::vector<bevenv::probes::Finding>& findings,
                                          const std::string& check) {
  for (const auto& finding : findings) {
    if (finding.check == check) return &finding;
  }
  return nullptr;
}

std::string temp_dir() {
  std::string pattern = "/tmp/bevenv-probe-test-XXXXXX";
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

// e_machine and e_flags of an ELF file: for a CUBIN they name the SM it was built for.
std::pair<unsigned, unsigned> elf_arch(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::string header(64, '\0');
  file.read(header.data(), 64);
  REQUIRE(file.gcount() == 64);
  REQUIRE(header.substr(0, 4) ==
          "\x7f"
          "ELF");
  REQUIRE(header[4] == 2);  // 64-bit
  auto u16 = [&](std::size_t at) {
    return static_cast<unsigned>(static_cast<unsigned char>(header[at])) |
           static_cast<unsigned>(static_cast<unsigned char>(header[at + 1])) << 8U;
  };
  const unsigned flags = u16(48) | u16(50) << 16U;
  return {u16(18), flags};
}

std::string nvcc_path() {
  for (const char* candidate : {"/usr/local/cuda/bin/nvcc"}) {
    if (file_exists(candidate)) return candidate;
  }
  const auto found = run_command("command -v nvcc");
  return found.exit_code == 0 ? found.out.substr(0, found.out.find('\n')) : "";
}

}  // namespace

TEST_CASE("without a driver every GPU probe says missing, and the report still comes out",
          "[probes][tool]") {
  if (driver_present()) {
    WARN("libcuda.so.1 is present here; the GPU tests in tests/gpu cover this machine");
    return;
  }
  int exit_code = -1;
  const auto report = run_probe("--only host,driver,nvml,kernel,nccl --timeout 20", &exit_code);
  CHECK(exit_code == 1);
  CHECK(report["status"] == "incomplete");
  CHECK(report["host"]["status"] == "ok");
  CHECK(report["driver"]["status"] == "missing");
  CHECK(report["driver"]["library"] == "libcuda.so.1");
  CHECK(report["driver"]["tried"].size() >= 4);
  CHECK(report["nvml"]["status"] == "missing");
  CHECK(report["nvml"]["library"] == "libnvidia-ml.so.1");
  for (const char* probe : {"kernel", "nccl"}) {
    const std::string status = report[probe]["status"];
    INFO(probe << ": " << report[probe].dump());
    CHECK((status == "missing" || status == "unsupported"));
  }
  const auto findings = bevenv::probes::evaluate(report);
  const auto* driver = find_check(findings, "driver");
  REQUIRE(driver != nullptr);
  CHECK(driver->severity == Severity::problem);
  CHECK(driver->field_failure == "nvidia-driver-missing");  // whose fix names `--gpus all`
  // The driver finding already explains it; the kernel and NCCL ones must not repeat it.
  CHECK(find_check(findings, "kernel") == nullptr);
  CHECK(find_check(findings, "nccl") == nullptr);
}

TEST_CASE("the host probe reports /dev/shm as statvfs sees it", "[probes][tool]") {
  const auto report = run_probe("--only host");
  const auto df = run_command("df -B1 --output=size /dev/shm | tail -1");
  REQUIRE(df.exit_code == 0);
  CHECK(report["host"]["shm"]["total_bytes"].get<unsigned long long>() == std::stoull(df.out));
}

TEST_CASE("NVRTC compiles the probe kernel to a CUBIN for the requested sm", "[probes][tool]") {
  const std::string dir = temp_dir();
  const std::string nvcc = nvcc_path();
  std::map<std::string, std::pair<unsigned, unsigned>> ours;
  for (const std::string arch : {"sm_80", "sm_90"}) {
    const std::string cubin = dir + "/" + arch + ".cubin";
    int exit_code = -1;
    const auto report = run_probe("--arch " + arch + " --compile-only " + cubin, &exit_code);
    if (report["kernel"]["status"] == "missing") {
      WARN("no NVRTC on this machine: " << report["kernel"].dump());
      return;
    }
    REQUIRE(exit_code == 0);
    const auto& compiled = report["kernel"]["compile_only"];
    CHECK(compiled["arch"] == arch);
    CHECK(compiled["kind"] == "cubin");
    REQUIRE(file_exists(cubin));
    ours[arch] = elf_arch(cubin);
    CHECK(ours[arch].first == 190);  // EM_CUDA
    if (nvcc.empty()) {
      WARN("no nvcc to compare the CUBIN's ELF header with");
      continue;
    }
    // Oracle: nvcc's own CUBIN for the same arch carries the same machine and SM flags.
    const std::string source = dir + "/oracle.cu";
    std::ofstream(source)
        << "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n";
    const std::string reference = dir + "/oracle_" + arch + ".cubin";
    const auto built = run_command(shell_quote(nvcc) + " -cubin -arch=" + arch + " -o " +
                                   reference + " " + source + " 2>&1");
    INFO(built.out);
    REQUIRE(built.exit_code == 0);
    CHECK(elf_arch(reference) == ours[arch]);
  }
  CHECK(ours["sm_80"].second != ours["sm_90"].second);
}

TEST_CASE("a hung probe is killed at the timeout and a crashing one is contained",
          "[probes][tool][timeout]") {
  // Without the test hooks variable the self-test probes do not exist.
  const auto plain = run_command("env -u BEVENV_PROBE_TEST_HOOKS " + shell_quote(BEVENV_PROBE_EXE) +
                                 " --only selftest-hang 2>/dev/null");
  CHECK(plain.exit_code == 2);

  const auto start = std::chrono::steady_clock::now();
  const auto hooked = run_command("BEVENV_PROBE_TEST_HOOKS=1 " + shell_quote(BEVENV_PROBE_EXE) +
                                  " --only selftest-hang,selftest-crash --timeout 1");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto parsed = nlohmann::json::parse(hooked.out);
  CHECK(hooked.exit_code == 1);
  CHECK(parsed["selftest-hang"]["status"] == "timeout");
  CHECK(parsed["selftest-hang"]["duration_ms"].get<double>() < 3000);
  CHECK(parsed["selftest-crash"]["status"] == "crashed");
  CHECK(parsed["selftest-crash"]["signal_name"] == "SIGSEGV");
  CHECK(seconds < 10);
}

TEST_CASE("bad command lines exit 2 with a message, --version and --help exit 0",
          "[probes][tool]") {
  const std::string exe = shell_quote(BEVENV_PROBE_EXE);
  for (const char* args :
       {"--arch 90", "--arch sm_90 --compile-only", "--compile-only /tmp/x", "--only driver,gpu",
        "--timeout soon", "--cuda-version-override 11", "--frobnicate", "--fail-on warning",
        "--fail-on problem --skip-check F9", "--skip-check F5"}) {
    INFO(args);
    const auto result = run_command(exe + " " + args + " 2>&1");
    CHECK(result.exit_code == 2);
    CHECK(result.out.rfind("error: ", 0) == 0);
  }
  const auto version = run_command(exe + " --version");
  CHECK(version.exit_code == 0);
  CHECK(version.out.rfind("bevenv-probe ", 0) == 0);
  const auto help = run_command(exe + " --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--compile-only") != std::string::npos);
}

TEST_CASE("the override is recorded in the report", "[probes][tool]") {
  const auto report = run_probe("--only host --cuda-version-override 11.0");
  CHECK(report["options"]["cuda_version_override"] == "11.0");
}

TEST_CASE("the Python probe inspects the interpreter it is given", "[probes][tool][python]") {
  const auto which = run_command("command -v python3");
  REQUIRE(which.exit_code == 0);
  const std::string python = which.out.substr(0, which.out.find('\n'));
  const auto report = run_probe("--only python --python " + shell_quote(python));
  const auto& section = report["python"];
  INFO(section.dump(2));
  REQUIRE(section["status"] == "ok");
  // Oracle: the interpreter's own answers, asked directly.
  const auto version =
      run_command(shell_quote(python) + " -c 'import platform; print(platform.python_version())'");
  CHECK(section["interpreter"]["version"] == version.out.substr(0, version.out.find('\n')));
  const auto pip = run_command(shell_quote(python) +
                               " -c 'import importlib.metadata as m; print(m.version(\"pip\"))'");
  bool found_pip = false;
  for (const auto& dist : section["distributions"]) {
    if (dist["name"] == "pip") {
      found_pip = true;
      CHECK(dist["version"] == pip.out.substr(0, pip.out.find('\n')));
    }
  }
  CHECK(found_pip);
  for (const auto& check : section["checks"]) {
    const std::string status = check["status"];
    CHECK((status == "ok" || status == "problem" || status == "skipped"));
    CHECK(check.contains("evidence"));
  }
}

TEST_CASE("a Python that hangs is killed; a missing one is a finding", "[probes][tool][python]") {
  const std::string dir = temp_dir();
  const std::string fake = dir + "/python";
  std::ofstream(fake) << "#!/bin/sh\nsleep 60 &\nsleep 60\n";
  REQUIRE(::chmod(fake.c_str(), 0755) == 0);
  const auto start = std::chrono::steady_clock::now();
  const auto hung = run_probe("--only python --timeout 1 --python " + shell_quote(fake));
  CHECK(hung["python"]["status"] == "timeout");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));

  int exit_code = -1;
  const auto missing = run_probe("--only python --python /nonexistent/env", &exit_code);
  CHECK(exit_code == 1);
  CHECK(missing["python"]["status"] == "missing");
  const auto findings = bevenv::probes::evaluate(missing);
  const auto* finding = find_check(findings, "python");
  REQUIRE(finding != nullptr);
  CHECK(finding->severity == Severity::warning);
  CHECK(finding->fix.find("--python") != std::string::npos);
}

namespace {

// A venv holding a fake torch whose __init__.py leaves a mark and raises when executed, with
// the version.py of a real cu130 build and a libtorch_cuda.so nvcc builds for sm_80 and sm_90
// (plus compute_90 PTX); beside it an mmcv whose _ext is built for sm_75 (and the same library
// as an mmdet3d op), and the metadata of the cuDNN wheel. Empty when there is no nvcc.
std::string fake_torch_venv(const std::string& nvcc) {
  const std::string dir = temp_dir();
  const auto venv =
      run_command("python3 -m venv --without-pip " + shell_quote(dir + "/venv") + " 2>&1");
  INFO(venv.out);
  REQUIRE(venv.exit_code == 0);
  const auto purelib =
      run_command(shell_quote(dir + "/venv/bin/python") +
                  " -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])'");
  const std::string site = purelib.out.substr(0, purelib.out.find('\n'));
  REQUIRE(run_command("mkdir -p " + shell_quote(site + "/torch/lib") + " " +
                      shell_quote(site + "/mmcv") + " " +
                      shell_quote(site + "/nvidia_cudnn_cu13-9.13.0.50.dist-info"))
              .exit_code == 0);
  std::ofstream(site + "/torch/__init__.py")
      << "open("
      << "'" << dir << "/torch-was-executed', 'w').close()\n"
      << "raise RuntimeError('torch/__init__.py was executed')\n";
  std::ofstream(site + "/torch/version.py")
      << "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda']\n"
      << "__version__ = '2.11.0+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\n"
      << "git_version = 'abc123'\nhip: Optional[str] = None\n";
  std::ofstream(site + "/mmcv/__init__.py") << "";
  std::ofstream(site + "/nvidia_cudnn_cu13-9.13.0.50.dist-info/METADATA")
      << "Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: 9.13.0.50\n";
  std::ofstream(dir + "/k.cu")
      << "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n";
  const std::string build = "cd " + shell_quote(dir) + " && " + shell_quote(nvcc) +
                            " -shared -Xcompiler -fPIC k.cu 2>&1 -o ";
  const auto torch_lib =
      run_command(build + shell_quote(site + "/torch/lib/libtorch_cuda.so") +
                  " -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
                  " -gencode arch=compute_90,code=compute_90");
  INFO(torch_lib.out);
  REQUIRE(torch_lib.exit_code == 0);
  const auto ext =
      run_command(build + shell_quote(site + "/mmcv/_ext.cpython-3-x86_64-linux-gnu.so") +
                  " -gencode arch=compute_75,code=sm_75");
  INFO(ext.out);
  REQUIRE(ext.exit_code == 0);
  // BEVFusion's layout: an op package under mmdet3d/ops with its built extension.
  const std::string voxel = site + "/mmdet3d/ops/voxel";
  REQUIRE(run_command("mkdir -p " + shell_quote(voxel) + " && touch " +
                      shell_quote(site + "/mmdet3d/__init__.py") + " " +
                      shell_quote(voxel + "/__init__.py") + " && cp " +
                      shell_quote(site + "/mmcv/_ext.cpython-3-x86_64-linux-gnu.so") + " " +
                      shell_quote(voxel + "/voxel_layer.cpython-3-x86_64-linux-gnu.so"))
              .exit_code == 0);
  return dir;
}

}  // namespace

TEST_CASE("torch's version, CUDA build and arch list come from its files, not its import",
          "[probes][tool][python][fatbin]") {
  const std::string nvcc = nvcc_path();
  if (nvcc.empty()) {
    WARN("no nvcc to build a libtorch_cuda.so with known architectures");
    return;
  }
  const std::string dir = fake_torch_venv(nvcc);
  const std::string python = shell_quote(dir + "/venv/bin/python");
  const auto report = run_probe("--only python --python " + python);
  const auto& torch = report["python"]["torch"];
  INFO(report["python"].dump(2));
  CHECK_FALSE(file_exists(dir + "/torch-was-executed"));
  CHECK(torch["status"] == "ok");
  CHECK(torch["source"] == "files");
  CHECK(torch["version"] == "2.11.0+cu130");
  CHECK(torch["cuda"] == "13.0");
  CHECK(torch["git_version"] == "abc123");
  CHECK(torch["cudnn"] == 91300);  // as torch.backends.cudnn.version() spells cuDNN 9.13.0
  CHECK(torch["arch_list"] == nlohmann::json{"sm_80", "sm_90", "compute_90"});
  CHECK(torch["arch_extra"] == nlohmann::json::array());
  CHECK_FALSE(torch.contains("cuda_available"));  // the driver probe reports the GPUs
  CHECK_FALSE(torch.contains("devices"));
  REQUIRE(torch["arch_sources"].size() == 1);
  const auto& source = torch["arch_sources"][0];
  CHECK(source["file"].get<std::string>().find("/torch/lib/libtorch_cuda.so") != std::string::npos);
  CHECK(source["entries"].get<int>() >= 3);
  CHECK(source["ms"].get<double>() < 1000);
  REQUIRE(report["python"]["ops_archs"].size() == 2);
  for (const auto& op : report["python"]["ops_archs"]) {
    CHECK(op["sass"] == nlohmann::json{"sm_75"});
    CHECK(op["ptx"] == nlohmann::json::array());
  }
  CHECK(report["python"]["ops_archs"][0]["package"] == "mmcv");
  CHECK(report["python"]["ops_archs"][1]["package"] == "mmdet3d.ops.voxel");

  // --import-torch asks torch itself, whose __init__.py here raises: the old verdict.
  const auto imported = run_probe("--only python --import-torch --python " + python);
  const auto& torch_imported = imported["python"]["torch"];
  CHECK(file_exists(dir + "/torch-was-executed"));
  CHECK(imported["options"]["import_torch"] == true);
  CHECK(torch_imported["source"] == "import");
  CHECK(torch_imported["status"] == "problem");
  CHECK(torch_imported["evidence"] == "RuntimeError: torch/__init__.py was executed");
  CHECK_FALSE(torch_imported.contains("arch_sources"));
}

namespace {

// Builds the shared object `path` (soname: its file name) with cc, needing `deps` (paths),
// with `flags` (an RPATH, as torch's wheels set them).
void cc_library(const std::string& path, const std::vector<std::string>& deps,
                const std::string& flags) {
  std::ofstream(path + ".c") << "int f(void) { return 1; }\n";
  std::string command = "cc -shared -fPIC -o " + shell_quote(path) + " " +
                        shell_quote(path + ".c") + " -Wl,-soname," +
                        shell_quote(path.substr(path.rfind('/') + 1)) + " " + flags +
                        " -Wl,--no-as-needed";
  for (const auto& dep : deps) command += " " + shell_quote(dep);
  const auto built = run_command(command + " 2>&1 && rm -f " + shell_quote(path + ".c"));
  INFO(command << "\n" << built.out);
  REQUIRE(built.exit_code == 0);
}

struct TorchFiles {
  std::string dir;        // the test's folder: the venv, and the mark __init__.py leaves
  std::string python;     // the venv's interpreter
  std::string extension;  // torch/_C.<EXT_SUFFIX>
};

// A venv whose torch is its files only: version.py, an __init__.py that leaves a mark and
// raises when executed, and a torch/_C extension linked as torch's wheels are: an RPATH
// `$ORIGIN/lib` (torch/lib/libtorch_python.so), whose own RPATH
// `$ORIGIN/../../nvidia/cuda_runtime/lib` finds the nvidia-cuda-runtime wheel's libcudart.so.12.
// `extra`: another library _C needs, built with that soname and then removed, as when torch is
// for another CUDA than the one installed.
TorchFiles torch_files_venv(const std::string& extra) {
  TorchFiles out{temp_dir(), "", ""};
  const auto venv =
      run_command("python3 -m venv --without-pip " + shell_quote(out.dir + "/venv") + " 2>&1");
  INFO(venv.out);
  REQUIRE(venv.exit_code == 0);
  out.python = out.dir + "/venv/bin/python";
  const auto paths = run_command(shell_quote(out.python) +
                                 " -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"]);"
                                 " print(sysconfig.get_config_var(\"EXT_SUFFIX\"))'");
  const std::string site = paths.out.substr(0, paths.out.find('\n'));
  const std::string suffix =
      paths.out.substr(site.size() + 1, paths.out.find('\n', site.size() + 1) - site.size() - 1);
  const std::string cudart_dir = site + "/nvidia/cuda_runtime/lib";
  REQUIRE(run_command("mkdir -p " + shell_quote(site + "/torch/lib") + " " +
                      shell_quote(cudart_dir) + " " + shell_quote(out.dir + "/stub"))
              .exit_code == 0);
  std::ofstream(site + "/torch/__init__.py")
      << "open('" << out.dir << "/torch-was-executed', 'w').close()\n"
      << "raise RuntimeError('torch/__init__.py was executed')\n";
  std::ofstream(site + "/torch/version.py")
      << "__version__ = '2.9.1+cu128'\ncuda = '12.8'\ngit_version = 'abc123'\n";
  cc_library(cudart_dir + "/libcudart.so.12", {}, "");
  cc_library(site + "/torch/lib/libtorch_python.so", {cudart_dir + "/libcudart.so.12"},
             "-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/../../nvidia/cuda_runtime/lib'");
  std::vector<std::string> deps{site + "/torch/lib/libtorch_python.so"};
  if (!extra.empty()) {
    cc_library(out.dir + "/stub/" + extra, {}, "");
    deps.push_back(out.dir + "/stub/" + extra);
  }
  out.extension = site + "/torch/_C" + suffix;
  cc_library(out.extension, deps, "-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/lib'");
  REQUIRE(run_command("rm -rf " + shell_quote(out.dir + "/stub")).exit_code == 0);
  return out;
}

// cuda-library-missing's pattern, as matrix/data/failures.toml writes it (TOML escapes undone).
std::regex catalogue_pattern() {
  std::ifstream file(std::string(BEVENV_SOURCE_DIR) + "/matrix/data/failures.toml");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const auto entry = text.find("id = \"cuda-library-missing\"");
  REQUIRE(entry != std::string::npos);
  const auto start = text.find("regex = \"", entry) + 9;
  std::string pattern = text.substr(start, text.find("\" }", start) - start);
  for (auto at = pattern.find("\\\\"); at != std::string::npos; at = pattern.find("\\\\", at + 1)) {
    pattern.erase(at, 1);
  }
  return std::regex(pattern);
}

}  // namespace

TEST_CASE("a torch whose CUDA libraries the loader would not find is a problem, unimported",
          "[probes][tool][python][elf]") {
  const TorchFiles torch = torch_files_venv("libcudart.so.11.0");
  int exit_code = -1;
  const auto report = run_probe(
      "--only python --fail-on problem --python " + shell_quote(torch.python), &exit_code);
  const auto& section = report["python"]["torch"];
  INFO(report["python"].dump(2));
  CHECK_FALSE(file_exists(torch.dir + "/torch-was-executed"));
  CHECK(section["source"] == "files");
  CHECK(section["extension"] == torch.extension);
  CHECK(section["status"] == "problem");
  const std::string evidence = section["evidence"];
  CHECK(evidence == torch.extension +
                        ": libcudart.so.11.0: cannot open shared object file: No such file or "
                        "directory");
  CHECK(std::regex_search(evidence, catalogue_pattern()));
  CHECK(section["version"] == "2.9.1+cu128");  // the other facts stay
  CHECK(section["cuda"] == "12.8");
  const auto& libraries = section["libraries"];
  CHECK(libraries["checked"] == 3);  // _C, libtorch_python.so, libcudart.so.12
  REQUIRE(libraries["missing"].size() == 1);
  CHECK(libraries["missing"][0]["name"] == "libcudart.so.11.0");
  CHECK(libraries["missing"][0]["needed_by"] == torch.extension);
  CHECK(libraries["ms"].get<double>() < 1000);
  CHECK(exit_code == 3);  // --fail-on problem: what doctor calls a problem
  const auto findings = bevenv::probes::evaluate(report);
  const auto* finding = find_check(findings, "torch");
  REQUIRE(finding != nullptr);
  CHECK(finding->severity == Severity::problem);
  CHECK(finding->detail == evidence);

  // --import-torch: the import speaks, not the walk.
  const auto imported =
      run_probe("--only python --import-torch --python " + shell_quote(torch.python));
  CHECK(imported["python"]["torch"]["evidence"] == "RuntimeError: torch/__init__.py was executed");
  CHECK_FALSE(imported["python"]["torch"].contains("libraries"));
}

TEST_CASE("a torch whose libraries all resolve through its RPATHs is ok",
          "[probes][tool][python][elf]") {
  const TorchFiles torch = torch_files_venv("");
  const auto report = run_probe("--only python --python " + shell_quote(torch.python));
  const auto& section = report["python"]["torch"];
  INFO(report["python"].dump(2));
  CHECK_FALSE(file_exists(torch.dir + "/torch-was-executed"));
  CHECK(section["status"] == "ok");
  CHECK_FALSE(section.contains("evidence"));
  CHECK(section["libraries"]["checked"] == 3);
  CHECK(section["libraries"]["missing"] == nlohmann::json::array());
  CHECK_FALSE(section["libraries"].contains("unreadable"));
}
