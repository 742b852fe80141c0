#pragma once
// One lock's view of the package sources, shared by the index search (index_search.cpp) and the
// pinning of artifacts (lock_index.cpp): the listings read so far, the sources curated packages
// are pinned to, and the helpers both use to read listings and to pick a release's file.
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bevenv/index/client.hpp"
#include "bevenv/index/package_source.hpp"
#include "bevenv/index/wheel.hpp"
#include "bevenv/matrix/model.hpp"
#include "lock_inputs.hpp"

namespace bevenv::app {

// Owns the records it adds, so it must outlive the Translation those records are added to.
struct IndexSession {
  std::unique_ptr<index::Reporter> reporter;
  // The network client of a real lock, kept for what reading cost (`-v`, `--json`); null when a
  // test gives `source` directly.
  std::unique_ptr<index::IndexClient> client;
  index::PackageSource* source = nullptr;          // what the lock reads: `client`, or a test's
  std::deque<matrix::PackageVersion> fetched;      // stable addresses for Translation::records
  std::map<std::string, index::Listing> listings;  // by normalized name
  // Sources profile and matrix records name, in the form IndexSettings takes.
  std::map<std::string, std::vector<index::Source>> pinned;
  // Releases left out because their archive cannot say what they need (`NAME VERSION`: why).
  std::vector<std::string> skipped;
  // Packages no source lists that only releases never chosen asked for (`-v`).
  std::vector<std::string> unlisted;
  // How the lazy search went: solves made, and metadata files read (`-v`, `--json`).
  std::size_t solves = 0;
  std::size_t metadata_reads = 0;
};

// Ends the session's transfers and progress (handles, threads); what it read stays readable.
void close_transfers(IndexSession& session);

// The hint of an error no source explains better.
extern const char* const kSourcesHint;

// Throws core::Error(failure) `context + error`; the hint is the error's own when it brings one
// (a deadline, a size limit), else `fallback`.
[[noreturn]] void fail_reading(const std::string& context, const std::string& error,
                               const std::string& fallback);

// Lists the names not listed yet (curated ones from their pinned sources, else from a mirror of
// their page given with `--find-links`). Throws core::Error naming the package and the source
// when one cannot be read.
void list_missing(IndexSession& session, const std::vector<std::string>& names);

// Lists the names not listed yet and keeps what could be read: for curated records that are
// completed where their sources can be read, and left as the matrix has them where not.
void list_readable(IndexSession& session, const std::vector<std::string>& names);

// The listing of `name` (listed already); throws core::Error when no source lists it.
const index::Listing& listing_with_source(const IndexSession& session, const std::string& name);

// The artifact of one release that fits the target best: a wheel by tag rank, else an sdist.
const index::Artifact* best_artifact(const std::vector<const index::Artifact*>& files,
                                     const index::TagRanking& ranking, const core::Version& python);

index::TagRanking ranking_for(const LockInputs& inputs);

}  // namespace bevenv::app
