// bevenv-static's libarchive: linked in from Debian's static archive, so the table names its
// functions directly. Linked before the module archives, this definition keeps the dlopen loader
// (libarchive.cpp) out of the link.
#include "bevenv/core/libarchive.hpp"

namespace bevenv::core::libarchive {

const Api& api() {
  static const Api linked{
      &::archive_read_new,
      &::archive_read_free,
      &::archive_read_support_format_zip,
      &::archive_read_support_format_zip_seekable,
      &::archive_read_support_format_tar,
      &::archive_read_support_filter_gzip,
      &::archive_read_support_filter_bzip2,
      &::archive_read_open,
      &::archive_read_open_filename,
      &::archive_read_open_memory,
      &::archive_read_next_header,
      &::archive_read_data,
      &::archive_read_data_block,
      &::archive_error_string,
      &::archive_write_new,
      &::archive_write_free,
      &::archive_write_set_format_pax_restricted,
      &::archive_write_add_filter_none,
      &::archive_write_open,
      &::archive_write_header,
      &::archive_write_data,
      &::archive_write_data_block,
      &::archive_write_finish_entry,
      &::archive_write_close,
      &::archive_write_disk_new,
      &::archive_write_disk_set_options,
      &::archive_entry_new,
      &::archive_entry_free,
      &::archive_entry_pathname,
      &::archive_entry_set_pathname,
      &::archive_entry_set_mtime,
      &::archive_entry_set_uid,
      &::archive_entry_set_gid,
      &::archive_entry_set_uname,
      &::archive_entry_set_gname,
      &::archive_entry_set_filetype,
      &::archive_entry_set_perm,
      &::archive_entry_set_size,
      &::archive_entry_set_symlink,
  };
  return linked;
}

}  // namespace bevenv::core::libarchive
