#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <variant>

#include "bevenv/app/lock.hpp"
#include "bevenv/app/project_file.hpp"
#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/lockfiles/diff.hpp"
#include "bevenv/lockfiles/pins.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "bevenv/lockfiles/writer.hpp"
#include "bevenv/solver/solve.hpp"
#include "bevenv/util/exit_time.hpp"
#include "lock_extras.hpp"
#include "lock_generated.hpp"
#include "lock_index.hpp"
#include "lock_inputs.hpp"
#include "lock_keep.hpp"
#include "lock_recorded.hpp"
#include "lock_result.hpp"
#include "lock_translate.hpp"
#include "lock_unsolvable.hpp"

namespace bevenv::app {
namespace {

namespace fs = std::filesystem;
using core::ExitCode;

// Packages worth naming on the summary line, in this order, when present.
constexpr const char* kHeadline[] = {"python", "torch",      "torchvision", "mmcv-full",
                                     "mmcv",   "mmdet",      "mmseg",       "mmdet3d",
                                     "numpy",  "setuptools", "yapf"};

std::string headline(const lockfiles::Lockfile& lock) {
  std::string line;
  for (const char* name : kHeadline) {
    if (const auto* p = lock.find_package(name)) {
      line += (line.empty() ? "" : " · ") + p->name + " " + p->version;
      if (!p->variant.empty() && p->version.find('+') == std::string::npos) {
        line += " (" + p->variant + ")";
      }
    }
  }
  return line;
}

std::string avoided_line(const lockfiles::Lockfile& lock) {
  std::string list;
  std::size_t count = 0;
  for (const auto& rule : lock.rules_applied) {
    if (rule.effect.rfind("not ", 0) != 0) continue;
    ++count;
    list += (list.empty() ? "" : ", ") + rule.effect.substr(4);
    if (!rule.failure.empty()) list += " (" + rule.failure + ")";
  }
  if (count == 0) return {};
  return "avoided " + std::to_string(count) + " known-bad pin" + (count == 1 ? "" : "s") + ": " +
         list;
}

nlohmann::json packages_json(const lockfiles::Lockfile& lock) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : lock.packages) {
    out.push_back({{"name", p.name}, {"version", p.version}, {"variant", p.variant}});
  }
  return out;
}

CommandOutput check_against_disk(const LockInputs& inputs, const lockfiles::Lockfile& fresh) {
  CommandOutput out;
  const std::string path = inputs.output.string();
  if (!fs::exists(inputs.output)) {
    out.exit_code = ExitCode::problem_found;
    out.add("`" + path + "` does not exist", Mark::problem);
    out.hint("fix: run `bevenv lock` to create it");
    out.json = {{"status", "missing"}, {"lockfile", path}};
    return out;
  }
  const std::string on_disk = core::read_file(inputs.output);
  auto old = lockfiles::parse_lockfile(on_disk, path);
  // The same lock asked in other words (`--python 3.8` left out where the profile says 3.8) is
  // up to date: `[inputs]` records how it was asked, not what it holds.
  lockfiles::Lockfile same_request = fresh;
  if (old) same_request.inputs = old.value().inputs;
  if (on_disk == lockfiles::to_toml(same_request)) {
    out.add("`" + path + "` is up to date (input hash " + fresh.input_hash.substr(7, 12) + ")",
            Mark::ok);
    out.json = {{"status", "up-to-date"}, {"lockfile", path}, {"input_hash", fresh.input_hash}};
    return out;
  }
  out.exit_code = ExitCode::problem_found;
  out.add("`" + path + "` is stale: a re-lock would change it", Mark::problem);
  nlohmann::json changes = nlohmann::json::array();
  if (old) {
    for (const auto& change : lockfiles::diff_lockfiles(old.value(), same_request)) {
      out.add(change.text, Mark::none, 1);
      changes.push_back(change.text);
    }
  } else {
    out.add("the file on disk does not parse: " + old.error().to_string(), Mark::none, 1);
  }
  out.hint("fix: run `bevenv lock` to update it");
  out.json = {{"status", "stale"}, {"lockfile", path}, {"changes", changes}};
  return out;
}

std::string mib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

