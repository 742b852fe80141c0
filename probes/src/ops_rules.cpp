// Rules over the compiled ops (mmcv's `_ext`, mmdet3d's and BEVFusion's CUDA extensions): the
// architectures their fatbins really carry when the Python probe found them installed, else the
// ones the lock builds them for (`TORCH_CUDA_ARCH_LIST`). "No kernel image" is the commonest
// failure of these stacks on a new GPU, and it is the ops, more often than torch, that lack it.
#include <map>

#include "rules.hpp"

namespace bevenv::probes::rules {
namespace {

// "sm_86" -> "8.6", as TORCH_CUDA_ARCH_LIST spells it; other text stays as it is.
std::string arch_list_entry(const std::string& sm) {
  if (sm.size() < 5 || sm.rfind("sm_", 0) != 0) return sm;
  return sm.substr(3, sm.size() - 4) + "." + sm.substr(sm.size() - 1);
}

std::vector<std::string> strings_of(const json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& item : list) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

// The worst support among a package's libraries, and the libraries that have it.
struct PackageOps {
  ArchSupport worst = ArchSupport::sass;
  std::size_t libraries = 0;
  std::vector<std::string> lacking;  // file names without SASS for the GPU
};

int rank(ArchSupport support) {
  return support == ArchSupport::sass ? 0 : support == ArchSupport::ptx_jit ? 1 : 2;
}

std::string file_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::map<std::string, PackageOps> installed_ops(const json& ops, const std::string& sm) {
  std::map<std::string, PackageOps> out;
  for (const auto& library : ops) {
    if (!library.is_object()) continue;
    std::vector<std::string> archs = strings_of(library.value("sass", json::array()));
    for (auto& ptx : strings_of(library.value("ptx", json::array()))) archs.push_back(ptx);
    if (archs.empty()) continue;  // a host-only library: nothing of CUDA to judge
    PackageOps& package = out[library.value("package", "?")];
    const ArchSupport support = arch_support(sm, archs);
    ++package.libraries;
    if (rank(support) > rank(package.worst)) package.worst = support;
    if (support != ArchSupport::sass)
      package.lacking.push_back(file_name(library.value("file", "")));
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < 3; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > 3) out += " and " + std::to_string(items.size() - 3) + " more";
  return out;
}

void observed(const json& ops, const std::string& sm, std::vector<Finding>& out) {
  for (const auto& [package, found] : installed_ops(ops, sm)) {
    const std::string who = "`" + package + "` ops (" + std::to_string(found.libraries) +
                            (found.libraries == 1 ? " library" : " libraries") + ")";
    const std::vector<std::pair<std::string, std::string>> facts{
        {"sm", sm}, {"arch", arch_list_entry(sm)}, {"package", package}};
    if (found.worst == ArchSupport::sass) {
      out.push_back(make_finding("ops-arch", Severity::ok, who + " carry SASS for " + sm));
    } else if (found.worst == ArchSupport::ptx_jit) {
      out.push_back(failure_finding("ops-arch", Severity::warning,
                                    who + ": only PTX for " + sm + " in " + joined(found.lacking),
                                    "ptx-jit", facts));
    } else {
      out.push_back(failure_finding("ops-arch", Severity::problem,
                                    who + ": no kernels for " + sm + " in " + joined(found.lacking),
                                    "F10", facts));
    }
  }
}

void from_lock(const Expectations& expectations, const std::string& sm, std::vector<Finding>& out) {
  const ArchSupport support = arch_support(sm, expectations.target_archs);
  const std::vector<std::pair<std::string, std::string>> facts{{"sm", sm},
                                                               {"arch", arch_list_entry(sm)}};
  if (support == ArchSupport::sass) {
    out.push_back(make_finding("ops-arch", Severity::ok, "compiled ops carry SASS for " + sm));
  } else if (support == ArchSupport::ptx_jit) {
    out.push_back(failure_finding(
        "ops-arch", Severity::warning,
        "compiled ops have only PTX for " + sm + ": slow JIT at first use", "ptx-jit", facts));
  } else {
    out.push_back(failure_finding("ops-arch", Severity::problem,
                                  "compiled ops have no kernels for " + sm, "F10", facts));
  }
}

}  // namespace

void ops_arch_findings(const json& report, const Expectations& expectations, const std::string& sm,
                       std::vector<Finding>& out) {
  const json ops = status_of(report, "python") == "ok"
                       ? report["python"].value("ops_archs", json::array())
                       : json::array();
  if (ops.is_array() && !ops.empty()) {
    observed(ops, sm, out);
  } else if (!expectations.target_archs.empty()) {
    from_lock(expectations, sm, out);
  }
}

}  // namespace bevenv::probes::rules
