#include "bevenv/index/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "bevenv/util/terminal.hpp"

namespace bevenv::index {
namespace {

class TerminalReporter final : public Reporter {
 public:
  void start(std::string_view what, std::size_t total) override {
    what_ = std::string(what);
    total_ = total;
    last_draw_ = {};
    draw(0, 0, true);
  }
  void advance(std::size_t done, std::uint64_t bytes) override { draw(done, bytes, false); }
  void finish() override { util::terminal::clear_line(stderr); }
  void note(std::string_view message) override {
    util::terminal::redraw_line(stderr, std::string(message) + "\n");
  }

 private:
  void draw(std::size_t done, std::uint64_t bytes, bool force) {
    const auto now = std::chrono::steady_clock::now();
    // Redrawing at most 20 times a second keeps a fast resolve from being slowed by its bar.
    if (!force && done < total_ && now - last_draw_ < std::chrono::milliseconds(50)) return;
    last_draw_ = now;
    constexpr std::size_t kWidth = 24;
    const std::size_t filled = total_ == 0 ? kWidth : kWidth * done / total_;
    const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '-');
    char mib[32];
    std::snprintf(mib, sizeof mib, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
    util::terminal::redraw_line(stderr, what_ + " [" + bar + "] " + std::to_string(done) + "/" +
                                            std::to_string(total_) + "  " + mib);
  }

  std::string what_;
  std::size_t total_ = 0;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace

std::unique_ptr<Reporter> make_stderr_reporter() {
  // A bar redraws its line: only on a terminal that understands that (not TERM=dumb).
  if (!util::terminal::cursor_control(STDERR_FILENO)) return std::make_unique<SilentReporter>();
  return std::make_unique<TerminalReporter>();
}

}  // namespace bevenv::index
