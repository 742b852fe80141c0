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

Id PackagePool::intern(std::string_view text) {
  return pool_strn2id(pool_.get(), text.data(), static_cast<unsigned>(text.size()), 1);
}

std::string_view PackagePool::text(Id id) const { return pool_id2str(pool_.get(), id); }

Id PackagePool::namespace_dep(Id argument) {
  return pool_rel2id(pool_.get(), namespace_name_, argument, REL_NAMESPACE, 1);
}

Id PackagePool::namespace_argument(Id dep) const {
  // ISRELDEP/GETRELDEP, without their sign conversions.
  constexpr std::uint32_t rel_bit = 0x80000000u;
  const auto bits = static_cast<std::uint32_t>(dep);
  if ((bits & rel_bit) == 0) return 0;
  const ::Reldep* relation = pool_->rels + (bits ^ rel_bit);
  if (relation->flags != REL_NAMESPACE || relation->name != namespace_name_) return 0;
  return relation->evr;
}

void PackagePool::set_namespace_resolver(NamespaceResolver resolver) {
  resolver_ = std::move(resolver);
  pool_setnamespacecallback(pool_.get(), &PackagePool::resolve_namespace, this);
}

Id PackagePool::resolve_namespace(::Pool* pool, void* self, Id name, Id argument) {
  auto* me = static_cast<PackagePool*>(self);
  if (name != me->namespace_name_ || !me->resolver_) return 0;
  const std::vector<Id> matches = me->resolver_(argument);
  if (matches.empty()) return 0;
  Queue queue;
  for (Id p : matches) queue.push(p);
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

Id PackagePool::list_id(Queue& solvables) {
  return pool_queuetowhatprovides(pool_.get(), solvables.raw());
}

void PackagePool::set_installed(const Repo& repo) { pool_set_installed(pool_.get(), repo.raw()); }

void PackagePool::create_whatprovides() { pool_createwhatprovides(pool_.get()); }

std::vector<Id> PackagePool::whatprovides(Id dep) {
  std::vector<Id> result;
  ::Pool* pool = pool_.get();
  for (Id* p = pool_whatprovides_ptr(pool, dep); *p != 0; ++p) result.push_back(*p);
  return result;
}

}  // namespace bevenv::solver::solv
