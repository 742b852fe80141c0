#pragma once
// A list whose copies share one buffer until one of them is changed (copy on write): copying
// costs a reference count, not a copy of every item. For lists that many values repeat, such as
// the requirement lists the releases of a package share release after release.
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace bevenv::util {

template <class T>
class SharedList {
 public:
  using value_type = T;
  using const_iterator = typename std::vector<T>::const_iterator;
  using iterator = const_iterator;  // items change through edit() only

  SharedList() = default;
  SharedList(std::vector<T> items)  // NOLINT(google-explicit-constructor): a list is a list
      : items_(items.empty() ? nullptr : std::make_shared<std::vector<T>>(std::move(items))) {}
  SharedList(std::initializer_list<T> items) : SharedList(std::vector<T>(items)) {}

  const std::vector<T>& items() const { return items_ ? *items_ : none(); }
  operator const std::vector<T>&() const { return items(); }  // NOLINT(google-explicit-constructor)
  const_iterator begin() const { return items().begin(); }
  const_iterator end() const { return items().end(); }
  std::size_t size() const { return items_ ? items_->size() : 0; }
  bool empty() const { return size() == 0; }
  const T& operator[](std::size_t i) const { return (*items_)[i]; }
  const T& at(std::size_t i) const { return items().at(i); }
  const T& front() const { return items_->front(); }
  const T& back() const { return items_->back(); }

  // The items, to change: this list's own copy once any other list shares them.
  std::vector<T>& edit() {
    if (!items_) {
      items_ = std::make_shared<std::vector<T>>();
    } else if (items_.use_count() > 1) {
      items_ = std::make_shared<std::vector<T>>(*items_);
    }
    return *items_;
  }
  void push_back(T item) { edit().push_back(std::move(item)); }

  // Whether the two share one buffer: equal without comparing items.
  bool shares_with(const SharedList& other) const { return items_ == other.items_; }
  friend bool operator==(const SharedList& a, const SharedList& b) {
    return a.shares_with(b) || a.items() == b.items();
  }

 private:
  static const std::vector<T>& none() {
    static const std::vector<T> empty;
    return empty;
  }
  std::shared_ptr<std::vector<T>> items_;
};

}  // namespace bevenv::util
