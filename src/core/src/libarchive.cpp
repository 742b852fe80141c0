#include "bevenv/core/libarchive.hpp"

#include "bevenv/core/shared_library.hpp"

namespace bevenv::core::libarchive {
namespace {

Api load() {
  const SharedLibrary library(
      "libarchive.so.13",
      "install libarchive (Debian and Ubuntu: `apt-get install libarchive13`; Fedora: `dnf "
      "install libarchive`)");
  Api api{};
  library.bind("archive_read_new", api.read_new);
  library.bind("archive_read_free", api.read_free);
  library.bind("archive_read_support_format_zip", api.read_support_format_zip);
  library.bind("archive_read_support_format_zip_seekable", api.read_support_format_zip_seekable);
  library.bind("archive_read_support_format_tar", api.read_support_format_tar);
  library.bind("archive_read_support_filter_gzip", api.read_support_filter_gzip);
  library.bind("archive_read_support_filter_bzip2", api.read_support_filter_bzip2);
  library.bind("archive_read_open", api.read_open);
  library.bind("archive_read_open_filename", api.read_open_filename);
  library.bind("archive_read_open_memory", api.read_open_memory);
  library.bind("archive_read_next_header", api.read_next_header);
  library.bind("archive_read_data", api.read_data);
  library.bind("archive_read_data_block", api.read_data_block);
  library.bind("archive_error_string", api.error_string);
  library.bind("archive_write_new", api.write_new);
  library.bind("archive_write_free", api.write_free);
  library.bind("archive_write_set_format_pax_restricted", api.write_set_format_pax_restricted);
  library.bind("archive_write_add_filter_none", api.write_add_filter_none);
  library.bind("archive_write_open", api.write_open);
  library.bind("archive_write_header", api.write_header);
  library.bind("archive_write_data", api.write_data);
  library.bind("archive_write_data_block", api.write_data_block);
  library.bind("archive_write_finish_entry", api.write_finish_entry);
  library.bind("archive_write_close", api.write_close);
  library.bind("archive_write_disk_new", api.write_disk_new);
  library.bind("archive_write_disk_set_options", api.write_disk_set_options);
  library.bind("archive_entry_new", api.entry_new);
  library.bind("archive_entry_free", api.entry_free);
  library.bind("archive_entry_pathname", api.entry_pathname);
  library.bind("archive_entry_set_pathname", api.entry_set_pathname);
  library.bind("archive_entry_set_mtime", api.entry_set_mtime);
  library.bind("archive_entry_set_uid", api.entry_set_uid);
  library.bind("archive_entry_set_gid", api.entry_set_gid);
  library.bind("archive_entry_set_uname", api.entry_set_uname);
  library.bind("archive_entry_set_gname", api.entry_set_gname);
  library.bind("archive_entry_set_filetype", api.entry_set_filetype);
  library.bind("archive_entry_set_perm", api.entry_set_perm);
  library.bind("archive_entry_set_size", api.entry_set_size);
  library.bind("archive_entry_set_symlink", api.entry_set_symlink);
  return api;
}

}  // namespace

// Safe from any thread (an sdist is scanned on a thread of its own).
const Api& api() { return loaded_once<load>(); }

}  // namespace bevenv::core::libarchive
