#include "evr.hpp"

#include <variant>

namespace bevenv::solver::detail {
namespace {

char pre_letter(core::PreKind kind) {
  switch (kind) {
    case core::PreKind::alpha:
      return 'b';
    case core::PreKind::beta:
      return 'c';
    case core::PreKind::rc:
      return 'd';
  }
  return 'b';
}

void append_local_segment(std::string& out, const core::LocalSegment& segment) {
  if (const auto* number = std::get_if<std::uint64_t>(&segment)) {
    out += 'b';
    out += std::to_string(*number);
  } else {
    out += 'a';
    // Digits become letters so that a text segment never holds a digit run, which dpkg
    // would compare numerically where PEP 440 compares characters.
    for (char c : std::get<std::string>(segment)) {
      out += (c >= '0' && c <= '9') ? static_cast<char>('A' + (c - '0')) : c;
    }
  }
  out += '~';
}

}  // namespace

std::string to_evr(const core::Version& version) {
  std::string out = std::to_string(version.epoch());
  out += ':';
  const auto& release = version.release();
  std::size_t length = release.size();
  while (length > 0 && release[length - 1] == 0) --length;
  if (length == 0) out += '0';
  for (std::size_t i = 0; i < length; ++i) {
    if (i > 0) out += '.';
    out += std::to_string(release[i]);
  }

  const bool dev_only = version.dev() && !version.pre() && !version.post();
  if (dev_only) {
    out += "~a";
    out += std::to_string(*version.dev());
  } else {
    if (const auto& pre = version.pre()) {
      out += '~';
      out += pre_letter(pre->kind);
      out += std::to_string(pre->number);
    }
    if (const auto& post = version.post()) {
      out += 'p';
      out += std::to_string(*post);
    }
    if (const auto& dev = version.dev()) {
      out += "~x";
      out += std::to_string(*dev);
    }
  }

  if (version.has_local()) {
    out += 'l';
    for (const auto& segment : version.local()) append_local_segment(out, segment);
  }
  return out;
}

}  // namespace bevenv::solver::detail
