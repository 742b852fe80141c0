#include "bevenv/core/gpu_arch.hpp"

#include <charconv>

namespace bevenv::core {
namespace {

bool parse_int(std::string_view text, int& out) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// `86`, or `8.6` when `dotted` (one minor digit).
std::optional<int> capability_of(std::string_view digits) {
  int capability = 0;
  const auto dot = digits.find('.');
  if (dot != std::string_view::npos) {
    int major = 0, minor = 0;
    if (!parse_int(digits.substr(0, dot), major) || !parse_int(digits.substr(dot + 1), minor) ||
        minor > 9 || dot + 2 != digits.size()) {
      return std::nullopt;
    }
    capability = major * 10 + minor;
  } else if (!parse_int(digits, capability)) {
    return std::nullopt;
  }
  if (capability < 10 || capability > 199) return std::nullopt;
  return capability;
}

}  // namespace

std::string GpuArch::name() const {
  std::string out = (ptx ? "compute_" : "sm_") + std::to_string(capability);
  if (suffix != 0) out += suffix;
  return out;
}

std::string GpuArch::dotted() const {
  return std::to_string(major()) + "." + std::to_string(minor());
}

std::optional<GpuArch> parse_gpu_arch(std::string_view text) {
  GpuArch arch;
  if (starts_with(text, "sm_")) {
    text.remove_prefix(3);
  } else if (starts_with(text, "compute_")) {
    text.remove_prefix(8);
    arch.ptx = true;
  } else if (text.find('.') == std::string_view::npos && text.size() > 3) {
    return std::nullopt;  // bare digits are a capability (`86`), not a long number
  }
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f') &&
      text.find('.') == std::string_view::npos) {
    arch.suffix = text.back();
    text.remove_suffix(1);
  }
  const auto capability = capability_of(text);
  if (!capability) return std::nullopt;
  arch.capability = *capability;
  return arch;
}

std::vector<GpuArch> parse_arch_entry(std::string_view text) {
  std::string lowered(text);
  for (auto& c : lowered) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  std::string_view entry = lowered;
  const bool with_ptx = entry.size() > 4 && entry.substr(entry.size() - 4) == "+ptx";
  if (with_ptx) entry.remove_suffix(4);
  const auto arch = parse_gpu_arch(entry);
  if (!arch) return {};
  if (!with_ptx) return {*arch};
  GpuArch ptx = *arch;
  ptx.ptx = true;
  ptx.suffix = 0;
  return {*arch, ptx};
}

ArchSupport arch_support(const GpuArch& gpu, const std::vector<GpuArch>& compiled) {
  bool jit = false;
  for (const GpuArch& arch : compiled) {
    if (!arch.ptx && arch.major() == gpu.major()) {
      const bool exact = arch.suffix == 'a';
      if (exact ? arch.capability == gpu.capability : arch.minor() <= gpu.minor()) {
        return ArchSupport::sass;
      }
    }
    if (arch.ptx && arch.capability <= gpu.capability) jit = true;
  }
  return jit ? ArchSupport::ptx_jit : ArchSupport::none;
}

ArchSupport arch_support(const GpuArch& gpu, const std::vector<std::string>& compiled) {
  std::vector<GpuArch> parsed;
  for (const auto& text : compiled) {
    for (const GpuArch& arch : parse_arch_entry(text)) parsed.push_back(arch);
  }
  return arch_support(gpu, parsed);
}

}  // namespace bevenv::core
