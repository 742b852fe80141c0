#include "build_image_checks.hpp"

#include <cstdlib>

#include "bevenv/core/error.hpp"
#include "bevenv/core/fs.hpp"
#include "bevenv/core/sha256.hpp"
#include "bevenv/lockfiles/reader.hpp"
#include "bevenv/lockfiles/writer.hpp"
#include "bevenv/util/env.hpp"
#include "lock_inputs.hpp"
#include "lock_recorded.hpp"

namespace bevenv::app::detail {
namespace {

using core::Error;
using core::ExitCode;

std::size_t first_different_line(const std::string& a, const std::string& b) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i) {
    if (a[i] == '\n') ++line;
  }
  return line;
}

// The `content_hash` the file records, as written; empty when it has none.
std::string recorded_content_hash(const std::string& bytes) {
  const std::string key = "\ncontent_hash = \"";
  const auto at = bytes.find(key);
  if (at == std::string::npos) return {};
  const auto start = at + key.size();
  return bytes.substr(start, bytes.find('"', start) - start);
}

void check_content_hash(const CheckedLock& checked, const std::filesystem::path& path) {
  const std::string recorded = recorded_content_hash(checked.bytes);
  if (recorded.empty()) {
    throw Error(
        ExitCode::bad_input,
        "`" + path.string() + "` has no `content_hash`: an older bevenv or a person wrote it",
        "re-lock with `bevenv lock`");
  }
  if (recorded != lockfiles::content_hash(checked.lock)) {
    throw Error(ExitCode::bad_input,
                "`" + path.string() +
                    "` was edited after `bevenv lock` wrote it: its content no longer hashes to "
                    "the `content_hash` it records",
                "re-lock with `bevenv lock`; an edited lock is not what was resolved, so it is "
                "not built");
  }
}

}  // namespace

CheckedLock read_checked_lockfile(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) {
    throw Error(ExitCode::bad_input, "no lockfile at `" + path.string() + "`",
                "run `bevenv lock` first, or name the file with `--lockfile PATH`");
  }
  CheckedLock checked;
  checked.bytes = core::read_file(path);
  auto parsed = lockfiles::parse_lockfile(checked.bytes, path.string());
  if (!parsed) throw Error(ExitCode::bad_input, parsed.error().to_string(), parsed.error().hint);
  checked.lock = std::move(parsed).value();
  checked.digest = "sha256:" + core::sha256_hex(checked.bytes);
  check_content_hash(checked, path);
  // bevenv writes one canonical form; anything else was written by someone else.
  const std::string canonical = lockfiles::to_toml(checked.lock);
  if (canonical != checked.bytes) {
    throw Error(ExitCode::bad_input,
                "`" + path.string() +
                    "` was edited by hand: it differs from the form bevenv "
                    "writes from line " +
                    std::to_string(first_different_line(canonical, checked.bytes)),
                "re-create it with `bevenv lock` instead of editing it");
  }
  return checked;
}

InputCheck check_lock_inputs(const lockfiles::Lockfile& lock, const BuildImageOptions& options) {
  InputCheck result;
  // The request the lock recorded, made again: its indexes, its requirements, its target where
  // flags gave it, and `bevenv.toml` read again (an edited project target makes it stale).
  LockOptions base;
  base.matrix = options.matrix;
  base.project_file = options.project_file;
  const LockOptions relock = with_recorded_inputs(base, lock);
  std::string now;
  try {
    const LockInputs inputs = gather_lock_inputs(relock);
    if (inputs.profile != nullptr)
      result.workers_per_gpu = inputs.profile->dataloader_workers_per_gpu;
    now = input_hash(inputs);
  } catch (const Error& e) {
    result.note = std::string("the lock inputs could not be gathered (") + e.what() +
                  "), so the input hash was not re-checked";
    return result;
  }
  if (!options.check_inputs) {
    result.note = "input hash not re-checked (--no-input-check)";
    return result;
  }
  if (now != lock.input_hash) {
    throw Error(ExitCode::bad_input,
                "`" + options.lockfile.string() + "` is stale: its inputs hash to `" + now +
                    "` now, the file records `" + lock.input_hash + "`",
                "re-lock with `bevenv lock` (the matrix, profile, target or bevenv.toml changed); "
                "`--no-input-check` builds it as it is");
  }
  result.checked = true;
  return result;
}

std::int64_t source_date_epoch() {
  const auto given = util::env("SOURCE_DATE_EPOCH");
  if (!given) return 0;
  const char* text = given->c_str();
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < 0) {
    throw Error(ExitCode::bad_input,
                "`SOURCE_DATE_EPOCH` is `" + std::string(text) + "`, not a number of seconds",
                "set it to a Unix time, e.g. `SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)`");
  }
  return value;
}

}  // namespace bevenv::app::detail
