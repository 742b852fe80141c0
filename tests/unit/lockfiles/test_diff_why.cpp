// `lock --check` changes and `why` answers.
#include <catch2/catch.hpp>

#include "bevenv/lockfiles/diff.hpp"
#include "bevenv/lockfiles/why.hpp"
#include "bevenv/lockfiles/writer.hpp"
#include "sample_lock.hpp"

using namespace bevenv;
using namespace bevenv::lockfiles;

namespace {

std::vector<std::string> texts(const std::vector<Change>& changes) {
  std::vector<std::string> out;
  for (const Change& c : changes) out.push_back(c.text);
  return out;
}

Package& package(Lockfile& lock, std::string_view name) {
  for (Package& p : lock.packages)
    if (p.name == name) return p;
  FAIL("no package " << name);
  throw;
}

// `bevenv why NAME`'s text for the sample lock; the test stops where the name is not found.
std::string why_text(std::string_view name) {
  const auto lines = explain_package(testing::sample_lock(), name);
  REQUIRE(lines.has_value());
  return to_text(*lines);
}

}  // namespace

TEST_CASE("diff: equal lockfiles, in any order, have no changes") {
  Lockfile a = testing::sample_lock();
  Lockfile b = a;
  std::reverse(b.packages.begin(), b.packages.end());
  CHECK(diff_lockfiles(a, b).empty());
}

TEST_CASE("diff: the changes `lock --check` reports") {
  const Lockfile before = testing::sample_lock();
  Lockfile after = before;
  after.input_hash = "sha256:" + testing::fake_sha("other inputs");
  after.target.python = "3.9.18";
  after.environment.variables.erase("MMCV_WITH_OPS");
  after.environment.variables["CUDA_HOME"] = "/usr/local/cuda";
  package(after, "torch").version = "1.10.2+cu113";
  package(after, "torch").dependencies.push_back("numpy");
  Package numpy;
  numpy.name = "numpy";
  numpy.version = "1.19.5";
  numpy.source = {SourceKind::pypi, "https://pypi.org/simple"};
  after.packages.push_back(numpy);
  package(after, "mmcv-full").artifacts[0].sha256 = testing::fake_sha("rebuilt");
  after.packages.erase(after.packages.begin() + 2);  // typing_extensions
  package(after, "torch").dependencies = {"setuptools", "numpy"};
  after.builds[0].commands.push_back("python -c 'import mmdet3d'");
  after.rules_applied.push_back({"yapf-verify", "F3", "yapf!=0.40.2", {}, "open-mmlab/mmcv#2924"});

  CHECK(texts(diff_lockfiles(before, after)) ==
        std::vector<std::string>{
            "input hash changed",
            "target python 3.8.18 -> 3.9.18",
            "+ variable CUDA_HOME=/usr/local/cuda",
            "- variable MMCV_WITH_OPS",
            "mmcv-full artifact mmcv_full-1.4.0-cp38-cp38-manylinux1_x86_64.whl: sha256 changed",
            "+ numpy 1.19.5",
            "torch 1.10.1+cu113 -> 1.10.2+cu113",
            "torch dependencies: + numpy, - typing-extensions",
            "- typing_extensions 4.7.1",
            "build bevfusion-ops: commands changed",
            "+ rule yapf-verify (yapf!=0.40.2)",
        });
  CHECK(diff_lockfiles(before, after)[5].kind == ChangeKind::added);
  CHECK(diff_lockfiles(before, after)[8].kind == ChangeKind::removed);
}

