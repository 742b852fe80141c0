#pragma once
// Large values a command is done with, kept until the process ends instead of freed. Freeing a
// loaded matrix and a solver's records one allocation at a time took an offline lock about a
// tenth of its run; the operating system takes the whole heap back at once. Only a program about
// to exit turns this on (the CLI); elsewhere (tests, a library caller) the values are destroyed
// as usual.
#include <memory>
#include <utility>

namespace bevenv::util {

void keep_values_until_exit(bool on);
bool keeping_values_until_exit();
// Remembers `value` where leak checkers still see it, so it is reachable, not leaked.
void remember_until_exit(void* value);

// Destroys `value` now, or keeps it until the process ends when keeping is on.
template <class T>
void done_with(std::unique_ptr<T> value) {
  if (keeping_values_until_exit()) remember_until_exit(value.release());
}

// A value that lives for a scope, or until the process ends when keeping is on (done_with()).
// `may_outlive` false destroys it at the end of the scope all the same: for values whose
// destructors do work that must happen (closing transfers, joining threads).
template <class T>
class ScopeOrExit {
 public:
  explicit ScopeOrExit(T value, bool may_outlive = true)
      : value_(std::make_unique<T>(std::move(value))), may_outlive_(may_outlive) {}
  ScopeOrExit(const ScopeOrExit&) = delete;
  ScopeOrExit& operator=(const ScopeOrExit&) = delete;
  ~ScopeOrExit() {
    if (may_outlive_) done_with(std::move(value_));
  }
  T& operator*() const { return *value_; }

 private:
  std::unique_ptr<T> value_;
  bool may_outlive_;
};

}  // namespace bevenv::util