// What reading the indexes cost, for `-v` and `--json`: requests, bytes, and how metadata was
// read where no PEP 658 file is published.
void add_index_costs(CommandOutput& out, const IndexSession& index) {
  if (index.client == nullptr) return;  // a source given directly: nothing crossed a network
  const index::Transport& transport = index.client->transport();
  const index::MetadataStats& stats = index.client->metadata_stats();
  out.add("indexes: " + std::to_string(transport.network_transfers()) + " requests, " +
              mib(transport.bytes_received()) + " received; METADATA of " +
              std::to_string(stats.by_range) + " wheel(s) read by byte ranges (" +
              mib(stats.range_bytes) + "), " + std::to_string(stats.whole_downloads) +
              " archive(s) downloaded whole for their metadata",
          Mark::none, 1)
      .verbose_only = true;
  out.add("metadata of " + std::to_string(index.metadata_reads) + " release(s) read, " +
              std::to_string(index.solves) + " solve(s)",
          Mark::none, 1)
      .verbose_only = true;
  if (!index.unlisted.empty()) {
    out.add("no source lists " + quoted_list(index.unlisted) +
                ": only releases never chosen asked for them",
            Mark::none, 1)
        .verbose_only = true;
  }
  for (const auto& host : stats.no_ranges) {
    out.add("`" + host + "` ignores range requests: its wheels were downloaded whole", Mark::none,
            1)
        .verbose_only = true;
  }
  out.json["index"] = {{"requests", transport.network_transfers()},
                       {"bytes_received", transport.bytes_received()},
                       {"metadata_by_range", stats.by_range},
                       {"range_bytes", stats.range_bytes},
                       {"whole_downloads", stats.whole_downloads},
                       {"metadata_reads", index.metadata_reads},
                       {"solves", index.solves}};
}

// Chosen packages whose requirement list no wheel's METADATA vouches for: never silent (a source
// build's needs are what its commands install; an sdist's PKG-INFO may leave them to setup.py).
std::vector<std::string> requirements_not_complete(const Translation& translation,
                                                   const solver::Solution& solution) {
  std::vector<std::string> out;
  for (const auto& chosen : solution.packages) {
    const matrix::PackageVersion* record = translation.records.find(chosen.record);
    if (record == nullptr) continue;
    const matrix::PackageVersion& build = *record;
    if (build.deps_complete || build.build == matrix::BuildKind::source) continue;
    out.push_back(build.name + " " + build.version.to_string());
  }
  return out;
}

// Pins that moved, first ten shown (the rest with -v): a re-lock should change little, and
// what it changes is what to review.
void report_pin_changes(CommandOutput& out, const std::vector<std::string>& changes) {
  constexpr std::size_t kShown = 10;
  out.json["pin_changes"] = changes;
  if (changes.empty()) {
    out.add("no pin changed", Mark::none, 1).verbose_only = true;
    return;
  }
  out.add(std::to_string(changes.size()) + " pin(s) changed:", Mark::none, 1);
  for (std::size_t i = 0; i < changes.size(); ++i) {
    out.add(changes[i], Mark::none, 2).verbose_only = i >= kShown;
  }
  if (changes.size() > kShown) {
    out.add("... and " + std::to_string(changes.size() - kShown) + " more (`-v` lists them)",
            Mark::none, 2);
  }
}

using Clock = std::chrono::steady_clock;

// What the lock this run replaces pins. When the command names what to lock, it is read on a
// second thread (lockfiles::read_pins: a scan of the writer's own layout, else a toml++ read of
// 10-20 ms for 170 packages) and waited for only where its pins are first needed. Its value is
// left to the operating system at exit, like the inputs; the reading thread is always joined
// first.
class ReplacedLock {
 public:
  explicit ReplacedLock(std::optional<lockfiles::PinnedLock> read)
      : value_(hold(std::move(read))) {}
  explicit ReplacedLock(std::future<std::optional<lockfiles::PinnedLock>> reading)
      : reading_(std::move(reading)) {}
  ReplacedLock(const ReplacedLock&) = delete;
  ReplacedLock& operator=(const ReplacedLock&) = delete;
  ~ReplacedLock() {
    if (reading_.valid()) reading_.wait();
    util::done_with(std::move(value_));
  }

