#include "lock_target_observed.hpp"

#include <unistd.h>

#include <cctype>
#include <climits>

#include "bevenv/core/fs.hpp"

namespace bevenv::app {
namespace {

constexpr std::string_view kObservedPrefix = "observed on this host ";

bool is_driver_version(std::string_view word) {
  if (word.empty() || !std::isdigit(static_cast<unsigned char>(word.front()))) return false;
  std::size_t dots = 0;
  for (const char c : word) {
    if (c == '.') {
      ++dots;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return dots >= 1 && word.back() != '.';
}

std::string kernels_text(const matrix::ObservedHost& record) {
  std::string out;
  for (const auto& [arch, image] : record.kernels) {
    const std::string how = image == "fail" ? " kernel failed" : " kernel as " + image;
    out += (out.empty() ? "" : ", ") + arch + how;
  }
  return out;
}

}  // namespace

std::optional<std::string> driver_of_proc_version(const std::string& text) {
  // `NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue ...` (the open modules say
  // `Open Kernel Module for x86_64`): the first word after `NVRM version:` shaped as a version.
  const auto at = text.find("NVRM version:");
  if (at == std::string::npos) return std::nullopt;
  const auto line_end = text.find('\n', at);
  std::string_view line(text.data() + at,
                        (line_end == std::string::npos ? text.size() : line_end) - at);
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (is_driver_version(line.substr(i, j - i))) return std::string(line.substr(i, j - i));
    i = j + 1;
  }
  return std::nullopt;
}

LocalHost LocalHost::current() {
  LocalHost here;
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) == 0) here.hostname = name;
  // No driver loaded (or no /proc): nothing recorded can be confirmed.
  if (const auto text = core::try_read_file("/proc/driver/nvidia/version")) {
    here.loaded_driver = driver_of_proc_version(*text);
  }
  return here;
}

const matrix::ObservedHost* observed_host_for(const matrix::Matrix& matrix, const LocalHost& here) {
  const matrix::ObservedHost* newest = nullptr;
  if (here.hostname.empty()) return nullptr;
  for (const auto& record : matrix.observed_hosts) {
    if (record.hostname != here.hostname) continue;
    if (newest == nullptr || record.date >= newest->date) newest = &record;
  }
  return newest;
}

std::string observed_origin(const matrix::ObservedHost& record) {
  std::string text = std::string(kObservedPrefix) + record.date + ": driver " + record.driver;
  const std::string kernels = kernels_text(record);
  if (!kernels.empty()) text += ", " + kernels;
  return text;
}

}  // namespace bevenv::app

namespace bevenv::app {

bool is_observed_origin(const std::string& origin) { return origin.starts_with(kObservedPrefix); }

}  // namespace bevenv::app
