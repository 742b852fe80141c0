// The report schema as data: one line per field, so that a new probe field is one new line
// and the check itself never changes.
#include "bevenv/probes/report_schema.hpp"

#include <cmath>
#include <map>
#include <memory>
#include <string_view>

#include "bevenv/util/enum_words.hpp"

namespace bevenv::probes {
namespace {

using json = nlohmann::json;

enum Type : unsigned {
  kNull = 1,
  kBool = 2,
  kInt = 4,  // a number without a fraction that fits an int (indices, counts, codes)
  kNumber = 8,
  kString = 16,
  kArray = 32,
  kObject = 64,
};

struct FieldType {
  std::string_view path;  // `a.b`, `a[]` for the elements of an array, `a.*` for any key
  unsigned types;
};

// Fields every probe section may carry: its outcome, and why it failed.
constexpr FieldType kSectionFields[] = {
    {"status", kString},      {"error", kString | kObject}, {"error.call", kString},
    {"error.code", kInt},     {"error.name", kString},      {"error.message", kString},
    {"signal", kInt},         {"signal_name", kString},     {"library", kString},
    {"tried", kArray},        {"tried[]", kString},         {"library_path", kString},
    {"duration_ms", kNumber}, {"traceback", kString},       {"reason", kString},
};

constexpr std::string_view kSections[] = {"host", "driver", "nvml", "kernel", "nccl", "python"};

constexpr FieldType kFields[] = {
    {"schema", kInt},
    {"tool", kString},
    {"version", kString},
    {"status", kString},
    {"capabilities", kObject},
    {"capabilities.*", kBool},
    {"options", kObject},
    {"options.timeout_s", kNumber},
    {"options.only", kArray},
    {"options.only[]", kString},
    {"options.cuda_version_override", kString | kNull},
    {"options.import_torch", kBool},
    // host
    {"host", kObject},
    {"host.hostname", kString},
    {"host.kernel", kString},
    {"host.machine", kString},
    {"host.env", kObject},
    {"host.env.*", kString},
    {"host.container", kObject},
    {"host.container.detected", kBool},
    {"host.container.runtime", kString},
    {"host.container.evidence", kArray},
    {"host.container.evidence[]", kString},
    {"host.shm", kObject},
    {"host.shm.path", kString},
    {"host.shm.status", kString},
    {"host.shm.total_bytes", kNumber},
    {"host.shm.free_bytes", kNumber},
    {"host.shm.error", kString},
    {"host.memlock", kObject},
    // A count of bytes, or `unlimited`.
    {"host.memlock.soft", kString | kNumber},
    {"host.memlock.hard", kString | kNumber},
    {"host.memlock.status", kString},
    {"host.memlock.error", kString},
    // driver (libcuda)
    {"driver", kObject},
    {"driver.cuda_version", kString},
    {"driver.cuda_version_int", kInt},
    {"driver.cuda_version_overridden", kBool},
    {"driver.real_cuda_version", kString},
    {"driver.device_count", kInt},
    {"driver.devices", kArray},
    {"driver.devices[]", kObject},
    {"driver.devices[].index", kInt},
    {"driver.devices[].name", kString},
    {"driver.devices[].uuid", kString},
    {"driver.devices[].pci_bus_id", kString},
    {"driver.devices[].compute_capability", kString},
    {"driver.devices[].sm", kString},
    {"driver.devices[].multiprocessors", kInt},
    {"driver.devices[].memory_total_bytes", kNumber},
    {"driver.devices[].error", kString | kObject},
    {"driver.p2p", kArray},
    {"driver.p2p[]", kArray},
    {"driver.p2p[][]", kBool | kNull},  // null on the diagonal: a GPU and itself
    // nvml
    {"nvml", kObject},
    {"nvml.driver_version", kString},
    {"nvml.cuda_version", kString},
    {"nvml.nccl_version", kString},
    {"nvml.device_count", kInt},
    {"nvml.devices", kArray},
    {"nvml.devices[]", kObject},
    {"nvml.devices[].index", kInt},
    {"nvml.devices[].name", kString},
    {"nvml.devices[].uuid", kString},
    {"nvml.devices[].compute_capability", kString},
    {"nvml.devices[].memory_total_bytes", kNumber},
    {"nvml.devices[].memory_free_bytes", kNumber},
    {"nvml.devices[].memory_used_bytes", kNumber},
    {"nvml.devices[].ecc", kString},
    {"nvml.devices[].mig", kString},
    {"nvml.devices[].error", kString | kObject},
    // kernel (NVRTC and a tiny kernel on every GPU)
    {"kernel", kObject},
    // `--compile-only PATH`: what was written there.
    {"kernel.compile_only", kBool | kObject},
    {"kernel.compile_only.arch", kString},
    {"kernel.compile_only.kind", kString},
    {"kernel.compile_only.path", kString},
    {"kernel.compile_only.bytes", kNumber},
    {"kernel.compile_only.compile_ms", kNumber},
    {"kernel.nvrtc", kObject},
    {"kernel.nvrtc.library_path", kString},
    {"kernel.nvrtc.version", kString},
    {"kernel.nvrtc.supported_archs", kArray},
    {"kernel.nvrtc.supported_archs[]", kString},
    {"kernel.nvrtc.error", kString | kObject},
    {"kernel.nvrtc_open_ms", kNumber},
    {"kernel.driver_start_ms", kNumber},
    {"kernel.devices", kArray},
    {"kernel.devices[]", kObject},
    {"kernel.devices[].index", kInt},
    {"kernel.devices[].status", kString},
    {"kernel.devices[].error", kString | kObject},
    {"kernel.devices[].arch", kString},
    {"kernel.devices[].image", kString},
    {"kernel.devices[].compile_ms", kNumber},
    {"kernel.devices[].context_ms", kNumber},
    {"kernel.devices[].module_load_ms", kNumber},
    {"kernel.devices[].first_launch_ms", kNumber},
    {"kernel.devices[].kernel_ms", kNumber},
    {"kernel.devices[].bandwidth_gbps", kNumber},
    {"kernel.devices[].elements", kNumber},
    {"kernel.devices[].wrong_elements", kNumber},
    {"kernel.devices[].first_wrong", kNumber},
    // nccl (an all-reduce over every GPU)
    {"nccl", kObject},
    {"nccl.version", kString},
    {"nccl.gpus", kInt},
    {"nccl.init_ms", kNumber},
    {"nccl.correct", kBool},
    {"nccl.results", kArray},
    {"nccl.results[]", kObject},
    {"nccl.results[].bytes", kNumber},
    {"nccl.results[].time_us", kNumber},
    {"nccl.results[].algbw_gbps", kNumber},
    {"nccl.results[].busbw_gbps", kNumber},
    {"nccl.results[].wrong_elements", kNumber},
    // python (probe_env.py in the interpreter under test)
    {"python", kObject},
    {"python.schema", kInt},
    {"python.interpreter_path", kString},
    {"python.interpreter_source", kString},
    {"python.interpreter", kObject},
    {"python.interpreter.executable", kString},
    {"python.interpreter.version", kString},
    {"python.interpreter.implementation", kString},
    {"python.interpreter.prefix", kString},
    {"python.interpreter.base_prefix", kString},
    {"python.interpreter.in_venv", kBool},
    {"python.site_packages", kArray},
    {"python.site_packages[]", kString},
    {"python.nvidia_lib_dirs", kArray},
    {"python.nvidia_lib_dirs[]", kString},
    {"python.shm", kObject},
    {"python.shm.total_bytes", kNumber},
    {"python.shm.free_bytes", kNumber},
    {"python.shm.error", kString},
    {"python.distributions", kArray},
    {"python.distributions[]", kObject},
    {"python.distributions[].name", kString},
    {"python.distributions[].version", kString},
    {"python.torch", kObject},
    {"python.torch.status", kString},
    {"python.torch.version", kString},
    {"python.torch.file", kString},
    {"python.torch.cuda", kString | kNull},  // null: a CPU-only torch build
    {"python.torch.cuda_available", kBool},
    {"python.torch.cudnn", kInt | kNull},          // null: no cuDNN
    {"python.torch.arch_flags", kString | kNull},  // null: torch without _cuda_getArchFlags
    {"python.torch.cudnn_error", kString},
    {"python.torch.cached", kBool},
    {"python.torch.arch_list", kArray},
    {"python.torch.arch_list[]", kString},
    {"python.torch.evidence", kString},
    {"python.torch.devices", kArray},
    {"python.torch.devices[]", kObject},
    {"python.torch.devices[].index", kInt},
    {"python.torch.devices[].name", kString},
    {"python.torch.devices[].capability", kString},
    // torch's facts from its files (`source`: files) rather than `import torch` (import)
    {"python.torch.source", kString},
    {"python.torch.hip", kString | kNull},
    {"python.torch.git_version", kString},
    {"python.torch.cudnn_source", kString},
    {"python.torch.lib_dir", kString},
    {"python.torch.cuda_libraries", kArray},
    {"python.torch.cuda_libraries[]", kString},
    {"python.torch.arch_extra", kArray},  // in a few of the libraries' kernels only
    {"python.torch.arch_extra[]", kString},
    {"python.torch.arch_sources", kArray},
    {"python.torch.arch_sources[]", kObject},
    {"python.torch.arch_sources[].file", kString},
    {"python.torch.arch_sources[].sass", kArray},
    {"python.torch.arch_sources[].sass[]", kString},
    {"python.torch.arch_sources[].ptx", kArray},
    {"python.torch.arch_sources[].ptx[]", kString},
    {"python.torch.arch_sources[].containers", kInt},
    {"python.torch.arch_sources[].entries", kInt},
    {"python.torch.arch_sources[].ms", kNumber},
    {"python.torch.arch_sources[].error", kString},
    // files mode: torch/_C's DT_NEEDED walked as the loader would (needed_walk.cpp)
    {"python.torch.extension", kString},
    {"python.torch.libraries", kObject},
    {"python.torch.libraries.checked", kInt},
    {"python.torch.libraries.missing", kArray},
    {"python.torch.libraries.missing[]", kObject},
    {"python.torch.libraries.missing[].name", kString},
    {"python.torch.libraries.missing[].needed_by", kString},
    {"python.torch.libraries.preloaded", kArray},
    {"python.torch.libraries.preloaded[]", kString},
    {"python.torch.libraries.unreadable", kArray},
    {"python.torch.libraries.unreadable[]", kObject},
    {"python.torch.libraries.unreadable[].file", kString},
    {"python.torch.libraries.unreadable[].error", kString},
    {"python.torch.libraries.truncated", kBool},
    {"python.torch.libraries.ms", kNumber},
    // the compiled ops' architectures, from their fatbins
    {"python.ops_archs", kArray},
    {"python.ops_archs[]", kObject},
    {"python.ops_archs[].package", kString},
    {"python.ops_archs[].file", kString},
    {"python.ops_archs[].sass", kArray},
    {"python.ops_archs[].sass[]", kString},
    {"python.ops_archs[].ptx", kArray},
    {"python.ops_archs[].ptx[]", kString},
    {"python.ops_archs[].containers", kInt},
    {"python.ops_archs[].entries", kInt},
    {"python.ops_archs[].ms", kNumber},
    {"python.ops_archs[].error", kString},
    {"python.ops_archs_error", kString},
    {"python.checks", kArray},
    {"python.checks[]", kObject},
    {"python.checks[].id", kString},
    {"python.checks[].title", kString},
    {"python.checks[].status", kString},
    {"python.checks[].evidence", kString},
    {"python.checks[].traceback", kString},
    {"python.checks[].duration_ms", kNumber},
    {"python.checks[].modules", kArray},
    {"python.checks[].modules[]", kObject},
    {"python.checks[].modules[].module", kString},
    {"python.checks[].modules[].status", kString},
    {"python.checks[].modules[].evidence", kString},
};

// The schema as a tree: object keys, `*` for any key, `[]` for array elements.
struct Node {
  unsigned types = 0;
  std::map<std::string, Node, std::less<>> keys;
  std::unique_ptr<Node> any_key;
  std::unique_ptr<Node> element;
};

Node& child(Node& node, std::string_view segment) {
  if (segment == "[]") {
    if (!node.element) node.element = std::make_unique<Node>();
    return *node.element;
  }
  if (segment == "*") {
    if (!node.any_key) node.any_key = std::make_unique<Node>();
    return *node.any_key;
  }
  return node.keys[std::string(segment)];
}

// `a.b[][]` -> a, b, [], []
void add(Node& root, std::string_view path, unsigned types) {
  Node* node = &root;
  while (!path.empty()) {
    const auto end = path.find_first_of(".[", 1);
    std::string_view segment = path.substr(0, end);
    if (segment.front() == '.') segment.remove_prefix(1);
    node = &child(*node, segment);
    path = end == std::string_view::npos ? std::string_view() : path.substr(end);
  }
  node->types = types;
}

const Node& schema() {
  static const Node root = [] {
    Node tree;
    tree.types = kObject;
    for (const auto& field : kFields) add(tree, field.path, field.types);
    for (const auto section : kSections) {
      for (const auto& field : kSectionFields) {
        add(tree, std::string(section) + "." + std::string(field.path), field.types);
      }
    }
    return tree;
  }();
  return root;
}

unsigned type_of(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return kNull;
    case json::value_t::boolean:
      return kBool;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: {
      // Integers beyond int would wrap where the rules read them as one.
      const bool fits = value.is_number_unsigned()
                            ? value.get<std::uint64_t>() <= 0x7fffffffULL
                            : value.get<std::int64_t>() >= -0x7fffffffLL - 1 &&
                                  value.get<std::int64_t>() <= 0x7fffffffLL;
      return fits ? kInt | kNumber : kNumber;
    }
    case json::value_t::number_float: {
      const double number = value.get<double>();
      const bool whole = std::isfinite(number) && std::floor(number) == number &&
                         std::fabs(number) <= 2147483647.0;
      return whole ? kInt | kNumber : kNumber;
    }
    case json::value_t::string:
      return kString;
    case json::value_t::array:
      return kArray;
    case json::value_t::object:
      return kObject;
    default:
      return 0;
  }
}

std::string expected_text(unsigned types) {
  std::string text;
  const auto add = [&](unsigned type, const char* name) {
    if ((types & type) != 0) text += (text.empty() ? "" : " or ") + std::string(name);
  };
  add(kBool, "a boolean");
  add(kInt, "an integer");
  if ((types & kInt) == 0) add(kNumber, "a number");
  add(kString, "a string");
  add(kArray, "an array");
  add(kObject, "an object");
  add(kNull, "null");
  return text;
}

constexpr util::EnumWord<json::value_t> kFoundTypes[] = {{json::value_t::null, "null"},
                                                         {json::value_t::boolean, "a boolean"},
                                                         {json::value_t::string, "a string"},
                                                         {json::value_t::array, "an array"},
                                                         {json::value_t::object, "an object"}};

std::string found_text(const json& value) {
  // A number where an integer belongs: show it, the type alone would not say what is wrong.
  if (value.is_number()) return "the number " + value.dump();
  return std::string(util::word_of(kFoundTypes, value.type(), "a binary value"));
}

std::optional<ReportProblem> check(const Node& node, const json& value, const std::string& path);

std::optional<ReportProblem> check_children(const Node& node, const json& value,
                                            const std::string& path) {
  if (value.is_array() && node.element) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto problem = check(*node.element, value[i], path + "[" + std::to_string(i) + "]")) {
        return problem;
      }
    }
  }
  if (!value.is_object()) return std::nullopt;
  for (const auto& [key, item] : value.items()) {
    const auto known = node.keys.find(key);
    const Node* rule = known != node.keys.end() ? &known->second : node.any_key.get();
    if (rule == nullptr) continue;  // not in the schema: a newer probe's field
    if (auto problem = check(*rule, item, path.empty() ? key : path + "." + key)) return problem;
  }
  return std::nullopt;
}

