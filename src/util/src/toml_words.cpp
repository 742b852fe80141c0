#include "bevenv/util/toml_words.hpp"

#include "bevenv/util/enum_words.hpp"

namespace bevenv::util {
namespace {

constexpr EnumWord<toml::node_type> kTypeNames[] = {
    {toml::node_type::table, "a table"},
    {toml::node_type::array, "an array"},
    {toml::node_type::string, "a string"},
    {toml::node_type::integer, "an integer"},
    {toml::node_type::floating_point, "a float"},
    {toml::node_type::boolean, "a boolean"},
    {toml::node_type::date, "a date"},
    {toml::node_type::time, "a time"},
    {toml::node_type::date_time, "a date-time"},
};

}  // namespace

std::string_view toml_type_name(toml::node_type type) {
  return word_of(kTypeNames, type, "nothing");
}

}  // namespace bevenv::util
