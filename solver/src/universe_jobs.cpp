// The job queue of a Universe: what the request asks (root requirements, forbids), what the
// target fixes (system records) and the preferences, in the order libsolv's rules need.
#include "solv/jobs.hpp"
#include "universe.hpp"

namespace bevenv::solver::detail {

using solv::JobAction;

void Universe::add_jobs() {
  // Root requirements come first, so that job i + 1 is requirement i (see root_dep()).
  for (std::size_t i = 0; i < request_.requirements.size(); ++i) {
    add_dep_job(JobAction::install, root_deps_[i], JobKind::requirement, i);
  }
  for (std::size_t i = 0; i < request_.conflicts.size(); ++i) {
    if (request_.conflicts[i].other) continue;
    add_dep_job(JobAction::erase, keys_.dep_of(request_.conflicts[i].subject, false, true),
                JobKind::forbid, i);
  }
  if (!ladders_.laddered().empty()) {
    jobs_.add(JobAction::multiversion, pool_.list_id(ladders_.laddered()));
    job_infos_.push_back({JobKind::preference, 0, {}});
  }
  add_record_jobs();
  add_prerelease_job();
  // libsolv lets the last favor/disfavor job win, so the request's preferences come last.
  for (std::size_t i = 0; i < request_.disfavored.size(); ++i) {
    const Preference& p = request_.disfavored[i];
    add_dep_job(JobAction::disfavor, keys_.dep_of({p.name, p.versions, {}}, false, false),
                JobKind::preference, i);
  }
  add_preference_jobs(0);
}

// Jobs select their solvables as explicit lists: libsolv gives namespace relations in jobs
// special meaning (an install job whose relation resolves to nothing counts as satisfied).
void Universe::add_dep_job(JobAction action, DepId dep, JobKind kind, std::size_t index) {
  jobs_.add(action, pool_.list_id(pool_.whatprovides(dep)));
  job_infos_.push_back({kind, index, dep});
}

// System records are kept, and the records' own preferences applied.
void Universe::add_record_jobs() {
  const auto& records = database_.records();
  for (RecordId id = 0; id < records.size(); ++id) {
    const SolvableId solvable = solvable_of_record_[id];
    if (solvable.is_none()) continue;
    if (records[id].kind == RecordKind::system) {
      // Kept as installed, or (no installed repo, see add_records) installed by the job.
      jobs_.add(system_is_installed_ ? JobAction::lock : JobAction::install, solvable);
      job_infos_.push_back({JobKind::lock, id, {}});
    }
    if (records[id].preferred) {
      jobs_.add(JobAction::favor, solvable);
      job_infos_.push_back({JobKind::preference, id, {}});
    }
    if (records[id].disfavored) {
      jobs_.add(JobAction::disfavor, solvable);
      job_infos_.push_back({JobKind::preference, id, {}});
    }
  }
}

// Pre-releases are tried last (pip prefers final releases), unless allowed for their name.
void Universe::add_prerelease_job() {
  const auto& records = database_.records();
  std::vector<SolvableId> prereleases;
  for (RecordId id = 0; id < records.size(); ++id) {
    const SolvableId solvable = solvable_of_record_[id];
    if (!solvable.is_none() && records[id].is_prerelease() &&
        !prereleases_.allows_all(records[id].name)) {
      prereleases.push_back(solvable);
    }
  }
  if (prereleases.empty()) return;
  jobs_.add(JobAction::disfavor, pool_.list_id(prereleases));
  job_infos_.push_back({JobKind::preference, 0, {}});
}

void Universe::add_preference_jobs(std::size_t first) {
  for (std::size_t i = first; i < request_.preferred.size(); ++i) {
    const Preference& p = request_.preferred[i];
    const DepId dep = keys_.dep_of({p.name, p.versions, {}}, false, false);
    jobs_.add(JobAction::favor, pool_.list_id(pool_.whatprovides(dep)));
    job_infos_.push_back({JobKind::preference, i, dep});
  }
}

}  // namespace bevenv::solver::detail
