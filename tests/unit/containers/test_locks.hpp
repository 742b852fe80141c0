#pragma once
// Lockfile models shaped like what `bevenv lock` writes for the shipped profiles, for golden
// Dockerfiles. Hashes are sha256 of the file names: the renderer copies them, never checks them.
#include <string>
#include <vector>

#include "bevenv/core/sha256.hpp"
#include "bevenv/lockfiles/model.hpp"

namespace bevenv::containers::test {

inline lockfiles::Package wheel(std::string name, std::string version, std::string filename,
                                lockfiles::Source source = {lockfiles::SourceKind::pypi,
                                                            "https://pypi.org/simple"}) {
  lockfiles::Package p;
  p.name = std::move(name);
  p.version = std::move(version);
  p.source = std::move(source);
  lockfiles::Artifact a;
  a.filename = filename;
  a.url = "https://files.example.org/" + filename;
  a.sha256 = core::sha256_hex(filename);
  p.artifacts.push_back(a);
  p.why.push_back(
      {lockfiles::ReasonKind::requested, "profile", std::nullopt, std::nullopt, std::nullopt});
  return p;
}

inline lockfiles::Lockfile base_lock(std::string profile, std::string python) {
  lockfiles::Lockfile lock;
  lock.generator = "bevenv 0.1.0";
  lock.matrix_version = "2026.11.1";
  lock.input_hash = "sha256:" + core::sha256_hex("inputs of " + profile);
  lock.profile = std::move(profile);
  lock.target.python = std::move(python);
  lock.target.platform = "linux_x86_64";
  lock.target.glibc = "2.31";
  return lock;
}

// CPU-only: what the end-to-end test builds.
inline lockfiles::Lockfile smoke_lock() {
  auto lock = base_lock("smoke", "3.11.2");
  lock.environment.base_image.tag = "debian:bookworm-slim";
  lock.packages.push_back(wheel("packaging", "24.1", "packaging-24.1-py3-none-any.whl"));
  lock.packages.push_back(wheel("six", "1.16.0", "six-1.16.0-py2.py3-none-any.whl"));
  return lock;
}

inline lockfiles::Lockfile cuda_lock(std::string profile, std::string python, std::string cuda,
                                     std::string image, std::vector<std::string> gpus,
                                     std::string arch_list) {
  auto lock = base_lock(std::move(profile), std::move(python));
  lock.target.cuda_driver = "12.2";
  lock.target.gpus = std::move(gpus);
  lock.environment.cuda = std::move(cuda);
  lock.environment.base_image.tag = std::move(image);
  lock.environment.torch_cuda_arch_list = arch_list;
  lock.environment.variables["TORCH_CUDA_ARCH_LIST"] = arch_list;
  lock.environment.variables["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:128";
  return lock;
}

// BEVFusion: torch cu113 wheels, mmcv-full from the OpenMMLab page, then its own ops compiled
// with `setup.py develop` in the project checkout. Neither page publishes sha256: torch's file
// URL is known, mmcv-full only its page (what an offline lock records).
inline lockfiles::Lockfile bevfusion_lock() {
  auto lock =
      cuda_lock("bevfusion", "3.8.18", "11.3", "nvidia/cuda:11.3.1-cudnn8-devel-ubuntu20.04",
                {"sm_70", "sm_86"}, "7.0;8.6+PTX");
  lock.environment.base_image.digest = "sha256:" + core::sha256_hex("cuda 11.3.1 image");
  lock.environment.variables["FORCE_CUDA"] = "1";
  const lockfiles::Source torch_index{lockfiles::SourceKind::index,
                                      "https://download.pytorch.org/whl/cu113"};
  const lockfiles::Source mmcv_page{
      lockfiles::SourceKind::find_links,
      "https://download.openmmlab.com/mmcv/dist/cu113/torch1.10.0/index.html"};
  lock.packages.push_back(
      wheel("torch", "1.10.1+cu113", "torch-1.10.1+cu113-cp38-cp38-linux_x86_64.whl", torch_index));
  lock.packages.back().variant = "cu113";
  lock.packages.back().artifacts.front().sha256.reset();
  lock.packages.push_back(
      wheel("mmcv-full", "1.4.0", "mmcv_full-1.4.0-cp38-cp38-manylinux1_x86_64.whl", mmcv_page));
  lock.packages.back().dependencies = {"numpy", "torch"};
  lock.packages.back().artifacts.clear();
  lock.packages.push_back(
      wheel("numpy", "1.19.5", "numpy-1.19.5-cp38-cp38-manylinux2010_x86_64.whl"));
  lock.packages.push_back(wheel("setuptools", "58.0.4", "setuptools-58.0.4-py3-none-any.whl"));
  lockfiles::BuildStep ops;
  ops.name = "bevfusion-ops";
  ops.after = {"mmcv-full", "torch"};
  ops.working_dir = "/workspace/bevfusion";
  ops.cuda_arch_list = "7.0;8.6+PTX";
  ops.env["FORCE_CUDA"] = "1";
  ops.env["TORCH_CUDA_ARCH_LIST"] = "7.0;8.6+PTX";
  ops.commands = {"python setup.py develop"};
  lock.builds.push_back(ops);
  lock.rules_applied.push_back({"setuptools-distutils-version", "F2", "setuptools<59.6",
                                "AttributeError: module 'distutils' has no attribute 'version'",
                                "pytorch/pytorch#69894"});
  return lock;
}

// UniAD v2.0: torch 2.0.1 has no mmcv-full wheel, so mmcv-full 1.6.0 is compiled in the image
// from its PyPI sdist, hash-checked, with MMCV_WITH_OPS=1.
inline lockfiles::Lockfile uniad_lock() {
  auto lock = cuda_lock("uniad", "3.9.18", "11.8", "nvidia/cuda:11.8.0-cudnn8-devel-ubuntu22.04",
                        {"sm_80"}, "8.0+PTX");
  const lockfiles::Source torch_index{lockfiles::SourceKind::index,
                                      "https://download.pytorch.org/whl/cu118"};
  lock.packages.push_back(
      wheel("torch", "2.0.1+cu118", "torch-2.0.1+cu118-cp39-cp39-linux_x86_64.whl", torch_index));
  lock.packages.back().variant = "cu118";
  lockfiles::Package mmcv;
  mmcv.name = "mmcv-full";
  mmcv.version = "1.6.0";
  mmcv.source = {lockfiles::SourceKind::pypi, "https://pypi.org/simple"};
  mmcv.variant = "source";
  mmcv.dependencies = {"torch"};
  mmcv.artifacts = {
      {"https://files.pythonhosted.org/packages/17/bd/"
       "3cf61e29f3dcc80dfad9de055b1385d70d103b47586bd4e1051f1c2d035d/"
       "mmcv-full-1.6.0.tar.gz",
       "mmcv-full-1.6.0.tar.gz", "2ac60fb2ff75ef93c53b68f10a095a4929d67aedbd95c02641e1e5258d12b874",
       554896}};
  mmcv.why.push_back({lockfiles::ReasonKind::requested, "profile uniad (mmcv-full==1.6.0+source)",
                      std::nullopt, std::nullopt, std::nullopt});
  lock.packages.push_back(mmcv);
  lockfiles::BuildStep build;
  build.name = "mmcv-full";
  build.after = {"torch"};
  build.package = "mmcv-full";
  build.source = mmcv.artifacts.front();
  build.cuda_arch_list = "8.0+PTX";
  build.env["MMCV_WITH_OPS"] = "1";
  build.env["TORCH_CUDA_ARCH_LIST"] = "8.0+PTX";
  lock.builds.push_back(build);
  return lock;
}

// The same, as lockfiles from before curated sdist builds had it: a command run in the sdist,
// which the image fetches by name and version.
inline lockfiles::Lockfile uniad_command_lock() {
  auto lock = uniad_lock();
  for (auto& p : lock.packages)
    if (p.name == "mmcv-full") p.artifacts.clear();
  lockfiles::BuildStep& build = lock.builds.back();
  build.after = {"mmcv-full"};
  build.package.clear();
  build.source.reset();
  build.commands = {"pip install --no-build-isolation -v ."};
  return lock;
}

struct NamedLock {
  std::string name;
  lockfiles::Lockfile lock;
  bool with_project = false;
};

inline std::vector<NamedLock> profile_locks() {
  return {{"smoke", smoke_lock(), false},
          {"bevfusion", bevfusion_lock(), true},
          {"uniad", uniad_lock(), false}};
}

}  // namespace bevenv::containers::test
