#pragma once
// An immutable text that copies without copying its characters. Either its copies share one
// buffer (copying costs a reference count, not an allocation: for a label that thousands of
// values repeat, such as the release every requirement comes from), or it borrows characters
// that outlive the program's every use of them (the matrix image compiled into the binary), and
// copying costs nothing at all.
#include <compare>
#include <memory>
#include <ostream>
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
      : owned_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))),
        view_(owned_ ? std::string_view(*owned_) : std::string_view()) {}
  SharedText(const char* text) : SharedText(std::string(text)) {}  // NOLINT
  // Characters that stay where they are for as long as the program runs: nothing is copied.
  static SharedText lasting(std::string_view text) {
    SharedText borrowed;
    borrowed.view_ = text;
    return borrowed;
  }

  SharedText(const SharedText&) = default;
  SharedText& operator=(const SharedText&) = default;
  // A moved-from text is empty: its view must not outlive the buffer it no longer holds.
  SharedText(SharedText&& from) noexcept
      : owned_(std::move(from.owned_)), view_(std::exchange(from.view_, {})) {}
  SharedText& operator=(SharedText&& from) noexcept {
    owned_ = std::move(from.owned_);
    view_ = std::exchange(from.view_, {});
    return *this;
  }
  ~SharedText() = default;

  std::string_view view() const { return view_; }
  std::string str() const { return std::string(view_); }
  operator std::string_view() const { return view_; }  // NOLINT(google-explicit-constructor)
  bool empty() const { return view_.empty(); }

  friend bool operator==(const SharedText& a, const SharedText& b) { return a.view_ == b.view_; }
  friend auto operator<=>(const SharedText& a, const SharedText& b) { return a.view_ <=> b.view_; }
  // Against other texts (`std::string`, literals) as they are, without converting either side.
  template <class Text>
  requires Comparable<Text>
  friend bool operator==(const SharedText& a, const Text& b) {
    return a.view_ == std::string_view(b);
  }
  template <class Text>
  requires Comparable<Text>
  friend auto operator<=>(const SharedText& a, const Text& b) {
    return a.view_ <=> std::string_view(b);
  }
  friend std::string operator+(const SharedText& a, std::string_view b) {
    return a.str().append(b);
  }
  friend std::string operator+(std::string a, const SharedText& b) {
    a.append(b.view_);
    return a;
  }
  friend std::ostream& operator<<(std::ostream& out, const SharedText& t) { return out << t.view_; }

 private:
  // Null when the text is empty or borrowed. The view points into it otherwise: the string
  // behind a shared pointer never moves, so copies keep a valid view.
  std::shared_ptr<const std::string> owned_;
  std::string_view view_;
};

}  // namespace bevenv::util
