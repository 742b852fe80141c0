#include "doctor_cluster_text.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "bevenv/util/text.hpp"

namespace bevenv::app {
namespace {

using json = nlohmann::json;

// An argument sh takes as it is: letters, digits and punctuation sh gives no meaning.
bool is_plain(const std::string& arg) {
  const auto safe = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_-./:=,@%+").find(c) != std::string_view::npos;
  };
  return !arg.empty() && std::all_of(arg.begin(), arg.end(), safe);
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string size_text(double bytes) {
  const double mib = bytes / (1024.0 * 1024.0);
  return mib >= 1024.0 ? fixed(mib / 1024.0, 0) + " GiB" : fixed(mib, 0) + " MiB";
}

std::string text_or(const json& object, const char* key, const std::string& fallback) {
  if (!object.contains(key) || !object[key].is_string()) return fallback;
  return object[key].get<std::string>();
}

std::string rank_span(const json& ranks) {
  std::string text;
  for (const auto& rank : ranks) text += (text.empty() ? "" : ",") + rank.dump();
  return text;
}

void render_node(const json& node, CommandOutput& output) {
  std::string gpus;
  const json names = node.value("gpus", json::array());
  if (!names.empty() && names[0].is_string()) {
    gpus = ", " + std::to_string(names.size()) + "x " + names[0].get<std::string>();
  }
  output.add("`" + text_or(node, "host", "?") + "`: ranks " +
                 rank_span(node.value("ranks", json::array())) + ", driver " +
                 text_or(node, "driver_version", "?") + ", CUDA " +
                 text_or(node, "cuda_version", "?") + ", NCCL " +
                 text_or(node, "nccl_version", "?") + gpus,
             Mark::info, 1);
}

void render_collective(const json& collective, CommandOutput& output) {
  const std::string status = collective.value("status", "");
  const std::string world = std::to_string(collective.value("world_size", 0));
  if (status == "skipped") {
    output.add("all-reduce skipped: " + text_or(collective, "reason", "no reason given"),
               Mark::info);
    return;
  }
  const json results = collective.value("results", json::array());
  if (status == "ok" && !results.empty()) {
    const json& largest = results.back();
    output.add("all-reduce over " + world + " ranks correct: busbw " +
                   fixed(largest.value("busbw_gbps", 0.0), 1) + " GB/s at " +
                   size_text(largest.value("bytes", 0.0)) + " (algbw " +
                   fixed(largest.value("algbw_gbps", 0.0), 1) + " GB/s)",
               Mark::ok);
    for (const auto& row : results) {
      output
          .add(size_text(row.value("bytes", 0.0)) + ": " + fixed(row.value("time_us", 0.0), 0) +
                   " us, busbw " + fixed(row.value("busbw_gbps", 0.0), 1) + " GB/s",
               Mark::none, 1)
          .verbose_only = true;
    }
    return;
  }
  output.add("all-reduce over " + world + " ranks " + (status.empty() ? "did not run" : status),
             Mark::problem);
}

}  // namespace

std::string shell_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) {
    std::string quoted;
    if (is_plain(arg)) {
      quoted = arg;
    } else if (arg.find('$') != std::string::npos && arg.find('"') == std::string::npos) {
      quoted = "\"" + arg + "\"";  // a placeholder the user's shell expands
    } else {
      quoted = util::sh_single_quoted(arg);
    }
    line += (line.empty() ? "" : " ") + quoted;
  }
  return line;
}

std::optional<json> find_aggregate(const std::string& out) {
  // Rank 0 prints one document starting with "{" at the start of a line; only ranks print to
  // stdout, the others print nothing there.
  for (std::size_t start = out.find('{'); start != std::string::npos;
       start = out.find("\n{", start + 1)) {
    if (out[start] == '\n') ++start;
    const std::size_t end = out.rfind('}');
    if (end == std::string::npos || end < start) return std::nullopt;
    json parsed = json::parse(out.begin() + static_cast<std::ptrdiff_t>(start),
                              out.begin() + static_cast<std::ptrdiff_t>(end) + 1, nullptr, false);
    if (!parsed.is_discarded() && parsed.is_object() && parsed.value("mode", "") == "cluster") {
      return parsed;
    }
  }
  return std::nullopt;
}

namespace {

// The catalogue's fix for a cluster problem, fitted to the check that saw it.
std::string cluster_fix(const matrix::Matrix* matrix, const std::string& failure_id,
                        const std::string& check,
                        const std::vector<std::pair<std::string, std::string>>& facts) {
  const matrix::Failure* failure = matrix != nullptr ? matrix->find_failure(failure_id) : nullptr;
  if (failure == nullptr) return "";
  matrix::FixContext context;
  context.check = check;
  context.facts = facts;
  return failure->fitting_fix_text(context);
}

void hint_fix(CommandOutput& output, const std::string& fix) {
  if (!fix.empty()) output.hint("fix: " + fix);
}

}  // namespace

bool render_aggregate(const json& aggregate, const matrix::Matrix* matrix, CommandOutput& output) {
  const int world = aggregate.value("world_size", 0);
  const int reported = aggregate.value("ranks_reported", 0);
  const json nodes = aggregate.value("nodes", json::array());
  output.add(std::to_string(reported) + " of " + std::to_string(world) + " ranks reported from " +
                 std::to_string(nodes.size()) + (nodes.size() == 1 ? " node" : " nodes") +
                 " (launcher " + text_or(aggregate, "launcher", "?") + ")",
             reported == world ? Mark::ok : Mark::problem);
  for (const auto& node : nodes) render_node(node, output);
  render_collective(aggregate.value("collective", json::object()), output);
  for (const auto& problem : aggregate.value("problems", json::array())) {
    if (!problem.is_string()) continue;
    const std::string text = problem.get<std::string>();
    output.add(text, Mark::problem);
    if (text.find("never reached rank 0") != std::string::npos) {
      hint_fix(output,
               cluster_fix(matrix, "rank-unreachable", "cluster",
                           {{"port", std::to_string(aggregate.value("rendezvous_port", 0))}}));
    } else if (text.find("`lock_hash` differs") != std::string::npos) {
      hint_fix(output, cluster_fix(matrix, "nodes-differ", "cluster-lock", {}));
    } else if (text.find("`package:") != std::string::npos) {
      hint_fix(output, cluster_fix(matrix, "nodes-differ", "cluster-packages", {}));
    }
  }
  for (const auto& warning : aggregate.value("warnings", json::array())) {
    if (warning.is_string()) output.add(warning.get<std::string>(), Mark::warning);
  }
  return aggregate.value("status", "") == "ok";
}

}  // namespace bevenv::app
