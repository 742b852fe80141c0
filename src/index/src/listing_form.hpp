#pragma once
// Index project pages as the download cache keeps them: the artifacts a page listed, in a
// binary form that a warm lock reads back without parsing JSON or HTML again (what libsolv's
// `.solv` files are to repodata for mamba). The page's validators stay beside it (cache.hpp), so
// it is revalidated like the page itself.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bevenv/index/project.hpp"

namespace bevenv::index::listing_form {

// The cache area; the number changes whenever the layout does, so an older entry is never
// misread (it is fetched again instead).
inline constexpr const char* kArea = "listings-v1";

std::string encode(const std::vector<Artifact>& artifacts);

// The artifacts of a page of `project`; nullopt when `bytes` are not what encode() wrote (a
// damaged entry): the caller reads the page again.
std::optional<std::vector<Artifact>> decode(std::string_view bytes, std::string_view project);

}  // namespace bevenv::index::listing_form
