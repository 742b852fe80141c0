#include "doctor_cli.hpp"

#include "bevenv/app/doctor.hpp"
#include "bevenv/app/doctor_cluster.hpp"

namespace bevenv::cli {
namespace {

struct DoctorFlags {
  std::vector<std::string> skip;
  app::DoctorOptions options;
  std::string probe, report, python, lockfile, profile, check, cuda_override, record_dir, log;
  int probe_timeout = 30;
  // --launcher: fan bevenv-probe out over a cluster through its own launcher.
  std::string launcher;
  int nodes = 1;
  int gpus_per_node = 1;
  bool run = false;
  int rank_timeout = 120;
  std::string master_addr;
  int master_port = 29500;
  std::vector<std::string> hosts;
  bool no_collective = false;
};

std::optional<std::string> given(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

// The options that take one word, in the order `--help` lists them; empty means not given.
struct TextOption {
  const char* name;
  std::string DoctorFlags::*value;
  const char* value_name;
  const char* help;
};

const TextOption kTextOptions[] = {
    {"--probe", &DoctorFlags::probe, "PATH",
     "bevenv-probe to run (default: BEVENV_PROBE, beside bevenv, PATH)"},
    {"--python", &DoctorFlags::python, "PATH",
     "Interpreter or environment to inspect (default: $VIRTUAL_ENV, python3)"},
    {"--lockfile", &DoctorFlags::lockfile, "FILE",
     "Lockfile to compare with (default: `bevenv.toml`'s `lockfile`, else bevenv.lock, if "
     "present)"},
    {"--profile", &DoctorFlags::profile, "NAME",
     "Profile whose needs to check (GPU memory, workers) when no lock names one"},
    {"--check", &DoctorFlags::check, "NAME",
     "Run one check by id (`shm`, `drift`) or failure id (`F12`)"},
    {"--report", &DoctorFlags::report, "FILE",
     "Judge a saved `bevenv-probe` report instead of running the probe"},
    {"--cuda-version-override", &DoctorFlags::cuda_override, "X.Y",
     "Make the probe report the driver as supporting at most CUDA X.Y (testing)"},
};

// The options that shape the launch line, each meaningless without `--launcher` and so each
// needing it. The list is evaluated in order, which is the order `--help` shows them in.
void add_launch_options(CLI::App& doctor, DoctorFlags& flags, CLI::Option* launcher) {
  CLI::Option* const launch_only[] = {
      doctor.add_option("--nodes", flags.nodes, "Nodes, with --launcher")
          ->check(CLI::Range(1, 100000)),
      doctor.add_option("--gpus-per-node", flags.gpus_per_node, "GPUs per node, with --launcher")
          ->check(CLI::Range(1, 1024)),
      doctor.add_flag("--run", flags.run, "Run the launch line here instead of printing it"),
      doctor
          .add_option("--rank-timeout", flags.rank_timeout,
                      "Seconds each rank may wait for rendezvous and collectives")
          ->check(CLI::Range(1, 86400)),
      doctor.add_option("--master-addr", flags.master_addr,
                        "First node's address (torchrun/mpirun over several nodes)"),
      doctor
          .add_option("--master-port", flags.master_port,
                      "The launcher's port; the probes' rendezvous uses the next one")
          ->capture_default_str()
          ->check(CLI::Range(1, 65534)),
      add_repeatable(doctor, "--host", flags.hosts, "HOST", "mpirun: a node, rank 0's first"),
      doctor.add_flag("--no-collective", flags.no_collective,
                      "Rendezvous and reports only, no all-reduce"),
  };
  for (CLI::Option* option : launch_only) option->needs(launcher);
}

}  // namespace

void add_doctor_commands(CLI::App& root, const GlobalOptions& global, Action& action) {
  auto flags = std::make_shared<DoctorFlags>();
  CLI::App* doctor = add_command(root, "doctor");
  for (const TextOption& option : kTextOptions) {
    doctor->add_option(option.name, (*flags).*option.value, option.help)
        ->type_name(option.value_name);
  }
  CLI::Option* check = doctor->get_option("--check");
  doctor
      ->add_option(
          "--skip", flags->skip,
          "Probes not to run, e.g. `--skip nccl` (host, driver, nvml, kernel, nccl, python)")
      ->delimiter(',')
      ->type_name("PROBE");
  doctor->add_flag("--import-torch", flags->options.import_torch,
                   "Import torch in the inspected Python to see that it loads (seconds); by "
                   "default its facts are read from its files");
  doctor->add_option("--probe-timeout", flags->probe_timeout, "Seconds each probe may take")
      ->capture_default_str()
      ->type_name("S")
      ->check(CLI::Range(1, 3600));
  auto* record = doctor
                     ->add_option("--record", flags->record_dir,
                                  "Store the verdicts as observed matrix facts (default dir: "
                                  "$XDG_DATA_HOME/bevenv/observed)")
                     ->expected(0, 1)
                     ->type_name("[DIR]");
  auto* log = doctor
                  ->add_option("--log", flags->log,
                               "Name the known failures in a training log or traceback "
                               "(`-`: standard input)")
                  ->type_name("FILE");
  log->excludes(check)->excludes(record);
  auto* launcher = doctor
                       ->add_option("--launcher", flags->launcher,
                                    "Run the probe on every rank through this launcher")
                       ->check(CLI::IsMember({"torchrun", "srun", "mpirun"}));
  launcher->excludes(log)->excludes(record);
  add_launch_options(*doctor, *flags, launcher);

  doctor->callback([&global, &action, flags, record] {
    if (!flags->log.empty()) {
      app::DoctorLogOptions log_options;
      log_options.matrix = matrix_options(global);
      log_options.log = flags->log;
      action = [log_options] { return app::doctor_log(log_options); };
      return;
    }
    app::DoctorOptions& options = flags->options;
    options.matrix = matrix_options(global);
    if (auto value = given(flags->probe)) options.probe = *value;
    if (auto value = given(flags->report)) options.report = *value;
    if (auto value = given(flags->lockfile)) options.lockfile = *value;
    options.python = given(flags->python);
    options.profile = given(flags->profile);
    options.check = given(flags->check);
    options.skip = flags->skip;
    options.cuda_version_override = given(flags->cuda_override);
    options.probe_timeout = std::chrono::seconds(flags->probe_timeout);
    options.record = record->count() > 0;
    if (auto value = given(flags->record_dir)) options.record_dir = *value;
    options.include_report = global.json && global.verbose > 0;
    if (!flags->launcher.empty()) {
      action = [flags] {
        app::LaunchOptions launch;
        launch.launcher = flags->launcher;
        launch.nodes = flags->nodes;
        launch.gpus_per_node = flags->gpus_per_node;
        launch.run = flags->run;
        launch.probe = app::find_probe(flags->options.probe, {});
        launch.lockfile = flags->options.lockfile.value_or(app::default_lockfile());
        launch.timeout = std::chrono::seconds(flags->rank_timeout);
        launch.master_addr = flags->master_addr;
        launch.master_port = flags->master_port;
        launch.hosts = flags->hosts;
        launch.no_collective = flags->no_collective;
        launch.matrix = flags->options.matrix;
        if (flags->options.python) launch.python = *flags->options.python;
        return app::doctor_launch(launch);
      };
      return;
    }
    action = [flags] { return app::doctor(flags->options); };
  });
}

}  // namespace bevenv::cli
