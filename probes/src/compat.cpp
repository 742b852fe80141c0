// GPU architecture coverage, and the driver floor lookup over the table the caller passes.
#include <array>
#include <cctype>
#include <string_view>

#include "rules.hpp"

namespace bevenv::probes {
namespace {

struct ArchEntry {
  bool sass = false;
  int major = 0;
  int minor = 0;
  bool exact = false;  // sm_90a: arch-specific SASS runs on exactly that GPU
};

// "sm_86", "compute_80", "sm_90a", "8.6", "8.0+PTX" -> entries; unknown text -> none.
std::vector<ArchEntry> parse_arch(std::string text) {
  std::vector<ArchEntry> out;
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto digits_to_entry = [](const std::string& digits, bool sass, bool exact) {
    ArchEntry entry;
    entry.sass = sass;
    entry.exact = exact;
    entry.major = rules::leading_number(digits.substr(0, digits.size() - 1));
    entry.minor = digits.back() - '0';
    return entry;
  };
  for (const std::string_view prefix : {"sm_", "compute_"}) {
    if (text.rfind(prefix, 0) != 0) continue;
    std::string rest = text.substr(prefix.size());
    bool exact = false;
    while (!rest.empty() && std::isalpha(static_cast<unsigned char>(rest.back()))) {
      exact = true;
      rest.pop_back();
    }
    if (rest.size() < 2 || rest.find_first_not_of("0123456789") != std::string::npos) return out;
    out.push_back(digits_to_entry(rest, prefix == "sm_", exact));
    return out;
  }
  const bool ptx = text.size() > 4 && text.substr(text.size() - 4) == "+ptx";
  if (ptx) text.resize(text.size() - 4);
  const auto dot = text.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 2 != text.size()) return out;
  const std::string digits = text.substr(0, dot) + text.substr(dot + 1);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return out;
  out.push_back(digits_to_entry(digits, true, false));
  if (ptx) out.push_back(digits_to_entry(digits, false, false));
  return out;
}

}  // namespace

std::optional<std::string> Expectations::minimum_driver_for_cuda(const std::string& cuda) const {
  const auto wanted = rules::major_minor(cuda);
  for (const auto& floor : driver_floors) {
    if (rules::major_minor(floor.cuda) == wanted) return floor.driver;
  }
  return std::nullopt;
}

ArchSupport arch_support(const std::string& sm, const std::vector<std::string>& compiled_archs) {
  const auto gpu = parse_arch(sm);
  if (gpu.empty()) return ArchSupport::none;
  const int major = gpu.front().major;
  const int minor = gpu.front().minor;
  bool ptx = false;
  for (const auto& text : compiled_archs) {
    for (const auto& entry : parse_arch(text)) {
      if (entry.sass && entry.major == major &&
          (entry.exact ? entry.minor == minor : entry.minor <= minor)) {
        return ArchSupport::sass;
      }
      if (!entry.sass && (entry.major < major || (entry.major == major && entry.minor <= minor))) {
        ptx = true;
      }
    }
  }
  return ptx ? ArchSupport::ptx_jit : ArchSupport::none;
}

}  // namespace bevenv::probes
