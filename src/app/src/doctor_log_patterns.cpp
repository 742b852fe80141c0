// The built-in catalogue of log symptoms: the exact texts of the field failures
// (knowledge/field-failures.md F1-F12) and of the known-bad combinations that have no matrix
// rule of their own (compat-facts.md section 5). Matrix rules add their `symptom` at run time.
#include "doctor_log.hpp"

namespace bevenv::app::doctor_detail {

const std::vector<LogPattern>& builtin_log_patterns() {
  static const std::vector<LogPattern> patterns = {
      {"F1", "cannot pickle 'dict_keys' object", "",
       "an object holding `dict.keys()` reached a pickler: nuscenes-devkit's `DetectionConfig` "
       "keeps `class_names = class_range.keys()`, and DataLoader workers pickle the dataset that "
       "holds it when the start method is spawn or forkserver",
       "make `class_names` a `list(...)` in a `DetectionConfig` subclass your dataset uses, or "
       "keep the fork start method; no nuscenes-devkit release fixes it (1.1.9-1.1.11 pickle "
       "the same `dict_keys`)"},
      {"F2", "module 'distutils' has no attribute 'version'", "",
       "setuptools ≥ 59.6 ships its own distutils that no longer imports `distutils.version`; "
       "torch.utils.tensorboard (torch 1.9/1.10) calls `distutils.version.LooseVersion`",
       "`pip install setuptools==58.0.4` (any `<59.6`) with torch < 1.11; with torch 2.x in "
       "BEVFusion see F9 and use the profile's torch 1.x"},
      {"F3", "unexpected keyword argument 'verify'",
       R"(FormatCode\(\) got an unexpected keyword argument 'verify')",
       "yapf 0.40.2 removed the `verify` argument that mmcv 1.x's `Config.pretty_text` passes",
       "`pip install yapf==0.40.1`"},
      {"F4", "torchpack.utils.tqdm", R"(No module named '?torchpack\.utils\.tqdm)",
       "BEVFusion's tools import `torchpack.utils.tqdm`, which the PyPI torchpack releases lack",
       "install torchpack from its git repository, or import `tqdm` directly"},
      {"F5", "from partially initialized module 'mmdet3d.ops",
       R"(cannot import name '\w+' from partially initialized module 'mmdet3d\.ops)",
       "the CUDA extensions of (BEVFusion's) mmdet3d were never compiled, which surfaces as a "
       "circular import",
       "build them: `python setup.py develop` with `TORCH_CUDA_ARCH_LIST` set (bevenv "
       "build-image does this)"},
      {"F5", "No module named 'mmdet3d.ops", R"(No module named 'mmdet3d\.ops\.[\w.]*_ext')",
       "the CUDA extensions of mmdet3d were never compiled",
       "build them: `python setup.py develop` with `TORCH_CUDA_ARCH_LIST` set (bevenv "
       "build-image does this)"},
      {"F6", "No such file or directory", R"(No such file or directory: '[^']*\.pkl')",
       "the dataset info files are resolved against the working directory (`data/nuscenes/...`)",
       "run from the repository root, or set an absolute `data_root`; create the info files "
       "with the project's `create_data.py`"},
      {"F7", "channels, but got",
       R"(Expected input\[[0-9, ]+\] to have [0-9]+ channels, but got [0-9]+ channels instead)",
       "the vtransform's `add_depth_features`/`add_rgb_features` settings are out of step with "
       "the data pipeline",
       "make the camera vtransform's input channels match the pipeline (a config issue)"},
      {"F8", "CUDA out of memory", "",
       "training at this batch does not fit the GPU (BEVFusion's default does not fit 24 GB)",
       "train with DDP over several GPUs and fp16 (loss_scale 512), lower `samples_per_gpu`, or "
       "set `PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128`"},
      {"F10", "no kernel image is available for execution on the device", "",
       "torch or the compiled ops carry no SASS (and no usable PTX) for this GPU's architecture",
       "install a torch built for this GPU and rebuild the ops with its arch in "
       "`TORCH_CUDA_ARCH_LIST` (`bevenv doctor --check gpu-arch` shows which is missing)"},
      {"F11", "Watchdog caught collective operation timeout", "",
       "a collective timed out: ranks out of step (`gpu_ids` vs visible devices) or an NCCL "
       "transport that hangs",
       "check `CUDA_VISIBLE_DEVICES` against the launcher's process count; run `bevenv doctor "
       "--check nccl`; try `NCCL_P2P_DISABLE=1` on GeForce cards"},
      {"F11", "NCCL error", "",
       "NCCL failed: a transport problem (shm, P2P, network) or ranks out of step",
       "run `bevenv doctor --check nccl` and `--check shm`; rerun with `NCCL_DEBUG=INFO`"},
      {"F11", "ncclSystemError", "", "NCCL hit a system error (often /dev/shm or sockets)",
       "run `bevenv doctor --check nccl` and `--check shm`; rerun with `NCCL_DEBUG=INFO`"},
      {"F11", "ncclUnhandledCudaError", "", "a CUDA call inside NCCL failed",
       "run `bevenv doctor --check nccl`; rerun with `NCCL_DEBUG=INFO`"},
      {"F11", "ncclInternalError", "", "NCCL failed internally (often mismatched ranks)",
       "check that every rank runs the same code and world size; rerun with `NCCL_DEBUG=INFO`"},
      {"F12", "is killed by signal: Bus error",
       R"(DataLoader worker \(pid [0-9]+\) is killed by signal: Bus error)",
       "the DataLoader workers ran out of shared memory: Docker's default /dev/shm is 64 MB",
       "run the container with `--shm-size=8g` (or `--ipc=host`); `bevenv doctor --check shm`"},
      {"F12", "unable to write to file </torch_", "",
       "/dev/shm is full: DataLoader workers pass batches through it",
       "run the container with `--shm-size=8g` (or `--ipc=host`); `bevenv doctor --check shm`"},
      {"numba-numpy", "Numba needs NumPy", "",
       "this numba was built against an older numpy ABI range than the one installed",
       "pick numba by numpy: 0.48 needs numpy < 1.18, 0.53 numpy < 1.21, 0.56.4 numpy < 1.24"},
      {"trimesh-networkx", "'EnforcedForest' object has no attribute 'node'", "",
       "trimesh 2.35.39 uses networkx < 2.4's `.node`, gone in the networkx that Python ≥ 3.9 "
       "needs (`fractions.gcd`)",
       "on Python 3.8 keep networkx 2.2-2.3; on newer Python use a newer trimesh"},
  };
  return patterns;
}

}  // namespace bevenv::app::doctor_detail
