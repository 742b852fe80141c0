#pragma once
// An immutable text whose copies share one buffer: copying costs a reference count, not an
// allocation. For a label that thousands of values repeat (each requirement of a release
// names the release it comes from).
#include <compare>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace bevenv::util {

class SharedText {
  template <class Text>
  static constexpr bool Comparable =
      std::is_convertible_v<const Text&, std::string_view> && !std::is_same_v<Text, SharedText>;

 public:
  SharedText() = default;
  SharedText(std::string text)  // NOLINT(google-explicit-constructor): a text is a label
      : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}
  SharedText(const char* text) : SharedText(std::string(text)) {}  // NOLINT

  const std::string& str() const { return text_ ? *text_ : empty_text(); }
  operator const std::string&() const { return str(); }  // NOLINT
  operator std::string_view() const { return str(); }    // NOLINT
  bool empty() const { return text_ == nullptr; }

  friend bool operator==(const SharedText& a, const SharedText& b) { return a.str() == b.str(); }
  friend auto operator<=>(const SharedText& a, const SharedText& b) { return a.str() <=> b.str(); }
  // Against other texts (`std::string`, literals) as they are, without converting either side.
  template <class Text>
  requires Comparable<Text>
  friend bool operator==(const SharedText& a, const Text& b) {
    return std::string_view(a.str()) == std::string_view(b);
  }
  template <class Text>
  requires Comparable<Text>
  friend auto operator<=>(const SharedText& a, const Text& b) {
    return std::string_view(a.str()) <=> std::string_view(b);
  }
  friend std::string operator+(const SharedText& a, std::string_view b) {
    return std::string(a.str()).append(b);
  }

 private:
  static const std::string& empty_text() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> text_;  // null: empty
};

}  // namespace bevenv::util
