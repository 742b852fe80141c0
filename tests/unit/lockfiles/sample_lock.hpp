#pragma once
// A lockfile shaped like a real BEVFusion lock (trimmed), shared by the lockfile tests.
#include <string>

#include "bevenv/core/sha256.hpp"
#include "bevenv/lockfiles/model.hpp"

namespace bevenv::lockfiles::testing {

inline std::string fake_sha(const std::string& seed) { return core::sha256_hex(seed); }

inline Lockfile sample_lock() {
  Lockfile lock;
  lock.generator = "bevenv 0.1.0";
  lock.matrix_version = "2024.1";
  lock.input_hash = "sha256:" + fake_sha("inputs");
  lock.profile = "bevfusion";
  lock.target = Target{"3.8.18", "linux_x86_64", "2.31", "12.2", {"sm_86", "sm_70"}};
  lock.environment.cuda = "11.3";
  lock.environment.base_image = {"nvidia/cuda:11.3.1-cudnn8-devel-ubuntu20.04",
                                 "sha256:" + fake_sha("image")};
  lock.environment.torch_cuda_arch_list = "7.0;8.6";
  lock.environment.variables = {{"FORCE_CUDA", "1"}, {"MMCV_WITH_OPS", "1"}};

  Package torch;
  torch.name = "torch";
  torch.version = "1.10.1+cu113";
  torch.variant = "cu113";
  torch.source = {SourceKind::index, "https://download.pytorch.org/whl/cu113"};
  torch.artifacts = {
      {"https://download.pytorch.org/whl/cu113/torch-1.10.1%2Bcu113-cp38-cp38-linux_x86_64.whl",
       "torch-1.10.1+cu113-cp38-cp38-linux_x86_64.whl", fake_sha("torch"), 1821446045}};
  torch.dependencies = {"typing-extensions", "setuptools"};
  torch.why = {{ReasonKind::requested, "profile bevfusion (torch==1.10.1+cu113)", {}, {}, {}}};

  Package setuptools;
  setuptools.name = "setuptools";
  setuptools.version = "58.0.4";
  setuptools.source = {SourceKind::pypi, "https://pypi.org/simple"};
  setuptools.artifacts = {
      {"https://files.pythonhosted.org/packages/setuptools-58.0.4-py3-none-any.whl",
       "setuptools-58.0.4-py3-none-any.whl", fake_sha("setuptools"), 816903}};
  setuptools.why = {{ReasonKind::required_by,
                     "torch.utils.tensorboard imports distutils.version",
                     "torch",
                     {},
                     {}},
                    {ReasonKind::rule, "held below 59.6", {}, "setuptools-distutils-version", {}}};

  Package typing;
  typing.name = "typing_extensions";
  typing.version = "4.7.1";
  typing.source = {SourceKind::pypi, "https://pypi.org/simple"};
  typing.artifacts = {
      {"https://files.pythonhosted.org/packages/typing_extensions-4.7.1-py3-none-any.whl",
       "typing_extensions-4.7.1-py3-none-any.whl",
       fake_sha("typing"),
       {}}};
  typing.why = {{ReasonKind::required_by, "typing-extensions", "torch", {}, {}}};

  Package mmcv;
  mmcv.name = "mmcv-full";
  mmcv.version = "1.4.0";
  mmcv.variant = "cu113";
  mmcv.source = {SourceKind::find_links,
                 "https://download.openmmlab.com/mmcv/dist/cu113/torch1.10.0/index.html"};
  mmcv.artifacts = {
      {"https://download.openmmlab.com/mmcv/dist/cu113/torch1.10.0/"
       "mmcv_full-1.4.0-cp38-cp38-manylinux1_x86_64.whl",
       "mmcv_full-1.4.0-cp38-cp38-manylinux1_x86_64.whl", fake_sha("mmcv"), 60123456}};
  mmcv.dependencies = {"torch"};
  mmcv.markers = "python_version < \"3.9\"";
  mmcv.why = {{ReasonKind::requested, "profile bevfusion (mmcv-full==1.4.0)", {}, {}, {}},
              {ReasonKind::observed,
               "NVRTC compiled an sm_86 kernel with CUDA 11.3",
               {},
               {},
               "probe on gpu-node-3"}};

  lock.packages = {torch, setuptools, typing, mmcv};
  BuildStep ops;
  ops.name = "bevfusion-ops";
  ops.after = {"torch", "mmcv-full"};
  ops.working_dir = "/workspace/bevfusion";
  ops.env = {{"FORCE_CUDA", "1"}};
  ops.commands = {"python setup.py develop"};
  ops.cuda_arch_list = "8.6";
  lock.builds = {ops};
  lock.rules_applied = {AppliedRule{"setuptools-distutils-version", "F2", "setuptools<59.6",
                                    "AttributeError: module 'distutils' has no attribute 'version'",
                                    "pytorch/pytorch#69894"}};
  return lock;
}

// The sample with mmcv-full compiled from its PyPI sdist, as the torch 2 ports lock it: the
// package lists the sdist, and its build carries it with the variables pip alone would not set.
inline Lockfile with_mmcv_sdist_build() {
  Lockfile lock = sample_lock();
  Package& mmcv = lock.packages[3];
  mmcv.version = "1.7.2";
  mmcv.variant = "source";
  mmcv.source = {SourceKind::pypi, "https://pypi.org/simple"};
  const Artifact sdist{"https://files.pythonhosted.org/packages/mmcv-full-1.7.2.tar.gz",
                       "mmcv-full-1.7.2.tar.gz", fake_sha("mmcv-sdist"), 607853};
  mmcv.artifacts = {sdist};
  BuildStep build;
  build.name = "mmcv-full";
  build.after = {"torch"};
  build.package = "mmcv-full";
  build.source = sdist;
  build.env = {{"FORCE_CUDA", "1"}, {"MMCV_WITH_OPS", "1"}, {"TORCH_CUDA_ARCH_LIST", "8.6"}};
  build.cuda_arch_list = "8.6";
  lock.builds.insert(lock.builds.begin(), build);
  return lock;
}

}  // namespace bevenv::lockfiles::testing
