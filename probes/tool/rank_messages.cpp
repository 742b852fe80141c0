#include "rank_messages.hpp"

#include "peer_json.hpp"

namespace bevenv::probe_tool {

json parse_message(const std::optional<std::string>& text) {
  if (!text) return nullptr;
  json message = json::parse(*text, nullptr, false);
  return message.is_object() ? message : json(nullptr);
}

HelloVerdict read_hello(const json& hello, int world_size, const std::string& from) {
  HelloVerdict verdict;
  // A rank that is not an integer in range is refused as it is shown: the peer's own text.
  const json rank = peer_field(hello, "rank", json(nullptr));
  const bool integer = rank.is_number_integer();
  const long long number = integer ? rank.get<long long>() : -1;
  if (peer_text(hello, "type") != "hello" || !integer || number <= 0 || number >= world_size) {
    const std::string shown =
        integer ? std::to_string(number) : (rank.is_null() ? std::string("-1") : rank.dump());
    verdict.problem = "a process at " + from + " sent a hello for rank `" + shown +
                      "`, outside 1.." + std::to_string(world_size - 1);
    return verdict;
  }
  verdict.rank = static_cast<int>(number);
  // Shown as sent, so that a mistyped world size is visible; a missing one reads as 0.
  const json believed = peer_field(hello, "world_size", json(0));
  const json sent = peer_field(hello, "world_size", json(nullptr));
  if (believed != json(world_size)) {
    verdict.warning = "rank " + std::to_string(number) + " at " + from +
                      " believes the world has " + (sent.is_null() ? "0" : sent.dump()) +
                      " ranks, rank 0 believes " + std::to_string(world_size);
  }
  return verdict;
}

std::optional<json> read_report(const json& message) {
  if (peer_text(message, "type") != "report") return std::nullopt;
  const json report = peer_field(message, "report", json(nullptr));
  if (!report.is_object()) return std::nullopt;
  return report;
}

std::optional<GoMessage> read_go(const json& message) {
  if (peer_text(message, "type") != "go") return std::nullopt;
  GoMessage go;
  const json id = peer_field(message, "nccl_id", json(nullptr));
  if (id.is_string()) go.nccl_id = id.get<std::string>();
  go.skip_reason = peer_field(message, "skip_reason", json(nullptr));
  if (go.skip_reason.is_null()) go.skip_reason = "rank 0 sent no NCCL id";
  return go;
}

}  // namespace bevenv::probe_tool
