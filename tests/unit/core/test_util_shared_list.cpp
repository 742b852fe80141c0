// util/shared_list: copies share one buffer until one is changed; a change reaches only the list
// it is made on, and lists compare by their items.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "bevenv/util/shared_list.hpp"

using bevenv::util::SharedList;

TEST_CASE("a shared list's copies share its items until one of them changes", "[util]") {
  const SharedList<std::string> empty;
  CHECK(empty.empty());
  CHECK(empty.size() == 0);
  CHECK(empty.begin() == empty.end());
  CHECK(empty == SharedList<std::string>(std::vector<std::string>{}));

  SharedList<std::string> list{"a", "b"};
  const SharedList<std::string> copy = list;
  CHECK(copy.shares_with(list));
  CHECK(&copy.items() == &list.items());  // one buffer, not two
  CHECK(copy == list);

  list.push_back("c");  // copy on write: the copy keeps its two items
  CHECK_FALSE(copy.shares_with(list));
  CHECK(list.items() == std::vector<std::string>{"a", "b", "c"});
  CHECK(copy.items() == std::vector<std::string>{"a", "b"});
  CHECK(copy != list);

  // A list no other shares changes in place.
  const std::vector<std::string>* buffer = &list.items();
  list.edit().front() = "z";
  CHECK(&list.items() == buffer);
  CHECK(list.front() == "z");
  CHECK(list[1] == "b");
  CHECK(list.at(2) == "c");
  CHECK(list.back() == "c");
  CHECK_THROWS_AS(list.at(3), std::out_of_range);

  // Equal items in two buffers compare equal; a list reads as the vector it holds.
  const SharedList<std::string> same(std::vector<std::string>{"z", "b", "c"});
  CHECK_FALSE(same.shares_with(list));
  CHECK(same == list);
  const std::vector<std::string>& as_vector = same;
  CHECK(as_vector.size() == 3);
}
