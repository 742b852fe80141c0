// The checks only doctor can make: the installed environment and this host against the
// lockfile (drift, Python, driver floor for the locked CUDA, target GPUs), and the matrix's
// known-bad rules against the versions really installed.
#include <algorithm>

#include "bevenv/core/name.hpp"
#include "bevenv/matrix/evaluate.hpp"
#include "doctor_internal.hpp"

namespace bevenv::app::doctor_detail {

bool same_version(const std::string& installed, const lockfiles::Package& locked) {
  const auto have = parse_version(installed);
  const auto want = parse_version(locked.version);
  if (!have || !want) return installed == locked.version;
  if (*have == *want) return true;
  if (want->has_local() || have->without_local() != want->without_local()) return false;
  return !have->has_local() || locked.variant.empty() || have->local_string() == locked.variant;
}

namespace {

using probes::Severity;

std::string locked_text(const lockfiles::Package& package) {
  const auto version = parse_version(package.version);
  if (!package.variant.empty() && version && !version->has_local()) {
    return package.version + " (" + package.variant + ")";
  }
  return package.version;
}

// The probe's failing verdict about a package, to say why its drift matters.
std::string failure_about(const std::string& package, const std::vector<probes::Finding>& seen) {
  for (const auto& finding : seen) {
    if (finding.severity == Severity::ok || finding.field_failure.empty()) continue;
    const auto packages = packages_of_check(finding.check);
    if (std::find(packages.begin(), packages.end(), package) != packages.end()) {
      return finding.field_failure;
    }
  }
  return "";
}

// One package off the lock, and whether it matters most: a known failure, else a pin the
// profile or the request asked for, else one that came with them.
struct Differs {
  probes::Finding finding;
  bool missing = false;
  int rank = 2;
};

int rank_of(const lockfiles::Package& package, const std::string& failure) {
  if (!failure.empty()) return 0;
  const bool asked = std::any_of(package.why.begin(), package.why.end(), [](const auto& reason) {
    return reason.kind == lockfiles::ReasonKind::requested;
  });
  return asked ? 1 : 2;
}

// A few differences are listed; many (a venv of another stack, one never synced) are counted,
// the few that matter first, the rest with -v.
void add_drift(std::vector<Differs> differ, std::size_t locked, std::vector<probes::Finding>& out) {
  constexpr std::size_t kShown = 5;
  if (differ.size() > kShown) {
    std::stable_sort(differ.begin(), differ.end(),
                     [](const Differs& a, const Differs& b) { return a.rank < b.rank; });
    const auto missing = static_cast<std::size_t>(
        std::count_if(differ.begin(), differ.end(), [](const Differs& d) { return d.missing; }));
    out.push_back(make_finding(
        "drift", Severity::problem,
        std::to_string(differ.size()) + " of " + std::to_string(locked) +
            " locked packages differ from the lock: " + std::to_string(missing) +
            " not installed, " + std::to_string(differ.size() - missing) +
            " at other versions; the first " + std::to_string(kShown) + " below, all with `-v`",
        "make the environment the lock with `bevenv sync --venv VENV` (or reinstall from "
        "`bevenv export`)"));
  }
  for (std::size_t i = 0; i < differ.size(); ++i) {
    differ[i].finding.verbose_only = differ.size() > kShown && i >= kShown;
    out.push_back(std::move(differ[i].finding));
  }
}

void drift(const json& report, const DoctorContext& ctx, std::vector<probes::Finding>& out) {
  if (section_if_ok(report, "python").empty()) return;
  const lockfiles::Lockfile& lock = *ctx.lock;
  const auto installed = installed_versions(report);
  std::vector<probes::Finding> probe_findings = probes::evaluate(report);
  word_python_checks(report, ctx.matrix, probe_findings);
  std::size_t matching = 0;
  std::size_t skipped = 0;
  std::vector<Differs> differ;
  for (const auto& package : lock.packages) {
    const std::string name = core::normalize_name(package.name);
    const auto found = installed.find(name);
    const std::string pin = "`pip install '" + package.name + "==" + package.version + "'`";
    if (found == installed.end()) {
      // A package behind a marker may rightly be absent; say so only with -v.
      if (package.markers) {
        ++skipped;
        continue;
      }
      differ.push_back(
          {make_finding("drift", Severity::problem,
                        package.name + " is not installed; the lock pins " + locked_text(package),
                        pin + " (or reinstall from `bevenv export`)"),
           true, rank_of(package, "")});
      continue;
    }
    if (same_version(found->second, package)) {
      ++matching;
      continue;
    }
    const std::string failure = failure_about(name, probe_findings);
    differ.push_back(
        {make_finding(
             "drift", Severity::problem,
             package.name + " " + found->second + " installed, the lock says " +
                 locked_text(package) +
                 (failure.empty() ? "" : " (" + failure + " fails with the installed one)"),
             pin + " (or reinstall from `bevenv export`)", failure),
         false, rank_of(package, failure)});
  }
  add_drift(std::move(differ), lock.packages.size() - skipped, out);
  if (matching == lock.packages.size() - skipped) {
    std::string title = std::to_string(matching) + " of " + std::to_string(lock.packages.size()) +
                        " locked packages installed at their locked versions";
    if (skipped > 0) title += " (" + std::to_string(skipped) + " behind markers absent)";
    out.push_back(make_finding("drift", Severity::ok, title, "", "",
                               "versions compared (local build tags included); artifact hashes "
                               "are enforced at install time by `pip install --require-hashes`, "
                               "an installed environment keeps no wheel hash to compare"));
  }
}

void python_version(const json& report, const lockfiles::Lockfile& lock,
                    std::vector<probes::Finding>& out) {
  const std::string have = interpreter_version(report);
  if (have.empty() || lock.target.python.empty()) return;
  if (minor_of(have) == minor_of(lock.target.python)) {
    out.push_back(make_finding("lock-python", Severity::ok,
                               "Python " + have + " matches the lock's " + lock.target.python));
    return;
  }
  out.push_back(
      make_finding("lock-python", Severity::problem,
                   "Python " + have + " here, but the lock is for Python " + lock.target.python,
                   "use a Python " + minor_of(lock.target.python) +
                       " interpreter (`--python PATH`), or "
                       "re-lock for this one: `bevenv lock --python " +
                       minor_of(have) + "`"));
}

}  // namespace

std::string driver_text(const core::Version& version) {
  std::string out;
  for (std::size_t i = 0; i < version.release().size(); ++i) {
    std::string part = std::to_string(version.release()[i]);
    if (i > 0 && part.size() < 2) part.insert(0, 1, '0');
    out += (i == 0 ? "" : ".") + part;
  }
  return out;
}

namespace {

struct DriverFloor {
  std::string min_driver;
  std::string minor_compat;  // empty when unknown
  std::string source;
};

// The matrix's toolkit record (matrix/data/cuda.toml): the one driver table, with its sources.
std::optional<DriverFloor> driver_floor(const std::string& cuda, const matrix::Matrix* matrix) {
  const auto version = parse_version(cuda);
  const matrix::Toolkit* toolkit =
      matrix != nullptr && version ? matrix->find_toolkit(*version) : nullptr;
  if (toolkit == nullptr) return std::nullopt;
  DriverFloor floor{driver_text(toolkit->min_driver), "", toolkit->origin.to_string()};
  if (toolkit->minor_compat_driver) floor.minor_compat = driver_text(*toolkit->minor_compat_driver);
  return floor;
}

// Minor-version compatibility (CUDA >= 11): a driver of the same major runs newer runtimes of
// it, from the release the toolkit record names (without PTX JIT of newer PTX).
bool runs_by_minor_compat(const core::Version& want, const core::Version& have,
                          const std::optional<DriverFloor>& floor, const std::string& version) {
  if (want.release().front() != have.release().front() || want.release().front() < 11) {
    return false;
  }
  const auto driver_v = parse_version(version);
  const auto compat_v =
      floor && !floor->minor_compat.empty() ? parse_version(floor->minor_compat) : std::nullopt;
  return !driver_v || !compat_v || *driver_v >= *compat_v;
}

void locked_cuda(const json& report, const DoctorContext& ctx, std::vector<probes::Finding>& out) {
  const std::string wanted = ctx.lock->environment.cuda;
  const std::string supported = driver_cuda(report);
  if (wanted.empty() || supported.empty()) return;
  const auto floor = driver_floor(wanted, ctx.matrix);
  const auto want = parse_version(wanted);
  const auto have = parse_version(supported);
  if (!want || !have) return;
  const json& driver = section_if_ok(report, "driver");
  const bool overridden = driver.value("cuda_version_overridden", false);
  const std::string version = overridden ? "" : driver_version(report);
  const std::string detail = floor ? "minimum driver for CUDA " + wanted + ": " +
                                         floor->min_driver + " (" + floor->source + ")"
                                   : "CUDA " + wanted + " is not in the matrix's toolkit table";
  const std::string drv = version.empty() ? "this driver" : "driver " + version;
  if (want->base_version() <= have->base_version()) {
    out.push_back(make_finding(
        "driver-cuda", Severity::ok,
        "the lock's CUDA " + wanted + " runs on " + drv + " (CUDA ≤ " + supported + ")", "", "",
        detail));
    return;
  }
  std::vector<std::pair<std::string, std::string>> facts{{"cuda", wanted},
                                                         {"supported", supported}};
  if (floor) facts.emplace_back("driver", floor->min_driver);
  if (runs_by_minor_compat(*want, *have, floor, version)) {
    out.push_back(failure_finding("driver-cuda", Severity::warning,
                                  "the lock's CUDA " + wanted + " is newer than " + drv +
                                      " supports (CUDA ≤ " + supported +
                                      "): it runs only through minor-version compatibility, "
                                      "without PTX JIT",
                                  "cuda-unsupported-ptx", std::move(facts), detail));
    return;
  }
  const std::string needs = floor ? "driver ≥ " + floor->min_driver : "a newer driver";
  out.push_back(failure_finding("driver-cuda", Severity::problem,
                                "the lock's CUDA " + wanted + " needs " + needs + "; " + drv +
                                    " supports CUDA ≤ " + supported,
                                "cuda-driver-too-old", std::move(facts), detail));
}

void target_gpus(const json& report, const lockfiles::Lockfile& lock,
                 std::vector<probes::Finding>& out) {
  const auto sms = gpu_sms(report);
  if (sms.empty() || lock.target.gpus.empty()) return;
  std::string locked;
  for (const auto& gpu : lock.target.gpus) locked += (locked.empty() ? "" : ", ") + gpu;
  for (const auto& sm : sms) {
    const auto support = probes::arch_support(sm, lock.target.gpus);
    if (support == probes::ArchSupport::sass) {
      out.push_back(
          make_finding("lock-gpus", Severity::ok,
                       "this host's " + sm + " is a target of the lock (" + locked + ")"));
    } else {
      out.push_back(failure_finding("lock-gpus", Severity::warning,
                                    "this host's " + sm + " is not a target of the lock (" +
                                        locked +
                                        "): its torch and ops builds were chosen for "
                                        "other GPUs",
                                    "F10", {{"sm", sm}}));
    }
  }
}

std::string pins_text(const matrix::Rule& rule, const matrix::Selection& selection) {
  std::string text;
  auto add = [&](const std::string& name) {
    const auto pin = selection.pins.find(name);
    if (pin == selection.pins.end()) return;
    const std::string item = name + " " + pin->second.to_string();
    if (text.find(item) == std::string::npos) text += (text.empty() ? "" : " with ") + item;
  };
  add(rule.then.normalized_name());
  for (const auto& condition : rule.when_packages) add(condition.name);
  return text;
}

}  // namespace

void lock_checks(const json& report, const DoctorContext& ctx, std::vector<probes::Finding>& out) {
  if (ctx.lock == nullptr) return;
  locked_cuda(report, ctx, out);
  target_gpus(report, *ctx.lock, out);
  python_version(report, *ctx.lock, out);
  drift(report, ctx, out);
}

void known_bad_rules(const json& report, const DoctorContext& ctx,
                     std::vector<probes::Finding>& out) {
  if (ctx.matrix == nullptr || section_if_ok(report, "python").empty()) return;
  matrix::Selection selection;
  for (const auto& [name, text] : installed_versions(report)) {
    if (auto version = parse_version(text)) selection.pins.emplace(name, *version);
  }
  selection.target.python = parse_version(interpreter_version(report));
  selection.target.cuda_driver = parse_version(driver_version(report));
  const auto sms = gpu_sms(report);
  if (!sms.empty()) selection.target.gpu_arch = sms.front();
  selection.target.platform = "linux";
  selection.profile = ctx.profile;
  std::size_t checked = 0;
  std::size_t violated = 0;
  for (const auto& rule : ctx.matrix->rules) {
    if (rule.kind == matrix::RuleKind::prefer) continue;
    ++checked;
    if (matrix::check_rule(rule, selection) != matrix::Verdict::violated) continue;
    ++violated;
    std::string detail = "rule `" + rule.id + "` (" + rule.origin.to_string() + ")";
    if (!rule.symptom.empty()) detail += "; symptom: " + rule.symptom;
    for (const auto& source : rule.sources) detail += "; source: " + source;
    out.push_back(
        make_finding("known-bad", Severity::problem,
                     pins_text(rule, selection) + ": " + rule.message + " (rule `" + rule.id + "`)",
                     rule.fix, rule.failure, detail));
  }
  if (violated == 0) {
    out.push_back(make_finding("known-bad", Severity::ok,
                               "no known-bad combination among " +
                                   std::to_string(selection.pins.size()) + " installed packages (" +
                                   std::to_string(checked) + " matrix rules)"));
  }
}

}  // namespace bevenv::app::doctor_detail
