#pragma once
// Package indexes in `bevenv lock`: solver records for the packages the matrix does not curate,
// read from their metadata until the dependency closure is complete, and the URL, sha256 and
// size of every pinned artifact. Off unless an index option is given, so a lock from the
// matrix alone never touches the network.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bevenv/app/lock.hpp"
#include "bevenv/index/settings.hpp"
#include "bevenv/lockfiles/model.hpp"
#include "index_session.hpp"
#include "lock_inputs.hpp"
#include "lock_translate.hpp"

namespace bevenv::app {

// The settings `options` ask for, over pip's configuration; nullopt when no index option is
// set (the lock then comes from the matrix alone).
std::optional<index::IndexSettings> index_settings(const LockOptions& options,
                                                   const LockInputs& inputs);
// A curated package comes only from the sources its matrix records name: those of the records
// this request may choose, or (when none may) all of them, so the solver can explain.
std::map<std::string, std::vector<index::Source>> pinned_sources(const LockInputs& inputs);
std::unique_ptr<IndexSession> open_index(const LockOptions& options, const LockInputs& inputs);

// Adds solver records for uncurated packages, from the first source listing each (curated
// packages come only from the sources their matrix records name): every version with a file
// that fits the target and that the specifiers allow (for a root package, all its root
// specifiers; for another, any dependent's). Curated records whose dependency list is not
// complete get the requirements their metadata names and the matrix does not, where that
// metadata is cheap: a PEP 658 file, a local file, byte ranges of a remote wheel or the cache.
// Throws core::Error (failure) naming the source and URL when a source cannot be read. The
// search itself is IndexSearch (index_search.hpp), which reads through session.source.
//
// add_index_records() reads the metadata of every candidate, breadth first, before any solve
// (`--read-all-metadata`). solve_with_index() reads only what solves choose: it solves with
// what is known, reads the chosen releases nobody read yet in one batch, and solves again until
// the solution stands on metadata alone; an unsolvable request is solved again over everything,
// so its explanation is the eager one's. `before_solving` runs once, after the first reads and
// before the first solve: what only the solves read (the replaced lock's pins, preferences) is
// added there, so the lock being replaced is read on its thread while the pages are.
void add_index_records(IndexSession& session, const LockInputs& inputs, Translation& translation);
std::variant<solver::Solution, solver::Unsolvable> solve_with_index(
    IndexSession& session, const LockInputs& inputs, Translation& translation,
    const std::function<void()>& before_solving);

// Gives every package of `lock` the artifact that fits the target (best wheel, else an sdist
// with a build step) with URL, sha256 and size, and the source it comes from. A curated
// sha256 must match the source's file. Throws core::Error when a pinned version has no
// artifact, or a hash does not match.
void attach_artifacts(IndexSession& session, const LockInputs& inputs, lockfiles::Lockfile& lock);

// The build step that installs a pinned sdist (after its dependencies), for the index path and
// the generated layer's sdist-only releases alike.
lockfiles::BuildStep sdist_build(const lockfiles::Package& p, const lockfiles::Artifact& sdist);

}  // namespace bevenv::app
