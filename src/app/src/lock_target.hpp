#pragma once
// The target of a lock, from (strongest first) flags, BEVENV_CUDA_DRIVER / BEVENV_GPUS,
// bevenv.toml, this host's recorded facts, and this machine's driver and GPUs; with the lines that
// say where it came from.
#include <optional>
#include <string>
#include <vector>

#include "bevenv/app/target.hpp"
#include "bevenv/matrix/model.hpp"
#include "lock_target_observed.hpp"

namespace bevenv::app {

struct TargetChoice {
  TargetOverrides overrides;
  std::vector<std::string> notes;     // `detected ...`, a corrected driver version
  std::vector<std::string> warnings;  // no GPU for a GPU profile, detection failed
};

// Puts the values `from` sets over `into`, each labelled with where it came from: its own label
// when it carries one (a value an earlier lock recorded, lock_recorded.hpp), else the layer's.
void overlay_target(TargetOverrides& into, const TargetOverrides& from,
                    const std::string& label_python = {}, const std::string& label_driver = {},
                    const std::string& label_gpus = {});

// `project` is bevenv.toml's [target] (empty without one); `flags` the command line. With none
// of them (nor the environment), this host's `[[observed_host]]` record, else detection.
TargetChoice choose_target(const TargetOverrides& project, const TargetOverrides& flags,
                           const matrix::Matrix& matrix, const matrix::Profile* profile,
                           const LocalHost& here = LocalHost::current());

// `535.104.05` given where a CUDA version belongs: the CUDA version that driver supports (the
// newest toolkit whose minimum driver it meets), or nullopt when `text` is a CUDA version.
std::optional<std::string> cuda_of_driver_version(const std::string& text,
                                                  const matrix::Matrix& matrix);

}  // namespace bevenv::app
