"""bevenv's Python environment probe.

Runs inside the interpreter under inspection (bevenv-probe embeds this file and runs it with
`python -c`; `python3 probe_env.py` works too) and prints one JSON object on stdout:
the interpreter, its installed distributions, torch's CUDA build, and behaviour checks for
known field failures (F1-F5). torch's facts come from its files (version.py, read as text;
the CUDA libraries' paths, whose fatbins bevenv-probe reads for the architectures), so that
torch/__init__.py never runs; `--import-torch` asks `import torch` instead. Each check is
isolated: a failing import is evidence, never the end of the script. Keeps to Python 3.6
syntax on purpose.
"""
import json
import os
import re
import sys
import time
import traceback

REPORT_FD = os.dup(1)
# Imports may print (C extensions included); keep stdout for the report alone.
os.dup2(2, 1)
sys.stdout = sys.stderr


def arg_value(flag, default):
    if flag in sys.argv:
        index = sys.argv.index(flag)
        if index + 1 < len(sys.argv):
            return sys.argv[index + 1]
    return default


TIMEOUT_S = float(arg_value("--timeout", "30"))


def evidence_of(error):
    return "%s: %s" % (type(error).__name__, error)


def module_exists(name):
    try:
        import importlib.util
        return importlib.util.find_spec(name) is not None
    except Exception:  # a broken parent package is "not importable" here
        return False


def site_dirs():
    dirs = []
    try:
        import sysconfig
        for key in ("purelib", "platlib"):
            path = sysconfig.get_paths().get(key)
            if path and path not in dirs:
                dirs.append(path)
    except Exception:
        pass
    try:
        import site
        for path in site.getsitepackages():
            if path not in dirs:
                dirs.append(path)
    except Exception:
        pass
    return [d for d in dirs if os.path.isdir(d)]


def nvidia_lib_dirs(sites):
    """The nvidia-* wheels' shared library folders (nvidia/<component>/lib, nvidia/cu13/lib)."""
    found = []
    for site_dir in sites:
        root = os.path.join(site_dir, "nvidia")
        if not os.path.isdir(root):
            continue
        for component in sorted(os.listdir(root)):
            lib = os.path.join(root, component, "lib")
            if os.path.isdir(lib) and lib not in found:
                found.append(lib)
    return found


def interpreter_info():
    return {
        "executable": sys.executable,
        "version": "%d.%d.%d" % sys.version_info[:3],
        "implementation": sys.implementation.name,
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "in_venv": sys.prefix != getattr(sys, "base_prefix", sys.prefix),
    }


def name_and_version(dist):
    """Name and Version from the metadata's header block alone: `dist.metadata` runs the email
    parser over the whole file, long descriptions included (0.3 s for 200 distributions)."""
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    name = version = None
    for line in text.splitlines():
        if not line.strip():
            break
        if name is None and line.startswith("Name:"):
            name = line[5:].strip()
        elif version is None and line.startswith("Version:"):
            version = line[8:].strip()
        if name and version:
            break
    return name, version


def distributions():
    found = []
    try:
        import importlib.metadata as metadata
        for dist in metadata.distributions():
            name, version = name_and_version(dist)
            if name and version:
                found.append({"name": name, "version": version})
    except ImportError:  # Python < 3.8
        import pkg_resources
        for dist in pkg_resources.working_set:
            found.append({"name": dist.project_name, "version": dist.version})
    found.sort(key=lambda d: (d["name"].lower().replace("_", "-"), d["version"]))
    return found


def installed_names(dists):
    names = {}
    for dist in dists:
        key = dist["name"].lower().replace("_", "-").replace(".", "-")
        names.setdefault(key, []).append(dist["version"])
    return names


# Facts of a torch install that only change when it is reinstalled: cached per interpreter and
# torch/__init__.py identity, so a repeated doctor does not pay for `import torch` (seconds).
STATIC_TORCH_FACTS = ("version", "file", "cuda", "arch_flags", "arch_list", "cudnn")


def torch_cache():
    try:
        import importlib.util
        origin = importlib.util.find_spec("torch").origin
        st = os.stat(origin)
        key = "%s|%s|%d|%d" % (os.path.realpath(sys.executable), origin, st.st_mtime_ns,
                               st.st_size)
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return key, os.path.join(base, "bevenv", "torch-facts.json")
    except Exception:
        return None, None


