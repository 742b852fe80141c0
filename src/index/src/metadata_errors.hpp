#pragma once
// The phrases of the two metadata errors that make one release no candidate rather than the lock
// fail (index::unusable_release): written where the errors arise, matched by the search.
#include <string>
#include <string_view>

#include "bevenv/core/expected.hpp"
#include "bevenv/index/metadata.hpp"
#include "bevenv/index/project.hpp"

namespace bevenv::index::detail {

// An archive that is no sdist (no PKG-INFO, as some 2012 uploads): `ARCHIVE has no `PKG-INFO``.
inline constexpr std::string_view kNoPkgInfo = " has no `PKG-INFO`";
// Metadata of another release than the file name says, in the hint under that error.
inline constexpr std::string_view kAnotherRelease =
    "the source serves a file under another release's name";

// `metadata` when it describes the release `artifact`'s file name promises (otherwise the lock
// would pin one release and install another); else the error with kAnotherRelease's hint.
core::Expected<CoreMetadata, std::string> for_release(const Artifact& artifact,
                                                      core::Expected<CoreMetadata, std::string> m);

}  // namespace bevenv::index::detail