TEST_CASE("diff: any change that alters the file is reported") {
  // Each mutation changes the canonical text; the diff must never be empty for it.
  const Lockfile base = testing::sample_lock();
  const std::vector<void (*)(Lockfile&)> mutations = {
      [](Lockfile& l) { l.generator = "bevenv 0.2.0"; },
      [](Lockfile& l) { l.matrix_version = "2024.2"; },
      [](Lockfile& l) { l.profile.clear(); },
      [](Lockfile& l) { l.target.glibc = "2.35"; },
      [](Lockfile& l) { l.target.gpus.push_back("sm_90"); },
      [](Lockfile& l) { l.environment.cuda = "11.6"; },
      [](Lockfile& l) { l.environment.base_image.digest.reset(); },
      [](Lockfile& l) { l.environment.torch_cuda_arch_list = "8.6"; },
      [](Lockfile& l) { l.environment.variables["FORCE_CUDA"] = "0"; },
      [](Lockfile& l) { l.packages[0].variant = "cu116"; },
      [](Lockfile& l) { l.packages[0].source.url = "https://mirror.example/whl"; },
      [](Lockfile& l) { l.packages[3].markers.reset(); },
      [](Lockfile& l) { l.packages[0].artifacts[0].size = 1; },
      [](Lockfile& l) { l.packages[0].artifacts[0].url = "https://mirror.example/t.whl"; },
      [](Lockfile& l) { l.packages[0].artifacts.clear(); },
      [](Lockfile& l) { l.packages[0].why[0].text = "the user asked"; },
      [](Lockfile& l) { l.builds[0].env.clear(); },
      [](Lockfile& l) { l.builds[0].working_dir.reset(); },
      [](Lockfile& l) { l.builds[0].cuda_arch_list = "8.0"; },
      [](Lockfile& l) { l.builds[0].after.pop_back(); },
      [](Lockfile& l) {
        l.builds.push_back(l.builds[0]);
        l.builds[1].name = "second";
      },
      [](Lockfile& l) { l.rules_applied[0].symptom.reset(); },
      [](Lockfile& l) { l.rules_applied[0].effect = "setuptools<59"; },
  };
  for (std::size_t i = 0; i < mutations.size(); ++i) {
    Lockfile changed = base;
    mutations[i](changed);
    INFO("mutation " << i);
    REQUIRE(to_toml(changed) != to_toml(base));
    CHECK_FALSE(diff_lockfiles(base, changed).empty());
    CHECK_FALSE(diff_lockfiles(changed, base).empty());
  }
}

TEST_CASE("why: the pin, who required it, the rule with symptom and source") {
  CHECK(why_text("Setuptools") ==
        "setuptools 58.0.4\n"
        "  required by torch 1.10.1+cu113 (torch.utils.tensorboard imports distutils.version)\n"
        "  held below 59.6 by rule `setuptools-distutils-version` (F2):\n"
        "    symptom: AttributeError: module 'distutils' has no attribute 'version'\n"
        "    source:  pytorch/pytorch#69894\n"
        "  from pypi https://pypi.org/simple\n");
}

TEST_CASE("why: requested packages, observations and dependents") {
  CHECK(why_text("torch") ==
        "torch 1.10.1+cu113\n"
        "  requested by profile bevfusion (torch==1.10.1+cu113)\n"
        "  also a dependency of mmcv-full 1.4.0\n"
        "  from index https://download.pytorch.org/whl/cu113 (variant cu113)\n");
  const auto mmcv = explain_package(testing::sample_lock(), "mmcv_full");
  REQUIRE(mmcv.has_value());
  CHECK((*mmcv)[2] == ExplainLine{1, "observed: NVRTC compiled an sm_86 kernel with CUDA 11.3"});
  CHECK((*mmcv)[3] == ExplainLine{2, "source:  probe on gpu-node-3"});
}

TEST_CASE("why: a name not in the lockfile suggests a close one") {
  const auto typo = explain_package(testing::sample_lock(), "setuptool");
  REQUIRE_FALSE(typo.has_value());
  CHECK(typo.error().message == "`setuptool` is not in the lockfile");
  CHECK(typo.error().hint == "did you mean `setuptools`? (`bevenv why setuptools`)");
  const auto prefix = explain_package(testing::sample_lock(), "mmcv");
  REQUIRE_FALSE(prefix.has_value());
  CHECK(prefix.error().suggestion == std::optional<std::string>("mmcv-full"));
  const auto far = explain_package(testing::sample_lock(), "nuscenes-devkit");
  REQUIRE_FALSE(far.has_value());
  CHECK_FALSE(far.error().suggestion.has_value());
  CHECK(far.error().hint ==
        "the lockfile pins 4 packages; list them with `bevenv export --format requirements`");
}
