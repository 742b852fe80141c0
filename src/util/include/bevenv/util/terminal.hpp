#pragma once
// The one terminal writer: whether a stream may carry colour and cursor control, the styles,
// and the line redraw of a progress bar. The CLI's printer and the index's progress both use
// it, so NO_COLOR, TERM=dumb and a redirected stream mean the same thing everywhere
// (https://no-color.org).
#include <cstdio>
#include <string>
#include <string_view>

namespace bevenv::util::terminal {

// SGR sequences the printer uses.
inline constexpr const char* kReset = "\033[0m";
inline constexpr const char* kBold = "\033[1m";
inline constexpr const char* kDim = "\033[2m";
inline constexpr const char* kRed = "\033[31m";
inline constexpr const char* kGreen = "\033[32m";
inline constexpr const char* kYellow = "\033[33m";
inline constexpr const char* kCyan = "\033[36m";

// `fd` is a terminal whose TERM is not `dumb`: a progress bar may redraw its line there.
bool cursor_control(int fd);
// And NO_COLOR is unset or empty: colour may be written too.
bool styled(int fd);

// `text` in `style` when `on`, then reset; `text` alone otherwise.
std::string paint(std::string_view text, const char* style, bool on);

// Writes `text` and flushes, so a line appears at once even when stdout is buffered.
void write(std::FILE* stream, std::string_view text);

// Replaces the current line of a styled stream with `text` (no newline): a progress bar.
void redraw_line(std::FILE* stream, std::string_view text);
// Clears the current line of a styled stream, where a progress bar was.
void clear_line(std::FILE* stream);

}  // namespace bevenv::util::terminal
