#include "solv/pool.hpp"

#include <cstdint>
#include <stdexcept>

#include "solv/queue.hpp"
#include "solv/repo.hpp"

namespace bevenv::solver::solv {

PackagePool::PackagePool() : pool_(pool_create()) {
  if (!pool_) throw std::bad_alloc();
  pool_setdisttype(pool_.get(), DISTTYPE_DEB);
  namespace_name_ = intern("bevenv:matches");
}

PackagePool::~PackagePool() = default;

StringId PackagePool::intern(std::string_view text) {
  return StringId(pool_strn2id(pool_.get(), text.data(), static_cast<unsigned>(text.size()), 1));
}

std::string_view PackagePool::text(StringId id) const { return pool_id2str(pool_.get(), id.raw()); }

DepId PackagePool::namespace_dep(StringId argument) {
  return DepId(pool_rel2id(pool_.get(), namespace_name_.raw(), argument.raw(), REL_NAMESPACE, 1));
}

StringId PackagePool::namespace_argument(DepId dep) const {
  // ISRELDEP/GETRELDEP, without their sign conversions.
  constexpr std::uint32_t rel_bit = 0x80000000u;
  const auto bits = static_cast<std::uint32_t>(dep.raw());
  if ((bits & rel_bit) == 0) return {};
  const ::Reldep* relation = pool_->rels + (bits ^ rel_bit);
  if (relation->flags != REL_NAMESPACE || relation->name != namespace_name_.raw()) return {};
  return StringId(relation->evr);
}

void PackagePool::set_namespace_resolver(NamespaceResolver resolver) {
  resolver_ = std::move(resolver);
  pool_setnamespacecallback(pool_.get(), &PackagePool::resolve_namespace, this);
}

Id PackagePool::resolve_namespace(::Pool* pool, void* self, Id name, Id argument) {
  auto* me = static_cast<PackagePool*>(self);
  if (name != me->namespace_name_.raw() || !me->resolver_) return 0;
  const std::vector<SolvableId> matches = me->resolver_(StringId(argument));
  if (matches.empty()) return 0;
  Queue queue;
  for (SolvableId p : matches) queue.push(p.raw());
  return pool_queuetowhatprovides(pool, queue.raw());
}

int PackagePool::compare_evr(const std::string& a, const std::string& b) const {
  return pool_evrcmp_str(pool_.get(), a.c_str(), b.c_str(), EVRCMP_COMPARE);
}

Repo PackagePool::add_repo(const char* name) {
  ::Repo* repo = repo_create(pool_.get(), name);
  if (repo == nullptr) throw std::bad_alloc();
  return Repo(*this, repo);
}

SolvableListId PackagePool::list_id(const std::vector<SolvableId>& solvables) {
  Queue queue;
  for (SolvableId p : solvables) queue.push(p.raw());
  return SolvableListId(pool_queuetowhatprovides(pool_.get(), queue.raw()));
}

Repo PackagePool::repo_of(SolvableId id) { return Repo(*this, solvable(id).repo); }

void PackagePool::set_installed(const Repo& repo) { pool_set_installed(pool_.get(), repo.raw()); }

void PackagePool::create_whatprovides() { pool_createwhatprovides(pool_.get()); }

std::vector<SolvableId> PackagePool::whatprovides(DepId dep) const {
  std::vector<SolvableId> result;
  ::Pool* pool = pool_.get();
  for (Id* p = pool_whatprovides_ptr(pool, dep.raw()); *p != 0; ++p) result.emplace_back(*p);
  return result;
}

}  // namespace bevenv::solver::solv
