#pragma once
// Progress of fetches, told to a reporter the CLI chooses: a bar on a terminal's stderr, or
// nothing. The index module never writes to stdout.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace bevenv::index {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // A batch of `total` transfers begins, e.g. ("metadata", 12).
  virtual void start(std::string_view what, std::size_t total) = 0;
  // `done` of the batch have ended; `bytes` received so far in the batch.
  virtual void advance(std::size_t done, std::uint64_t bytes) = 0;
  virtual void finish() = 0;
  // A one-line note such as a retry; shown above the bar.
  virtual void note(std::string_view message) = 0;
};

// Reports nothing.
class SilentReporter final : public Reporter {
 public:
  void start(std::string_view, std::size_t) override {}
  void advance(std::size_t, std::uint64_t) override {}
  void finish() override {}
  void note(std::string_view) override {}
};

// A one-line bar redrawn on stderr when stderr is a terminal; silent otherwise.
std::unique_ptr<Reporter> make_stderr_reporter();

}  // namespace bevenv::index
