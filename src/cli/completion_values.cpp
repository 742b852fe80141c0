// What the word after an option, or in a positional slot, completes to, as each shell's
// script spells it (completion.hpp).
#include "completion.hpp"

namespace bevenv::cli::completion {
namespace {

ValueSpelling spelling_of(ValueKind kind) {
  switch (kind) {
    case ValueKind::none:  // a flag: bash and zsh write no arm for it, fish nothing
      return {"_bevenv_k=text", ""};
    case ValueKind::text:
      return {"_bevenv_k=text", " -x"};
    case ValueKind::words:  // the words follow
      return {"_bevenv_k=words; ", " -x -a "};
    case ValueKind::file:
      return {"_bevenv_k=file", " -r -F"};
    case ValueKind::directory:
      return {"_bevenv_k=directory", " -x -a '(__fish_complete_directories)'"};
  }
  return {"_bevenv_k=text", ""};
}

}  // namespace

std::string spell_value(const Value& value, std::string_view ValueSpelling::*shell,
                        std::string (*quote_words)(const std::vector<std::string>&)) {
  std::string spelled(spelling_of(value.kind).*shell);
  if (value.kind == ValueKind::words) spelled += quote_words(value.words);
  return spelled;
}

}  // namespace bevenv::cli::completion
