#pragma once
// Pages that the download cache keeps in a parsed form instead of their text: index project
// pages as their artifacts (listing_form.hpp), PEP 658 files as their core metadata
// (metadata_form.hpp). A page fetched anew is parsed from its text and its form committed; a
// cached form that no longer reads (or a PEP 658 file whose published hash changed) is dropped
// and the page fetched once more.
#include <optional>
#include <string>
#include <vector>

#include "bevenv/core/expected.hpp"
#include "bevenv/index/metadata.hpp"
#include "bevenv/index/project.hpp"
#include "bevenv/index/transport.hpp"
#include "metadata_form.hpp"

namespace bevenv::index::parsed_pages {

using Artifacts = core::Expected<std::vector<Artifact>, std::string>;
using MetadataSlot = std::optional<core::Expected<CoreMetadata, std::string>>;

// The artifacts of `names[i]` on the index page `requests[i]`. A project the index does not
// have (a 404) has none there; other failures are errors naming the project or the page.
std::vector<Artifacts> listings(Transport& transport, std::vector<PageRequest> requests,
                                const std::vector<std::string>& names);

// The PEP 658 files `requests[k]` of `artifacts[artifact_of[k]]`, into `out[artifact_of[k]]`:
// checked against the published sha256 when new, parsed, held to the release.
void metadata_files(Transport& transport, metadata_form::Reader& reader,
                    const std::vector<Artifact>& artifacts, std::vector<PageRequest> requests,
                    const std::vector<std::size_t>& artifact_of, std::vector<MetadataSlot>& out);

}  // namespace bevenv::index::parsed_pages
