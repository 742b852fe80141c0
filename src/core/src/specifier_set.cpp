#include <algorithm>
#include <string>
#include <unordered_set>

#include "bevenv/core/specifier.hpp"
#include "pep440_text.hpp"

namespace bevenv::core {
namespace {

// packaging's Specifier equality: `===` and wildcards compare as written, `~=` by the
// normalized version, the others by the normalized version without trailing zeros.
std::string canonical_key(const Specifier& spec) {
  std::string key(operator_text(spec.op()));
  key += ' ';
  if (spec.op() == Operator::arbitrary || spec.is_wildcard()) {
    key += spec.version_text();
    return key;
  }
  const Version& v = *spec.version();
  if (spec.op() == Operator::compatible) {
    key += v.to_string();
    return key;
  }
  std::vector<std::uint64_t> release = v.release();
  while (release.size() > 1 && release.back() == 0) release.pop_back();
  if (v.epoch() != 0) key += std::to_string(v.epoch()) + "!";
  for (std::size_t i = 0; i < release.size(); ++i) {
    if (i != 0) key += '.';
    key += std::to_string(release[i]);
  }
  // The pre/post/dev/local tail follows the release in the canonical text.
  key += v.to_string().substr(v.base_version().to_string().size());
  return key;
}

bool any_mentions_prerelease(const std::vector<Specifier>& specs) {
  return std::any_of(specs.begin(), specs.end(),
                     [](const Specifier& s) { return s.mentions_prerelease(); });
}

}  // namespace

std::vector<Specifier>& SpecifierSet::own() {
  if (!specifiers_) {
    specifiers_ = std::make_shared<std::vector<Specifier>>();
  } else if (specifiers_.use_count() > 1) {
    specifiers_ = std::make_shared<std::vector<Specifier>>(*specifiers_);
  }
  return *specifiers_;
}

Expected<SpecifierSet, ParseError> SpecifierSet::parse(std::string_view text) {
  SpecifierSet set;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t comma = text.find(',', begin);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(begin, comma - begin);
    // packaging drops empty items, so `>=1.0,,<2` and `,` parse.
    const std::size_t first = pep440::skip_spaces(item, 0);
    if (first != item.size()) {
      auto spec = Specifier::parse(item);
      if (!spec) {
        ParseError error = spec.error();
        error.column += pep440::to_parse_error(text, {"", begin}).column - 1;
        return unexpected(std::move(error));
      }
      set.add(std::move(spec.value()));
    }
    begin = comma + 1;
  }
  return set;
}

bool SpecifierSet::same_as_written(const SpecifierSet& other) const {
  if (identity() == other.identity()) return true;
  const std::vector<Specifier>& a = specifiers();
  const std::vector<Specifier>& b = other.specifiers();
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Specifier& x, const Specifier& y) {
                      return x.op() == y.op() && x.is_wildcard() == y.is_wildcard() &&
                             x.version_text() == y.version_text();
                    });
}

bool SpecifierSet::contains(const Version& v, std::optional<bool> prereleases) const {
  // packaging 26: a lone version has no alternatives, so with the policy unset a pre-release
  // matches whenever the specifiers do; only an explicit `false` rejects it.
  if (prereleases == false && v.is_prerelease()) return false;
  const std::vector<Specifier>& all = specifiers();
  return std::all_of(all.begin(), all.end(), [&](const Specifier& s) { return s.matches(v); });
}

std::vector<Version> SpecifierSet::filter(const std::vector<Version>& candidates,
                                          std::optional<bool> prereleases) const {
  if (!prereleases && any_mentions_prerelease(specifiers())) prereleases = true;
  std::vector<Version> finals;
  std::vector<Version> pre_only;
  for (const Version& v : candidates) {
    if (prereleases == false && v.is_prerelease()) continue;
    if (!contains(v, true)) continue;
    if (prereleases == true || !v.is_prerelease()) {
      finals.push_back(v);
    } else if (finals.empty()) {
      pre_only.push_back(v);
    }
  }
  // Pre-releases come out only when no final release matched (PEP 440's recommendation).
  if (!prereleases && finals.empty()) return pre_only;
  return finals;
}

SpecifierSet SpecifierSet::intersect(const SpecifierSet& other) const {
  if (other.empty()) return *this;
  if (empty()) return other;
  SpecifierSet out = *this;
  std::vector<Specifier>& into = out.own();
  into.insert(into.end(), other.specifiers_->begin(), other.specifiers_->end());
  return out;
}

std::string SpecifierSet::to_string() const {
  std::vector<const Specifier*> sorted;
  const std::vector<Specifier>& all = specifiers();
  sorted.reserve(all.size());
  for (const Specifier& s : all) sorted.push_back(&s);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Specifier* a, const Specifier* b) {
    return a->to_string() < b->to_string();
  });
  std::unordered_set<std::string> seen;
  std::string out;
  for (const Specifier* s : sorted) {
    if (!seen.insert(canonical_key(*s)).second) continue;
    if (!out.empty()) out += ',';
    out += s->to_string();
  }
  return out;
}

}  // namespace bevenv::core
