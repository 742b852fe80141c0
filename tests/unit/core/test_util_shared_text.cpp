// util/shared_text: copies share one buffer and compare as the text they hold.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "bevenv/util/shared_text.hpp"

using bevenv::util::SharedText;

TEST_CASE("a shared text compares and joins as the text it holds", "[util]") {
  const SharedText label(std::string("torch 2.8.0"));
  const SharedText copy = label;  // NOLINT(performance-unnecessary-copy-initialization)
  CHECK(copy.view().data() == label.view().data());
  CHECK(copy == label);
  CHECK(label == "torch 2.8.0");
  CHECK(label == std::string("torch 2.8.0"));
  CHECK(label != "torch");
  CHECK(label < "vision");
  CHECK(label + " (Python range)" == "torch 2.8.0 (Python range)");
  const std::string as_string(label);
  CHECK(as_string == "torch 2.8.0");
  CHECK("the " + label == "the torch 2.8.0");
}

TEST_CASE("an empty shared text holds nothing and reads as an empty string", "[util]") {
  const SharedText none;
  CHECK(none.empty());
  CHECK(none.str().empty());
  CHECK(SharedText(std::string()).empty());
  CHECK(none == "");
}

TEST_CASE("a shared text finds its entry in a map keyed by strings", "[util]") {
  const std::map<std::string, int, std::less<>> by_label{{"rule `a`", 1}, {"rule `b`", 2}};
  const SharedText label("rule `b`");
  CHECK(by_label.find(label.str())->second == 2);
}

TEST_CASE("a lasting text borrows its characters and its copies keep them", "[util]") {
  static constexpr std::string_view kImage = "torch 2.8.0 vision";
  const SharedText borrowed = SharedText::lasting(kImage.substr(0, 11));
  const SharedText copy = borrowed;  // NOLINT(performance-unnecessary-copy-initialization)
  CHECK(borrowed.view().data() == kImage.data());
  CHECK(copy.view().data() == kImage.data());
  CHECK(copy == "torch 2.8.0");
  CHECK(copy == SharedText(std::string("torch 2.8.0")));
  CHECK(SharedText::lasting({}).empty());
}

TEST_CASE("a shared text's view survives the original and a move", "[util]") {
  SharedText moved_from(std::string(40, 'x'));
  const SharedText copy = moved_from;
  const SharedText moved = std::move(moved_from);
  CHECK(copy == std::string(40, 'x'));
  CHECK(moved == std::string(40, 'x'));
  CHECK(moved_from.empty());                  // NOLINT(bugprone-use-after-move): what a move leaves
  SharedText short_text(std::string("sso"));  // kept inside the string object: it must not move
  const SharedText kept = short_text;
  short_text = SharedText();
  CHECK(kept == "sso");
}
