// `[[observed_host]]`: what `bevenv doctor --record` measured about a machine (driver, GPUs, how
// the kernel probe ran on each, NCCL, /dev/shm), read back so that `bevenv lock` on that machine
// can take its target from it.
#include <cctype>

#include "sections.hpp"

namespace bevenv::matrix::detail {
namespace {

bool is_iso_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == 4 || i == 7) continue;
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

// `kernels = { sm_90 = "cubin" }`: every key an architecture, every value how it ran.
void check_kernels(TableReader& reader,
                   const std::map<std::string, std::string, std::less<>>& kernels) {
  for (const auto& [arch, image] : kernels) {
    if (!is_arch_name(arch, "sm_")) {
      reader.file_error(reader.position("kernels"),
                        "`observed_host.kernels`: `" + arch + "` is not an architecture (`sm_90`)");
    }
    if (image != "cubin" && image != "ptx" && image != "fail") {
      reader.file_error(
          reader.position("kernels"),
          "`observed_host.kernels." + arch + "`: `" + image + "` is not `cubin`, `ptx` or `fail`");
    }
  }
}

void read_probe_facts(TableReader& reader, ObservedHost& record) {
  if (auto gpus = reader.strings("gpus", true)) {
    check_arch_list(reader, "gpus", *gpus, "sm_");
    record.gpus = std::move(*gpus);
  }
  if (auto kernels = reader.string_map("kernels")) {
    check_kernels(reader, *kernels);
    record.kernels = std::move(*kernels);
  }
  if (auto version = reader.string("nccl_version")) record.nccl_version = std::move(*version);
  static const std::vector<std::string> outcomes = {"ok", "fail"};
  if (auto outcome = reader.choice("nccl_outcome", outcomes, "")) {
    record.nccl_outcome = std::move(*outcome);
  }
  if (auto shm = reader.integer("shm_bytes")) {
    if (*shm < 0) {
      reader.file_error(reader.position("shm_bytes"), "`observed_host.shm_bytes` is negative");
    }
    record.shm_bytes = *shm;
  }
}

}  // namespace

std::optional<ObservedHost> read_observed_host(TableReader& reader, const FileContext& file) {
  ObservedHost record;
  record.origin = observation_origin(reader, file);
  auto host = reader.string("host", true);
  auto hostname = reader.string("hostname", true);
  auto date = reader.string("date", true);
  if (date && !is_iso_date(*date)) {
    reader.file_error(reader.position("date"),
                      "`observed_host.date`: `" + *date + "` is not a date (`2026-12-01`)");
  }
  auto driver = reader.string("driver", true);
  auto cuda_driver = reader.version("cuda_driver", true);
  read_probe_facts(reader, record);
  reader.finish();
  if (!reader.ok() || !host || !hostname || !date || !driver || !cuda_driver) return std::nullopt;
  record.host = std::move(*host);
  record.hostname = std::move(*hostname);
  record.date = std::move(*date);
  record.driver = std::move(*driver);
  record.cuda_driver = std::move(*cuda_driver);
  return record;
}

}  // namespace bevenv::matrix::detail
