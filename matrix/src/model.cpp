#include "bevenv/matrix/model.hpp"

#include <algorithm>

#include "bevenv/core/name.hpp"
#include "model_words.hpp"

namespace bevenv::matrix {

std::string_view layer_name(Layer layer) {
  return util::word_of(detail::kLayerWords, layer, "embedded");
}

std::string Origin::to_string() const {
  if (line == 0) return file.str();
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string_view build_kind_name(BuildKind kind) {
  return util::word_of(detail::kBuildKindWords, kind, "wheel");
}

std::string_view rule_kind_name(RuleKind kind) {
  return util::word_of(detail::kRuleKindWords, kind, "conflicts");
}

std::string_view memory_basis_name(MemoryBasis basis) {
  return util::word_of(detail::kMemoryBasisWords, basis, "estimate");
}

std::string PackageVersion::install_version() const {
  return local_is_published ? version.to_string() : version.public_string();
}

std::string PackageVersion::id() const { return name + "@" + version.to_string(); }

const PackageVersion* Package::find(const core::Version& v) const {
  for (const auto& candidate : versions) {
    if (candidate.version == v) return &candidate;
  }
  return nullptr;
}

bool PackageCondition::matches(const core::Version& v) const { return specifier.contains(v, true); }

bool TargetCondition::empty() const {
  return !python && !cuda_driver && gpu_arch.empty() && platform.empty();
}

bool Toolkit::supports(std::string_view sm_arch) const {
  return std::find(sm.begin(), sm.end(), sm_arch) != sm.end();
}

bool Profile::is_a(std::string_view profile_name) const {
  return std::find(lineage.begin(), lineage.end(), profile_name) != lineage.end();
}

const Package* Matrix::find_package(std::string_view name) const {
  // Most names asked are spelled as the map keys them already: no copy is made for those.
  auto it = core::is_normalized_name(name) ? packages.find(name)
                                           : packages.find(core::normalize_name(name));
  return it == packages.end() ? nullptr : &it->second;
}

const PackageVersion* Matrix::find_version(std::string_view name, const core::Version& v) const {
  const Package* package = find_package(name);
  return package == nullptr ? nullptr : package->find(v);
}

const Rule* Matrix::find_rule(std::string_view id) const {
  auto it = std::lower_bound(rules.begin(), rules.end(), id,
                             [](const Rule& rule, std::string_view key) { return rule.id < key; });
  return it != rules.end() && it->id == id ? &*it : nullptr;
}

const Toolkit* Matrix::find_toolkit(const core::Version& v) const {
  for (const auto& toolkit : toolkits) {
    if (toolkit.version == v) return &toolkit;
  }
  return nullptr;
}

const Profile* Matrix::find_profile(std::string_view name) const {
  auto it = profiles.find(name);
  return it == profiles.end() ? nullptr : &it->second;
}

std::vector<const Rule*> Matrix::rules_touching(std::string_view name,
                                                const core::Version& v) const {
  const std::string normalized = core::normalize_name(name);
  std::vector<const Rule*> out;
  for (const auto& rule : rules) {
    bool touches = std::any_of(
        rule.when_packages.begin(), rule.when_packages.end(),
        [&](const PackageCondition& c) { return c.name == normalized && c.matches(v); });
    touches = touches ||
              (rule.then.normalized_name() == normalized && rule.then.specifier.contains(v, true));
    if (touches) out.push_back(&rule);
  }
  return out;
}

std::size_t Matrix::version_count() const {
  std::size_t count = 0;
  for (const auto& [name, package] : packages) count += package.versions.size();
  return count;
}

}  // namespace bevenv::matrix
