#pragma once
// The messages of the `--rank` rendezvous as rank 0 and the followers read them: pure functions
// of what arrived, so that a peer sending anything (a stray client, another program, a newer
// or broken bevenv-probe) is answered with a problem line, never with an exception.
#include <optional>
#include <string>

#include "probe_tool.hpp"

namespace bevenv::probe_tool {

// A JSON object from a frame's payload; null for no frame, text that is not JSON, or JSON that
// is not an object.
json parse_message(const std::optional<std::string>& text);

// What rank 0 makes of a hello: the rank it claims (accepted) or the problem line (refused),
// and a warning line when it believes in another world size.
struct HelloVerdict {
  std::optional<int> rank;
  std::string problem;
  std::string warning;
};
HelloVerdict read_hello(const json& hello, int world_size, const std::string& from);

// The report inside a `{"type": "report", "report": {...}}` message; nullopt for anything else.
std::optional<json> read_report(const json& message);

// The NCCL id of a `go` message, when it carries one as a string, and the reason it gives when
// it does not. nullopt when `message` is not a `go` at all.
struct GoMessage {
  std::optional<std::string> nccl_id;
  json skip_reason;
};
std::optional<GoMessage> read_go(const json& message);

}  // namespace bevenv::probe_tool