def cached_torch_facts(key, path):
    try:
        with open(path) as stream:
            cached = json.load(stream).get(key)
        return cached if isinstance(cached, dict) else None
    except Exception:
        return None


def store_torch_facts(key, path, facts):
    try:
        try:
            with open(path) as stream:
                table = json.load(stream)
        except Exception:
            table = {}
        table[key] = dict((k, facts[k]) for k in STATIC_TORCH_FACTS if k in facts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = "%s.%d.tmp" % (path, os.getpid())
        with open(temporary, "w") as stream:
            json.dump(table, stream)
        os.replace(temporary, path)
    except Exception:
        pass  # a read-only home only costs the next run the import


TORCH_VERSION_FIELDS = ("__version__", "cuda", "hip", "git_version")
# The libraries of torch that hold its CUDA kernels, by release: libtorch_cuda.so since 1.9,
# split into _cu and _cpp in 1.8; c10's own kernels are few but count.
TORCH_CUDA_LIBRARIES = ("libtorch_cuda.so", "libtorch_cuda_cu.so", "libtorch_cuda_cpp.so",
                        "libc10_cuda.so")


def torch_location():
    """torch's package folder and __init__.py, found the way `import torch` would find them,
    without running torch/__init__.py (find_spec of a top-level name imports nothing)."""
    import importlib.util
    spec = importlib.util.find_spec("torch")
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations:
        return None, None
    return locations[0], spec.origin


def assigned_literals(path, names):
    """The literal values assigned to `names` at the top of a Python file, read with ast and
    literal_eval: the file is never executed. `cuda: Optional[str] = '12.1'` counts too."""
    import ast
    with open(path, "rb") as stream:
        tree = ast.parse(stream.read(), path)
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id in names:
                try:
                    found[target.id] = ast.literal_eval(value)
                except ValueError:
                    pass  # not a literal: leave the field out rather than guess
    return found


def cudnn_of(names, lib_dir, cuda):
    """cuDNN as torch.backends.cudnn.version() spells it (8902, 90100), from the nvidia-cudnn
    wheel torch loads (the one for torch's CUDA major); bundled copies (torch/lib/libcudnn.so.8)
    name only their major version, which that number cannot be made from."""
    wanted = "nvidia-cudnn-cu%s" % str(cuda).split(".")[0]
    for key in [wanted] + sorted(k for k in names if k.startswith("nvidia-cudnn-cu")):
        if key not in names:
            continue
        parts = names[key][0].split(".")
        try:
            major, minor, patch = [int(part) for part in (parts + ["0", "0"])[:3]]
        except ValueError:
            continue
        scale = 10000 if major >= 9 else 1000  # cuDNN 9 changed CUDNN_VERSION's encoding
        return major * scale + minor * 100 + patch, "%s %s" % (key, names[key][0])
    bundled = sorted(n for n in os.listdir(lib_dir) if n.startswith("libcudnn.so.")) \
        if os.path.isdir(lib_dir) else []
    if bundled:
        return None, os.path.join(lib_dir, bundled[-1])
    return None, None


def torch_extension(package_dir):
    """torch/_C's shared object, as `import torch._C` would pick it: the first of the
    interpreter's extension suffixes that names a file. bevenv-probe walks its DT_NEEDED."""
    import importlib.machinery
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(package_dir, "_C" + suffix)
        if os.path.isfile(path):
            return path
    return None


def torch_info_files(names):
    """torch's facts from its files: version.py read as text, the CUDA libraries' paths for
    bevenv-probe to read the architectures from their fatbins, torch/_C's for it to find the
    libraries the loader would miss. None when version.py is not there to read (a damaged
    install: the import path says more)."""
    package_dir, origin = torch_location()
    if package_dir is None:
        return None
    version_file = os.path.join(package_dir, "version.py")
    if not os.path.isfile(version_file):
        return None
    fields = assigned_literals(version_file, TORCH_VERSION_FIELDS)
    if not isinstance(fields.get("__version__"), str):
        return None
    lib_dir = os.path.join(package_dir, "lib")
    out = {"status": "ok", "source": "files", "version": fields["__version__"], "file": origin,
           "cuda": fields.get("cuda"), "lib_dir": lib_dir,
           "cuda_libraries": [os.path.join(lib_dir, name) for name in TORCH_CUDA_LIBRARIES
                              if os.path.isfile(os.path.join(lib_dir, name))]}
    for name in ("hip", "git_version"):
        if name in fields:
            out[name] = fields[name]
    extension = torch_extension(package_dir)
    if extension:
        out["extension"] = extension
    if out["cuda"]:
        cudnn, cudnn_source = cudnn_of(names, lib_dir, out["cuda"])
        if cudnn is not None:
            out["cudnn"] = cudnn
        if cudnn_source:
            out["cudnn_source"] = cudnn_source
    return out


def torch_info(names):
    if not module_exists("torch"):
        return {"status": "missing"}
    if "--import-torch" not in sys.argv:
        try:
            found = torch_info_files(names)
        except Exception as error:  # unreadable files: fall back to the import, and say why
            found = None
            sys.stderr.write("probe_env: torch files: %s\n" % evidence_of(error))
        if found is not None:
            return found
    return torch_info_imported()


def torch_info_imported():
    """torch's facts from `import torch` (--import-torch): seconds on a cold machine, and the
    only way to see whether torch imports and which GPUs it sees."""
    key, cache_path = torch_cache()
    if key and "--no-cache" not in sys.argv:
        cached = cached_torch_facts(key, cache_path)
        if cached is not None:
            cached["status"] = "ok"
            cached["source"] = "import"
            cached["cached"] = True
            return cached
    out = {"status": "ok", "source": "import"}
    try:
        import torch
        out["version"] = torch.__version__
        out["file"] = torch.__file__
        out["cuda"] = getattr(torch.version, "cuda", None)
        # _cuda_getArchFlags needs no CUDA initialisation, unlike get_arch_list().
        flags = None
        get_flags = getattr(torch._C, "_cuda_getArchFlags", None)
        if get_flags is not None:
            flags = get_flags()
        out["arch_flags"] = flags
        out["arch_list"] = flags.split() if flags else []
        try:
            out["cudnn"] = torch.backends.cudnn.version()
        except Exception as error:
            out["cudnn_error"] = evidence_of(error)
        available = torch.cuda.is_available()
        out["cuda_available"] = available
        if available:
            if not out["arch_list"]:
                out["arch_list"] = torch.cuda.get_arch_list()
            devices = []
            for index in range(torch.cuda.device_count()):
                major, minor = torch.cuda.get_device_capability(index)
                devices.append({"index": index, "name": torch.cuda.get_device_name(index),
                                "capability": "%d.%d" % (major, minor)})
            out["devices"] = devices
    except Exception as error:
        out["status"] = "problem"
        out["evidence"] = evidence_of(error)
    if out["status"] == "ok" and key:
        store_torch_facts(key, cache_path, out)
    return out


def run_check(check_id, title, function):
    start = time.time()
    result = {"id": check_id, "title": title}
    try:
        status, evidence, detail = function()
    except Exception as error:
        status, evidence, detail = "problem", evidence_of(error), {
            "traceback": traceback.format_exc(limit=6)}
    result["status"] = status
    result["evidence"] = evidence
    if detail:
        result["detail"] = detail
    result["duration_ms"] = round((time.time() - start) * 1000.0, 1)
    return result


F2_CODE = """
import setuptools
try:
    from setuptools import distutils
except ImportError:
    import distutils
distutils.version.LooseVersion
"""


F2_PROCESS = []  # started early by main(), so the fresh interpreter runs beside the rest
F2_SKIPPED = []  # the torch version that made the check moot, when main() did not start it


def start_distutils_check():
    if module_exists("setuptools"):
        import subprocess
        F2_PROCESS.append(subprocess.Popen([sys.executable, "-c", F2_CODE],
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           universal_newlines=True))


def torch_past_distutils(names):
    """The installed torch's version when it is >=1.11, which no longer reaches for
    `distutils.version` (pytorch/pytorch#69894): F2's fresh interpreter (0.2 s, setuptools'
    import) then observes nothing that can bite. None otherwise, torch absent included."""
    for version in names.get("torch", []):
        parts = re.match(r"(\d+)\.(\d+)", version)
        if parts and (int(parts.group(1)), int(parts.group(2))) >= (1, 11):
            return version
    return None


def check_distutils_version():
    """F2: what torch.utils.tensorboard (torch 1.9/1.10) does, in a fresh interpreter so that
    modules this script imported cannot hide the failure."""
    if not module_exists("setuptools"):
        return "skipped", "setuptools is not installed", None
    if not F2_PROCESS and F2_SKIPPED:
        return "skipped", "torch %s does not use distutils.version" % F2_SKIPPED[0], None
    import subprocess
    if not F2_PROCESS:
        start_distutils_check()
    proc = F2_PROCESS[0]
    try:
        _, err = proc.communicate(timeout=max(5.0, TIMEOUT_S / 2))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return "problem", "importing setuptools did not finish", None
    if proc.returncode == 0:
        return "ok", "distutils.version.LooseVersion is reachable after importing setuptools", None
    lines = [line for line in err.strip().splitlines() if line.strip()]
    return "problem", lines[-1] if lines else "exit %d" % proc.returncode, None


def check_yapf_verify():
    """F3: mmcv 1.x's Config.pretty_text calls FormatCode(..., verify=True)."""
    if not module_exists("yapf"):
        return "skipped", "yapf is not installed", None
    from yapf.yapflib.yapf_api import FormatCode
    try:
        FormatCode("x=1\n", verify=True)
    except TypeError as error:
        return "problem", evidence_of(error), None
    return "ok", "FormatCode accepts verify=True", None


def check_nuscenes_pickle():
    """F1: DataLoader workers pickle the dataset, which holds nuscenes' DetectionConfig."""
    if not module_exists("nuscenes"):
        return "skipped", "nuscenes-devkit is not installed", None
    import pickle
    from nuscenes.eval.detection.config import config_factory
    try:
        pickle.dumps(config_factory("detection_cvpr_2019"))
    except TypeError as error:
        return "problem", evidence_of(error), None
    return "ok", "DetectionConfig pickles", None


def check_module_imports(package, module):
    """Whether `module` of the installed `package` imports; skipped without the package."""
    if not module_exists(package):
        return "skipped", "%s is not installed" % package, None
    try:
        __import__(module)
    except ImportError as error:
        return "problem", evidence_of(error), None
    return "ok", "%s imports" % module, None


def check_torchpack_tqdm():
    """F4: BEVFusion's tools import torchpack.utils.tqdm."""
    return check_module_imports("torchpack", "torchpack.utils.tqdm")


def check_mmcv_ops():
    """mmcv's compiled ops: missing with the ops-free mmcv (1.x `mmcv`, 2.x `mmcv-lite`)."""
    return check_module_imports("mmcv", "mmcv._ext")


def compiled_op_packages(package_dir):
    """Op subpackages that carry CUDA/C++ sources or built extensions."""
    ops = []
    ops_dir = os.path.join(package_dir, "ops")
    if not os.path.isdir(ops_dir):
        return ops
    for name in sorted(os.listdir(ops_dir)):
        path = os.path.join(ops_dir, name)
        if not os.path.isfile(os.path.join(path, "__init__.py")):
            continue
        files = []
        for _, _, names in os.walk(path):
            files.extend(names)
        if any(f.endswith((".cu", ".cpp", ".so")) for f in files):
            ops.append(name)
    return ops


def package_dir_of(name):
    """A top-level package's folder, without importing it."""
    import importlib.util
    spec = importlib.util.find_spec(name)
    locations = list(spec.submodule_search_locations or []) if spec else []
    return locations[0] if locations else None


def shared_objects(folder):
    found = []
    for root, _, files in os.walk(folder):
        found.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(".so"))
    return sorted(found)