  // Null when there is none, or none that reads.
  const lockfiles::PinnedLock* get() {
    if (reading_.valid()) value_ = hold(reading_.get());
    return value_ && *value_ ? &**value_ : nullptr;
  }

 private:
  using Held = std::unique_ptr<std::optional<lockfiles::PinnedLock>>;
  static Held hold(std::optional<lockfiles::PinnedLock> lock) {
    return std::make_unique<std::optional<lockfiles::PinnedLock>>(std::move(lock));
  }
  std::future<std::optional<lockfiles::PinnedLock>> reading_;
  Held value_;
};

// The resolution: the matrix's records, the index's where one is given, the old lock's pins.
struct Resolution {
  const LockInputs* inputs = nullptr;  // what it was made from
  Translation translation;
  std::unique_ptr<IndexSession> index;  // null when no package index is given
  std::variant<solver::Solution, solver::Unsolvable> result;
};

Resolution resolve_in(RecordScope scope, const LockOptions& options, const LockInputs& inputs,
                      ReplacedLock& replaced) {
  std::unique_ptr<IndexSession> index = open_index(options, inputs);
  // The replaced lock's pins are preferences, which only the solves read.
  std::vector<solver::Preference> previous_pins;
  if (const lockfiles::PinnedLock* previous = replaced.get())
    previous_pins = previous_pin_preferences(inputs, *previous, options);
  // Package indexes: records for uncurated packages, read as solves need them (lock_index.cpp).
  if (index && !options.read_all_metadata) {
    Resolution out{
        &inputs, translate(inputs, requested_extras(inputs), scope), std::move(index), {}};
    out.result = solve_with_index(*out.index, inputs, out.translation, [&] {
      keep_previous_pins(out.translation, std::move(previous_pins));
    });
    return out;
  }
  // Offline, extras are records of their own, so one solve settles them, and over the
  // installable records alike versions are merged: the releases a newer one stands for make no
  // record (lock_stand_ins.hpp). (Over all records, the explanation of an unsolvable request
  // names each version. The index search reads extras as it goes.)
  const bool merges_alike = !index && scope == RecordScope::installable;
  Resolution out{
      &inputs,
      translate(inputs, requested_extras(inputs), scope, merges_alike ? &previous_pins : nullptr),
      std::move(index),
      {}};
  Translation& translation = out.translation;
  if (translation.needs_whole_matrix) return out;
  keep_previous_pins(translation, std::move(previous_pins));
  if (out.index) add_index_records(*out.index, inputs, translation);
  if (!out.index) add_extra_records(translation, inputs);
  if (merges_alike) merge_alike_versions(translation);
  out.result = solve_with_preferences(translation, inputs);
  return out;
}

// Offline, the records the target rules out are left out of the solve; when no environment
// exists, the explanation is made over all of them, so it can say why each was ruled out. Both
// read the whole matrix where the first inputs lack releases they need.
Resolution resolve(const LockOptions& options, GatheredInputs& gathered, ReplacedLock& replaced) {
  const bool offline = gathered.first().index_sources.empty();
  Resolution out = resolve_in(offline ? RecordScope::installable : RecordScope::all, options,
                              gathered.first(), replaced);
  if (out.translation.needs_whole_matrix)
    out = resolve_in(RecordScope::installable, options, gathered.whole(), replaced);
  if (offline && std::holds_alternative<solver::Unsolvable>(out.result))
    out = resolve_in(RecordScope::all, options, gathered.whole(), replaced);
  return out;
}

