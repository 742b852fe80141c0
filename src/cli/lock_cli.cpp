#include "bevenv/app/lock.hpp"
#include "bevenv/app/lockfile_commands.hpp"
#include "bevenv/util/heap.hpp"
#include "bevenv/util/small_blocks.hpp"
#include "commands.hpp"

namespace bevenv::cli {

void add_lock_commands(CLI::App& root, const GlobalOptions& global, Action& action) {
  auto lock_options = std::make_shared<app::LockOptions>();
  auto project = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto requirements_file = std::make_shared<std::string>();
  CLI::App* lock = add_command(root, "lock");
  lock->add_option("--profile", lock_options->profile, "Profile from the matrix (e.g. bevfusion)");
  add_repeatable(*lock, "--require", lock_options->requirements, "SPEC",
                 "Extra PEP 508 requirement");
  lock->add_option("-r,--requirements", *requirements_file, "Extra requirements file")
      ->type_name("FILE");
  lock->add_option("--python", lock_options->target.python, "Target Python (3.8 or 3.8.18)");
  lock->add_option("--cuda-driver", lock_options->target.cuda_driver,
                   "The driver's maximum CUDA version (nvidia-smi \"CUDA Version\")")
      ->type_name("X.Y");
  add_repeatable(*lock, "--gpu", lock_options->target.gpus, "sm_XY", "Target GPU architecture");
  lock->add_option("--platform", lock_options->target.platform, "linux_x86_64 or linux_aarch64");
  lock->add_option("--glibc", lock_options->target.glibc, "Target glibc version");
  lock->add_option("--project", *project, "Project file (default: ./bevenv.toml if present)")
      ->type_name("FILE");
  lock->add_option("-o,--output", *output, "Lockfile to write (default: bevenv.lock)")
      ->type_name("FILE");
  lock->add_flag("--check", lock_options->check,
                 "Do not write; exit 1 and show what would change if the lock is stale");
  lock->add_flag("-U,--upgrade", lock_options->upgrade,
                 "Let every package move to the newest version allowed (default: keep the lock's "
                 "pins)");
  add_repeatable(*lock, "-P,--upgrade-package", lock_options->upgrade_packages, "NAME",
                 "Let this package move, keeping the other pins");
  // Package indexes (src/app/src/lock_index.cpp): read only when one of these is given.
  lock->add_option("--index-url", lock_options->index_url,
                   "Default package index (PEP 503/691), instead of PyPI")
      ->type_name("URL");
  add_repeatable(*lock, "--extra-index-url", lock_options->extra_index_urls, "URL",
                 "Another index, searched before the default one");
  add_repeatable(*lock, "--find-links", lock_options->find_links, "URL|DIR",
                 "A page of links to wheels, or a local directory");
  lock->add_flag("--offline", lock_options->offline, "Use only the download cache");
  lock->add_flag("--no-index", lock_options->no_index, "Ignore indexes; use --find-links only");
  lock->add_flag("--read-all-metadata", lock_options->read_all_metadata,
                 "Read every candidate's metadata before solving (slower; the same lock)");
  lock->callback([&global, &action, lock_options, project, output, requirements_file] {
    if (!project->empty()) lock_options->project_file = *project;
    if (!output->empty()) lock_options->output = *output;
    if (!requirements_file->empty()) lock_options->requirements_file = *requirements_file;
    lock_options->matrix = matrix_options(global);
    lock_options->index_progress = !global.quiet && !global.json;
    action = [lock_options] {
      // A lock makes a hundred thousand small objects, some 10-20 MiB, and exits: a heap
      // grown once, in huge pages, spares it thousands of page faults, and small blocks from
      // the pool (operator_new.cpp) cost a pointer bump instead of the C library's bookkeeping
      // (a tenth of a lock's instructions). Only reserved address space: untouched, it costs no
      // RAM.
      util::prepare_heap(std::size_t{64} << 20);
      util::start_small_blocks(std::size_t{1} << 30);
      return app::lock(*lock_options);
    };
  });

  auto why_options = std::make_shared<app::WhyOptions>();
  auto why_lockfile = std::make_shared<std::string>();
  CLI::App* why = add_command(root, "why");
  why->add_option("package", why_options->package, "Package name")->required();
  add_lockfile_option(*why, *why_lockfile);
  why->callback([&action, why_options, why_lockfile] {
    action = [why_options, why_lockfile] {
      why_options->lockfile = lockfile_or_default(*why_lockfile);
      return app::why(*why_options);
    };
  });

  auto export_options = std::make_shared<app::ExportOptions>();
  auto export_lockfile = std::make_shared<std::string>();
  auto export_format = std::make_shared<std::string>("requirements");
  auto export_output = std::make_shared<std::string>();
  CLI::App* exp = add_command(root, "export");
  add_choice(*exp, "--format", *export_format, {"requirements", "pylock", "json"})
      ->capture_default_str();
  add_lockfile_option(*exp, *export_lockfile);
  exp->add_option("-o,--output", *export_output, "File to write (default: stdout)")
      ->type_name("FILE");
  exp->add_flag("!--no-hashes", export_options->hashes,
                "Leave out --hash lines (one file, nothing hash-checked)");
  exp->add_flag("--allow-unhashed", export_options->allow_unhashed,
                "pylock: keep files without a recorded sha256 (empty `hashes` table)");
  exp->callback([&action, export_options, export_lockfile, export_format, export_output] {
    export_options->format = *export_format == "json"     ? app::ExportFormat::json
                             : *export_format == "pylock" ? app::ExportFormat::pylock
                                                          : app::ExportFormat::requirements;
    if (!export_output->empty()) export_options->output = *export_output;
    action = [export_options, export_lockfile] {
      export_options->lockfile = lockfile_or_default(*export_lockfile);
      return app::export_lockfile(*export_options);
    };
  });
}

}  // namespace bevenv::cli