def op_libraries():
    """The compiled op libraries the checks below import (mmcv's _ext, mmdet3d's and
    BEVFusion's op packages), as files: bevenv-probe reads their architectures."""
    found = []
    if module_exists("mmcv"):
        mmcv_dir = package_dir_of("mmcv")
        if mmcv_dir:
            for name in sorted(os.listdir(mmcv_dir)):
                if name.startswith("_ext") and name.endswith(".so"):
                    found.append({"package": "mmcv", "file": os.path.join(mmcv_dir, name)})
    if module_exists("mmdet3d"):
        mmdet3d_dir = package_dir_of("mmdet3d")
        for name in compiled_op_packages(mmdet3d_dir) if mmdet3d_dir else []:
            for path in shared_objects(os.path.join(mmdet3d_dir, "ops", name)):
                found.append({"package": "mmdet3d.ops." + name, "file": path})
    return found


def check_mmdet3d_ops():
    """F5: BEVFusion's (and mmdet3d 0.x's) compiled ops, each imported on its own."""
    if not module_exists("mmdet3d"):
        return "skipped", "mmdet3d is not installed", None
    import importlib.util
    spec = importlib.util.find_spec("mmdet3d")
    locations = list(spec.submodule_search_locations or [])
    ops = compiled_op_packages(locations[0]) if locations else []
    if not ops:
        return "skipped", "mmdet3d has no compiled op packages", None
    results = []
    for name in ops:
        module = "mmdet3d.ops." + name
        try:
            __import__(module)
            results.append({"module": module, "status": "ok"})
        except Exception as error:
            results.append({"module": module, "status": "problem", "evidence": evidence_of(error)})
    failed = [r for r in results if r["status"] != "ok"]
    if failed:
        return "problem", "%s: %s" % (failed[0]["module"], failed[0]["evidence"]), {
            "modules": results}
    return "ok", "%d op packages import" % len(results), {"modules": results}


