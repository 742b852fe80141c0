#pragma once
// The words the matrix files and messages use for the model's enums: one table each, for
// model.cpp's `*_name` functions and for the readers' choices, so the two cannot disagree.
#include "bevenv/matrix/model.hpp"
#include "bevenv/util/enum_words.hpp"

namespace bevenv::matrix::detail {

inline constexpr util::EnumWord<Layer> kLayerWords[] = {
    {Layer::embedded, "embedded"}, {Layer::overlay, "overlay"}, {Layer::observed, "observed"}};
inline constexpr util::EnumWord<BuildKind> kBuildKindWords[] = {
    {BuildKind::wheel, "wheel"}, {BuildKind::sdist, "sdist"}, {BuildKind::source, "source"}};
inline constexpr util::EnumWord<RuleKind> kRuleKindWords[] = {{RuleKind::requires_, "requires"},
                                                              {RuleKind::conflicts, "conflicts"},
                                                              {RuleKind::prefer, "prefer"}};
inline constexpr util::EnumWord<MemoryBasis> kMemoryBasisWords[] = {
    {MemoryBasis::measured, "measured"},
    {MemoryBasis::reported, "reported"},
    {MemoryBasis::estimate, "estimate"}};

}  // namespace bevenv::matrix::detail
