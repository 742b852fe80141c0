#include "bevenv/index/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

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
  void finish() override {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
  void note(std::string_view message) override {
    std::fprintf(stderr, "\r\033[K%.*s\n", static_cast<int>(message.size()), message.data());
    std::fflush(stderr);
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
    std::fprintf(stderr, "\r\033[K%s [%s] %zu/%zu  %.1f MiB", what_.c_str(), bar.c_str(), done,
                 total_, static_cast<double>(bytes) / (1024.0 * 1024.0));
    std::fflush(stderr);
  }

  std::string what_;
  std::size_t total_ = 0;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace

std::unique_ptr<Reporter> make_stderr_reporter() {
  if (isatty(STDERR_FILENO) == 0) return std::make_unique<SilentReporter>();
  return std::make_unique<TerminalReporter>();
}

}  // namespace bevenv::index
