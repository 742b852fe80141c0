#pragma once
// PEP 440 version specifiers and specifier sets, with pip's pre-release policy.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/core/expected.hpp"
#include "bevenv/core/version.hpp"

namespace bevenv::core {

enum class Operator : std::uint8_t {
  compatible,     // ~=
  equal,          // ==  (also ==X.*)
  not_equal,      // !=  (also !=X.*)
  less_equal,     // <=
  greater_equal,  // >=
  less,           // <
  greater,        // >
  arbitrary,      // ===
};

std::string_view operator_text(Operator op);

class Specifier {
 public:
  static Expected<Specifier, ParseError> parse(std::string_view text);
  // The specifier of parts a parse found, kept by a form bevenv writes itself (the matrix
  // image): `version` is `version_text` parsed (without `.*`), absent exactly for `===`.
  static Specifier from_parts(Operator op, bool wildcard, std::string version_text,
                              std::optional<Version> version);

  Operator op() const { return op_; }
  bool is_wildcard() const { return wildcard_; }                      // ==1.9.* / !=1.9.*
  const std::optional<Version>& version() const { return version_; }  // absent only for ===
  const std::string& version_text() const { return version_text_; }   // as written (for ===)
  // Whether this specifier alone names a pre-release (`>=1.0rc1`): pip then allows them.
  bool mentions_prerelease() const;

  // Pure PEP 440 membership, ignoring the pre-release policy.
  bool matches(const Version& v) const;
  std::string to_string() const;  // as packaging's str(): operator + version as written

 private:
  Operator op_ = Operator::equal;
  bool wildcard_ = false;
  std::optional<Version> version_;
  std::string version_text_;
};

class SpecifierSet {
  static constexpr std::vector<Specifier> kNoSpecifiers{};

 public:
  SpecifierSet() = default;
  // Comma-separated specifiers; empty text is the set that matches everything.
  static Expected<SpecifierSet, ParseError> parse(std::string_view text);

  const std::vector<Specifier>& specifiers() const {
    return specifiers_ ? *specifiers_ : kNoSpecifiers;
  }
  // The same for sets that share one list (copies of one set); sets with equal specifiers may
  // still have different identities. Null for an empty set.
  const void* identity() const { return specifiers_.get(); }
  bool empty() const { return !specifiers_ || specifiers_->empty(); }
  // The same specifiers in the same order, each as written (one shared list is, unread).
  bool same_as_written(const SpecifierSet& other) const;

  // packaging 26's SpecifierSet.contains(v, prereleases): when `prereleases` is unset, a
  // pre-release that matches is accepted; only `false` rejects it. pip's stricter policy is
  // filter()'s (the solver uses that one).
  bool contains(const Version& v, std::optional<bool> prereleases = std::nullopt) const;
  // packaging's SpecifierSet.filter: pre-releases are kept only when asked, when a specifier
  // mentions one, or when nothing else matches (pip's fallback).
  std::vector<Version> filter(const std::vector<Version>& candidates,
                              std::optional<bool> prereleases = std::nullopt) const;

  void add(Specifier s) { own().push_back(std::move(s)); }
  void reserve(std::size_t count) { own().reserve(count); }
  SpecifierSet intersect(const SpecifierSet& other) const;
  std::string to_string() const;  // canonical: sorted as packaging's str(SpecifierSet) does

 private:
  // The list, unshared first (a copy made to be changed).
  std::vector<Specifier>& own();

  // Shared by copies, so that copying a set (every requirement a lock turns into a solver
  // dependency) costs a reference count; written only while unshared. Null: no specifier.
  std::shared_ptr<std::vector<Specifier>> specifiers_;
};

}  // namespace bevenv::core
