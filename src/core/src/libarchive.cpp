#include "bevenv/core/libarchive.hpp"

#include <dlfcn.h>

#include <string>

#include "bevenv/core/error.hpp"
#include "bevenv/core/shared_library.hpp"

namespace bevenv::core::libarchive {
namespace {

constexpr const char* kLibrary = "libarchive.so.13";
constexpr const char* kInstall =
    "install libarchive (Debian and Ubuntu: `apt-get install libarchive13`; Fedora: `dnf install "
    "libarchive`)";

[[noreturn]] void refuse(const std::string& what) {
  throw Error(ExitCode::failure, "`" + std::string(kLibrary) + "` " + what,
              "fix: " + std::string(kInstall));
}

template <class Function>
void bind(void* library, const char* symbol, Function& slot) {
  void* address = ::dlsym(library, symbol);
  if (address == nullptr) refuse("has no `" + std::string(symbol) + "`");
  slot = reinterpret_cast<Function>(address);
}

Api load() {
  std::string why;
  void* library = open_shared_library(kLibrary, why);
  if (library == nullptr)
    refuse("could not be loaded" + (why.empty() ? std::string() : ": " + why));
  Api api{};
  bind(library, "archive_read_new", api.read_new);
  bind(library, "archive_read_free", api.read_free);
  bind(library, "archive_read_support_format_zip", api.read_support_format_zip);
  bind(library, "archive_read_support_format_zip_seekable", api.read_support_format_zip_seekable);
  bind(library, "archive_read_support_format_tar", api.read_support_format_tar);
  bind(library, "archive_read_support_filter_gzip", api.read_support_filter_gzip);
  bind(library, "archive_read_support_filter_bzip2", api.read_support_filter_bzip2);
  bind(library, "archive_read_open", api.read_open);
  bind(library, "archive_read_open_filename", api.read_open_filename);
  bind(library, "archive_read_open_memory", api.read_open_memory);
  bind(library, "archive_read_next_header", api.read_next_header);
  bind(library, "archive_read_data", api.read_data);
  bind(library, "archive_read_data_block", api.read_data_block);
  bind(library, "archive_error_string", api.error_string);
  bind(library, "archive_write_new", api.write_new);
  bind(library, "archive_write_free", api.write_free);
  bind(library, "archive_write_set_format_pax_restricted", api.write_set_format_pax_restricted);
  bind(library, "archive_write_add_filter_none", api.write_add_filter_none);
  bind(library, "archive_write_open", api.write_open);
  bind(library, "archive_write_header", api.write_header);
  bind(library, "archive_write_data", api.write_data);
  bind(library, "archive_write_data_block", api.write_data_block);
  bind(library, "archive_write_finish_entry", api.write_finish_entry);
  bind(library, "archive_write_close", api.write_close);
  bind(library, "archive_write_disk_new", api.write_disk_new);
  bind(library, "archive_write_disk_set_options", api.write_disk_set_options);
  bind(library, "archive_entry_new", api.entry_new);
  bind(library, "archive_entry_free", api.entry_free);
  bind(library, "archive_entry_pathname", api.entry_pathname);
  bind(library, "archive_entry_set_pathname", api.entry_set_pathname);
  bind(library, "archive_entry_set_mtime", api.entry_set_mtime);
  bind(library, "archive_entry_set_uid", api.entry_set_uid);
  bind(library, "archive_entry_set_gid", api.entry_set_gid);
  bind(library, "archive_entry_set_uname", api.entry_set_uname);
  bind(library, "archive_entry_set_gname", api.entry_set_gname);
  bind(library, "archive_entry_set_filetype", api.entry_set_filetype);
  bind(library, "archive_entry_set_perm", api.entry_set_perm);
  bind(library, "archive_entry_set_size", api.entry_set_size);
  bind(library, "archive_entry_set_symlink", api.entry_set_symlink);
  return api;
}

}  // namespace

const Api& api() {
  // A function-local static: loaded once, thread-safe (an sdist is scanned on a thread of its
  // own), and never unloaded.
  static const Api loaded = load();
  return loaded;
}

}  // namespace bevenv::core::libarchive
