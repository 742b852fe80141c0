// Reading listings for a lock, and picking a release's file: shared by the index search and the
// pinning of artifacts.
#include "index_session.hpp"

#include <algorithm>

#include "bevenv/core/error.hpp"

namespace bevenv::app {

using core::Error;
using core::ExitCode;

const char* const kSourcesHint =
    "check the URL, or add the source with `--extra-index-url URL` or `--find-links URL|DIR`; "
    "`--offline` uses the download cache only";

void fail_reading(const std::string& context, const std::string& error,
                  const std::string& fallback) {
  auto [message, hint] = index::split_hint(error);
  throw Error(ExitCode::failure, context + message, hint.empty() ? fallback : hint);
}

void close_transfers(IndexSession& session) {
  session.source = nullptr;
  session.client.reset();
  session.reporter.reset();
}

namespace {

// The user's find-links pages and directories, asked for a curated package whose own page could
// not be read: a mirror of that page. Indexes are not asked, so PyPI's sdist never stands in for
// a CUDA wheel the matrix takes from its own page.
std::optional<core::Expected<index::Listing, std::string>> from_page_mirrors(
    IndexSession& session, const std::string& name) {
  std::vector<index::Source> mirrors;
  for (const auto& s : session.source->sources())
    if (s.kind != index::SourceKind::index) mirrors.push_back(s);
  if (mirrors.empty()) return std::nullopt;
  auto listed = session.source->list({name}, {{name, mirrors}});
  auto& found = listed.at(name);
  if (!found || !found->source) return std::nullopt;
  return std::move(found);
}

std::vector<std::string> not_listed(const IndexSession& session,
                                    const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& name : names) {
    if (session.listings.count(name) == 0 && std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(name);
  }
  return out;
}

}  // namespace

void list_missing(IndexSession& session, const std::vector<std::string>& names) {
  const std::vector<std::string> missing = not_listed(session, names);
  if (missing.empty()) return;
  auto listed = session.source->list(missing, session.pinned);
  for (auto& [name, listing] : listed) {
    if (!listing && session.pinned.contains(name)) {
      if (auto mirror = from_page_mirrors(session, name)) listing = std::move(*mirror);
    }
    if (!listing) {
      const std::string hint =
          session.pinned.contains(name)
              ? "the matrix takes `" + name +
                    "` from that page: pass a mirror of it with `--find-links URL|DIR`, which "
                    "stands in for it, or leave out the index options to lock from the embedded "
                    "matrix"
              : std::string(kSourcesHint);
      fail_reading("cannot read package `" + name + "`: ", listing.error(), hint);
    }
    session.listings.emplace(name, std::move(listing).value());
  }
}

void list_readable(IndexSession& session, const std::vector<std::string>& names) {
  const std::vector<std::string> missing = not_listed(session, names);
  if (missing.empty()) return;
  for (auto& [name, listing] : session.source->list(missing, session.pinned)) {
    if (listing) session.listings.emplace(name, std::move(listing).value());
  }
}

const index::Listing& listing_with_source(const IndexSession& session, const std::string& name) {
  const index::Listing& listing = session.listings.at(name);
  if (!listing.source) {
    throw Error(ExitCode::failure, "no source lists package `" + name + "`", kSourcesHint);
  }
  return listing;
}

const index::Artifact* best_artifact(const std::vector<const index::Artifact*>& files,
                                     const index::TagRanking& ranking,
                                     const core::Version& python) {
  const index::Artifact* best = nullptr;
  std::size_t best_rank = 0;
  const index::Artifact* sdist = nullptr;
  for (const index::Artifact* a : files) {
    if (a->yanked || !a->requires_python.contains(python, true)) continue;
    if (a->kind == index::ArtifactKind::sdist) {
      if (sdist == nullptr) sdist = a;
      continue;
    }
    const auto rank = ranking.rank(*a->wheel);
    if (rank && (best == nullptr || *rank < best_rank)) {
      best = a;
      best_rank = *rank;
    }
  }
  return best != nullptr ? best : sdist;
}

index::TagRanking ranking_for(const LockInputs& inputs) {
  return index::TagRanking(
      index::TargetTags::from(inputs.target.python, inputs.target.platform, inputs.target.glibc));
}

}  // namespace bevenv::app
