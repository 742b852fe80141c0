#pragma once
// RAII over libsolv's Queue (a growable array of Ids used for jobs and results).
#include <cstddef>
#include <span>

#include "solv/c_api.hpp"

namespace bevenv::solver::solv {

class Queue {
 public:
  Queue() { queue_init(&queue_); }
  ~Queue() { queue_free(&queue_); }
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  void push(Id id) { queue_push(&queue_, id); }
  void push2(Id a, Id b) { queue_push2(&queue_, a, b); }
  void clear() { queue_empty(&queue_); }
  std::size_t size() const { return static_cast<std::size_t>(queue_.count); }
  bool empty() const { return queue_.count == 0; }
  Id operator[](std::size_t i) const { return queue_.elements[i]; }
  std::span<const Id> ids() const { return {queue_.elements, size()}; }

  ::Queue* raw() { return &queue_; }
  const ::Queue* raw() const { return &queue_; }

 private:
  ::Queue queue_;
};

}  // namespace bevenv::solver::solv