// The notes under the headline: doctor's observations used, PTX-only builds, a port's caveats.
void add_lock_notes(CommandOutput& out, const LockInputs& inputs, const Translation& translation,
                    const solver::Solution& solution) {
  if (translation.observed_failures + translation.observed_successes > 0) {
    out.add("used " + std::to_string(translation.observed_failures) + " observed failure(s) and " +
                std::to_string(translation.observed_successes) +
                " observed success(es) from `bevenv doctor --record`",
            Mark::none, 1);
  }
  for (const auto& [id, archs] : translation.ptx_only) {
    const auto& record = translation.database.record(id);
    if (const auto* chosen = solution.find(record.name); chosen && chosen->record == id) {
      out.add(record.name + " " + record.version.to_string() + " has no SASS for " + archs +
                  ": kernels JIT-compile from PTX at start-up (F10)",
              Mark::warning, 1);
    }
  }
  if (inputs.profile != nullptr && !inputs.profile->port_of.empty()) {
    // A port changes the official stack: what its user must know is named where it is used.
    const auto& caveats = inputs.profile->caveats;
    out.add("`" + inputs.profile->name + "` ports `" + inputs.profile->port_of + "`" +
                (caveats.empty() ? std::string()
                                 : ": " + std::to_string(caveats.size()) +
                                       " caveat(s), first: " + caveats.front()) +
                " (`bevenv matrix profiles " + inputs.profile->name + "`)",
            Mark::warning, 1);
  }
}

CommandOutput written_output(const LockInputs& inputs, const Resolution& resolution,
                             const lockfiles::Lockfile& lock, const lockfiles::PinnedLock* previous,
                             double ms) {
  const auto& solution = std::get<solver::Solution>(resolution.result);
  CommandOutput out;
  char took[32];
  std::snprintf(took, sizeof took, "%.1f ms", ms);
  const std::size_t count = lock.packages.size();
  out.add("Resolved " + std::to_string(count) + (count == 1 ? " package" : " packages") + " for " +
          lock_subject(inputs) + " (" + inputs.target.describe() + ") in " + took);
  // The pins a reader looks for first; a request of other packages has none to name.
  if (const std::string pins = headline(lock); !pins.empty()) out.add(pins, Mark::none, 1);
  if (const std::string avoided = avoided_line(lock); !avoided.empty()) {
    out.add(avoided, Mark::none, 1);
  }
  add_lock_notes(out, inputs, resolution.translation, solution);
  out.add("Wrote `" + inputs.output.string() + "` (input hash " + lock.input_hash.substr(7, 12) +
          "); next: `bevenv why PACKAGE`, `bevenv export`");
  const std::vector<std::string> unsure =
      requirements_not_complete(resolution.translation, solution);
  if (!unsure.empty()) {
    out.add(
        "requirements not known to be complete (an sdist's PKG-INFO or a curated list, not a "
        "wheel's METADATA): " +
            quoted_list(unsure),
        Mark::warning, 1);
  }
  out.json = {{"status", "resolved"},
              {"lockfile", inputs.output.string()},
              {"input_hash", lock.input_hash},
              {"profile", lock.profile},
              {"target", inputs.target.describe()},
              {"elapsed_ms", ms},
              {"packages", packages_json(lock)},
              {"requirements_not_complete", unsure}};
  if (previous != nullptr) report_pin_changes(out, pin_changes(*previous, lock));
  if (resolution.index) {
    for (const auto& skipped : resolution.index->skipped)
      out.add("not a candidate: " + skipped, Mark::warning, 1);
    add_index_costs(out, *resolution.index);
  }
  return out;
}

// Closes an index session's transfers when the function that holds it returns. What it read
// (listings, releases) stays with the resolution, which may outlive the command: freeing it
// piece by piece took a warm index lock about a millisecond.
struct ClosedOnReturn {
  explicit ClosedOnReturn(IndexSession* closed) : session(closed) {}
  ClosedOnReturn(const ClosedOnReturn&) = delete;
  ClosedOnReturn& operator=(const ClosedOnReturn&) = delete;
  ~ClosedOnReturn() {
    if (session != nullptr) close_transfers(*session);
  }
  IndexSession* session;
};

