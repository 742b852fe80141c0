#include "provider_index.hpp"

#include <algorithm>

namespace bevenv::solver::detail {

void ProviderIndex::sort_by_version() {
  for (auto& [name, providers] : by_name_) {
    const std::vector<Provider>& list = providers.list;
    std::vector<std::uint32_t>& order = providers.by_version;
    order.resize(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      order[i] = static_cast<std::uint32_t>(i);
      if (list[i].version->is_prerelease()) providers.any_prerelease = true;
    }
    std::stable_sort(order.begin(), order.end(), [&list](std::uint32_t a, std::uint32_t b) {
      return *list[a].version < *list[b].version;
    });
  }
}

const NameProviders* ProviderIndex::find(const std::string& name) const {
  const auto found = by_name_.find(name);
  return found == by_name_.end() ? nullptr : &found->second;
}

const std::vector<Provider>& ProviderIndex::list(const std::string& name) const {
  static const std::vector<Provider> none;
  const NameProviders* providers = find(name);
  return providers == nullptr ? none : providers->list;
}

}  // namespace bevenv::solver::detail
