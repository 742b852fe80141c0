#pragma once
// Pieces of the PEP 440 order that the specifier rules need one by one: packaging's sort key
// is (epoch, release without trailing zeros, pre/post/dev suffix, local), and `<`, `>`, `~=`
// and `==X.*` compare only some of those parts. Nothing here allocates.
#include <compare>
#include <cstddef>
#include <cstdint>

#include "bevenv/core/version.hpp"

namespace bevenv::core::pep440 {

// Epoch, then release numbers padded with zeros (so 2.0 and 2.0.0 compare equal).
std::strong_ordering compare_release(const Version& a, const Version& b);
// The release numbers of `v` at index `i`, zero beyond its end.
inline std::uint64_t release_at(const Version& v, std::size_t i) {
  return i < v.release().size() ? v.release()[i] : 0;
}

// The pre-release part of the key: dev-only releases sort before alpha, finals after rc.
struct PreRank {
  int rank = 3;
  std::uint64_t number = 0;
  auto operator<=>(const PreRank&) const = default;
};
PreRank pre_rank(const Version& v);

// Everything but the local label: what packaging compares for `<=` and for `==` without a
// local label in the specifier.
std::strong_ordering compare_public(const Version& a, const Version& b);
// `v` against the `.dev0` of `bound`'s public part (`1.0` -> `1.0.dev0`, `1.0.post1` ->
// `1.0.post1.dev0`): the upper end of `<bound` when bound is not a pre-release.
std::strong_ordering compare_with_dev0(const Version& v, const Version& bound);

}  // namespace bevenv::core::pep440