def check_mmcv_duplicate(names):
    """Both `mmcv` and `mmcv-full` share the mmcv/ folder; the last one installed wins."""
    both = "mmcv" in names and "mmcv-full" in names
    if not both:
        return lambda: ("ok", "only one of mmcv / mmcv-full is installed", None)
    evidence = "mmcv %s and mmcv-full %s are both installed" % (
        names["mmcv"][0], names["mmcv-full"][0])
    return lambda: ("problem", evidence, None)


def shm_info():
    try:
        info = os.statvfs("/dev/shm")
        return {"total_bytes": info.f_blocks * info.f_frsize,
                "free_bytes": info.f_bavail * info.f_frsize}
    except OSError as error:
        return {"error": evidence_of(error)}


def main():
    sites = site_dirs()
    report = {"status": "ok", "schema": 1, "site_packages": sites,
              "nvidia_lib_dirs": nvidia_lib_dirs(sites)}
    if "--paths-only" in sys.argv:
        return report
    report["interpreter"] = interpreter_info()
    try:
        dists = distributions()
    except Exception as error:
        dists = []
        report["distributions_error"] = evidence_of(error)
    report["distributions"] = dists
    names = installed_names(dists)
    past = torch_past_distutils(names)
    if past:
        F2_SKIPPED.append(past)
    else:
        start_distutils_check()  # runs beside the rest of this script
    report["torch"] = torch_info(names)
    try:
        report["ops_archs"] = op_libraries()
    except Exception as error:
        report["ops_archs_error"] = evidence_of(error)
    report["shm"] = shm_info()
    report["checks"] = [
        run_check("F2", "distutils.version after importing setuptools", check_distutils_version),
        run_check("F3", "yapf FormatCode(verify=True)", check_yapf_verify),
        run_check("F1", "nuscenes DetectionConfig pickles", check_nuscenes_pickle),
        run_check("F4", "torchpack.utils.tqdm imports", check_torchpack_tqdm),
        run_check("mmcv-ops", "mmcv._ext imports", check_mmcv_ops),
        run_check("F5", "mmdet3d compiled ops import", check_mmdet3d_ops),
        run_check("mmcv-duplicate", "mmcv and mmcv-full not both installed",
                  check_mmcv_duplicate(names)),
    ]
    return report


def emit(report):
    data = (json.dumps(report, sort_keys=True, default=str) + "\n").encode("utf-8")
    while data:
        written = os.write(REPORT_FD, data)
        data = data[written:]


if __name__ == "__main__":
    try:
        emit(main())
    except BaseException as error:  # the report must come out even when main() fails
        emit({"status": "error", "error": evidence_of(error),
              "traceback": traceback.format_exc(limit=8)})