CommandOutput resolve_and_write(const LockOptions& options, GatheredInputs& gathered,
                                ReplacedLock& replaced, Clock::time_point start) {
  // What the solve built is left to the operating system at exit; an index session is closed
  // on return (its transport's handles and threads must not outlive the command).
  const util::ScopeOrExit<Resolution> kept(resolve(options, gathered, replaced));
  const ClosedOnReturn index_closed{(*kept).index.get()};
  const Resolution& resolution = *kept;
  const LockInputs& inputs = *resolution.inputs;
  if (const auto* unsolvable = std::get_if<solver::Unsolvable>(&resolution.result)) {
    return unsatisfiable(options, inputs, *unsolvable);
  }
  const auto& solution = std::get<solver::Solution>(resolution.result);
  lockfiles::Lockfile lock = build_lockfile(inputs, resolution.translation, solution);
  // URL, sha256, size: from the sources (lock_index.cpp), else from the generated layer.
  if (resolution.index) {
    attach_artifacts(*resolution.index, inputs, lock);
  } else {
    attach_matrix_artifacts(inputs, lock);
  }
  if (options.check) return check_against_disk(inputs, lock);

  lockfiles::write_lockfile(inputs.output, lock);
  const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
  return written_output(inputs, resolution, lock, replaced.get(),
                        static_cast<double>(elapsed.count()) / 1000.0);
}

// The lock this run replaces, when there is one that reads; one that does not is said, and
// neither its pins nor its inputs are used.
// `read` is lockfiles::read_lockfile, or lockfiles::read_pins where the pins are all it needs.
template <class Read>
auto previous_lock(const fs::path& path, std::vector<Line>& notes, Read read)
    -> std::optional<decltype(read(path))> {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return std::nullopt;
  try {
    return read(path);
  } catch (const core::Error& e) {
    notes.push_back(
        {Mark::warning, 0,
         "`" + path.string() + "` does not read, so its pins and inputs are not used: " + e.what(),
         false, false});
    return std::nullopt;
  }
}

// The inputs recorded in a lock; when they cannot be gathered, what was said of that lock
// (it does not read, so it recorded nothing usable) goes with the error as its first causes.
LockInputs gathered_or_explained(const LockOptions& options, const std::vector<Line>& notes) {
  try {
    return gather_lock_inputs(options, MatrixReleases::without_stood_for);
  } catch (const core::Error& e) {
    if (notes.empty()) throw;
    std::vector<std::string> causes;
    for (const Line& note : notes) causes.push_back(note.text);
    causes.insert(causes.end(), e.causes().begin(), e.causes().end());
    throw core::Error(e.code(), e.what(), e.hint(), std::move(causes));
  }
}

}  // namespace

CommandOutput lock(const LockOptions& given) {
  const auto start = Clock::now();
  std::vector<Line> target;
  const fs::path path = given.output.value_or(default_lockfile(given.project_file));
  LockOptions options = given;
  std::optional<ReplacedLock> replaced;  // declared after what its reader writes to
  if (names_nothing_to_lock(given)) {
    std::optional<lockfiles::Lockfile> previous =
        previous_lock(path, target, lockfiles::read_lockfile);
    // Not naming what to lock asks again what the lock recorded, under the flags given.
    if (previous) {
      options = with_recorded_inputs(given, *previous);
      if (std::string note = recorded_inputs_note(*previous, path.string()); !note.empty()) {
        target.push_back({Mark::none, 0, std::move(note), false, false});
      }
    }
    replaced.emplace(previous ? std::optional(lockfiles::pins_of(*previous)) : std::nullopt);
  } else {
    replaced.emplace(std::async(std::launch::async, [&path, &target] {
      return previous_lock(path, target, lockfiles::read_pins);
    }));
  }
  GatheredInputs gathered(options,
                          names_nothing_to_lock(given)
                              ? gathered_or_explained(options, target)
                              : gather_lock_inputs(options, MatrixReleases::without_stood_for));
  const LockInputs& inputs = gathered.first();
  CommandOutput out = resolve_and_write(options, gathered, *replaced, start);
  replaced->get();  // its reader's notes are complete
  // Where the target came from goes to stderr, before anything else the command says there.
  for (const auto& note : inputs.target_notes)
    target.push_back({Mark::none, 0, note, false, false});
  for (const auto& warning : inputs.target_warnings)
    target.push_back({Mark::warning, 0, warning, false, false});
  out.diagnostics.insert(out.diagnostics.begin(), target.begin(), target.end());
  if (!inputs.target_notes.empty()) out.json["target_notes"] = inputs.target_notes;
  if (!inputs.target_warnings.empty()) out.json["target_warnings"] = inputs.target_warnings;
  return out;
}

}  // namespace bevenv::app