// Recursion follows the schema's depth (a few levels), never the report's.
std::optional<ReportProblem> check(const Node& node, const json& value, const std::string& path) {
  if ((type_of(value) & node.types) == 0) {
    return ReportProblem{path,
                         "expected " + expected_text(node.types) + ", found " + found_text(value)};
  }
  return check_children(node, value, path);
}

// The schema node for a path as ReportProblem names it (`a.b[3].c`); null when unknown.
const Node* node_at(std::string_view path) {
  const Node* node = &schema();
  while (node != nullptr && !path.empty()) {
    if (path.front() == '[') {
      node = node->element.get();
      const auto close = path.find(']');
      path = close == std::string_view::npos ? std::string_view() : path.substr(close + 1);
      continue;
    }
    if (path.front() == '.') path.remove_prefix(1);
    const auto end = path.find_first_of(".[");
    const std::string_view key = path.substr(0, end);
    const auto known = node->keys.find(key);
    node = known != node->keys.end() ? &known->second : node->any_key.get();
    path = end == std::string_view::npos ? std::string_view() : path.substr(end);
  }
  return node;
}

}  // namespace

bool report_field_nullable(std::string_view field) {
  const Node* node = node_at(field);
  return node != nullptr && (node->types & kNull) != 0;
}

bool report_field_accepts(std::string_view field, const json& value) {
  const Node* node = node_at(field);
  return node == nullptr || (node->types & type_of(value)) != 0;
}

std::optional<ReportProblem> check_report(const json& report) {
  if (!report.is_object()) {
    return ReportProblem{"", "expected a JSON object, found " + found_text(report)};
  }
  if (!report.contains("schema")) {
    return ReportProblem{"schema", "missing; bevenv-probe reports say `\"schema\": " +
                                       std::to_string(kReportSchema) + "`"};
  }
  if (auto problem = check(schema(), report, "")) return problem;
  const int version = report["schema"].get<int>();
  if (version != kReportSchema) {
    return ReportProblem{"schema", "version " + std::to_string(version) +
                                       ", but this bevenv reads version " +
                                       std::to_string(kReportSchema)};
  }
  return std::nullopt;
}

}  // namespace bevenv::probes
