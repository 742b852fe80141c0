#include "bevenv/util/terminal.hpp"

#include <unistd.h>

#include "bevenv/util/env.hpp"

namespace bevenv::util::terminal {
namespace {

// Carriage return, then erase to the end of the line.
constexpr std::string_view kEraseLine = "\r\033[K";

}  // namespace

bool cursor_control(int fd) {
  if (env("TERM") == std::optional<std::string>("dumb")) return false;
  return ::isatty(fd) == 1;
}

bool styled(int fd) { return !env("NO_COLOR") && cursor_control(fd); }

std::string paint(std::string_view text, const char* style, bool on) {
  if (!on) return std::string(text);
  return std::string(style) + std::string(text) + kReset;
}

void write(std::FILE* stream, std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);
}

void redraw_line(std::FILE* stream, std::string_view text) {
  write(stream, std::string(kEraseLine) + std::string(text));
}

void clear_line(std::FILE* stream) { write(stream, kEraseLine); }

}  // namespace bevenv::util::terminal
