#pragma once
// libarchive, loaded the first time an archive is read or written (a local wheel's METADATA, an
// sdist's PKG-INFO, an image's build context). Linked at start-up it cost every command about
// 2 ms (it brings ten libraries: compressors, nettle, libxml2 and ICU), which a lock from the
// matrix or from a warm index cache, `why`, `export` or `doctor` never use. The prototypes are
// archive.h's own, so a call through the table is checked as a direct call would be.
// bevenv-static links libarchive in and binds the table to it (static/libarchive_linked.cpp).
#include <archive.h>
#include <archive_entry.h>

namespace bevenv::core::libarchive {

struct Api {
  // Reading.
  decltype(&::archive_read_new) read_new;
  decltype(&::archive_read_free) read_free;
  decltype(&::archive_read_support_format_zip) read_support_format_zip;
  decltype(&::archive_read_support_format_zip_seekable) read_support_format_zip_seekable;
  decltype(&::archive_read_support_format_tar) read_support_format_tar;
  decltype(&::archive_read_support_filter_gzip) read_support_filter_gzip;
  decltype(&::archive_read_support_filter_bzip2) read_support_filter_bzip2;
  decltype(&::archive_read_open) read_open;
  decltype(&::archive_read_open_filename) read_open_filename;
  decltype(&::archive_read_open_memory) read_open_memory;
  decltype(&::archive_read_next_header) read_next_header;
  decltype(&::archive_read_data) read_data;
  decltype(&::archive_read_data_block) read_data_block;
  decltype(&::archive_error_string) error_string;
  // Writing a tar, and unpacking one onto disk.
  decltype(&::archive_write_new) write_new;
  decltype(&::archive_write_free) write_free;
  decltype(&::archive_write_set_format_pax_restricted) write_set_format_pax_restricted;
  decltype(&::archive_write_add_filter_none) write_add_filter_none;
  decltype(&::archive_write_open) write_open;
  decltype(&::archive_write_header) write_header;
  decltype(&::archive_write_data) write_data;
  decltype(&::archive_write_data_block) write_data_block;
  decltype(&::archive_write_finish_entry) write_finish_entry;
  decltype(&::archive_write_close) write_close;
  decltype(&::archive_write_disk_new) write_disk_new;
  decltype(&::archive_write_disk_set_options) write_disk_set_options;
  // Entries.
  decltype(&::archive_entry_new) entry_new;
  decltype(&::archive_entry_free) entry_free;
  decltype(&::archive_entry_pathname) entry_pathname;
  decltype(&::archive_entry_set_pathname) entry_set_pathname;
  decltype(&::archive_entry_set_mtime) entry_set_mtime;
  decltype(&::archive_entry_set_uid) entry_set_uid;
  decltype(&::archive_entry_set_gid) entry_set_gid;
  decltype(&::archive_entry_set_uname) entry_set_uname;
  decltype(&::archive_entry_set_gname) entry_set_gname;
  decltype(&::archive_entry_set_filetype) entry_set_filetype;
  decltype(&::archive_entry_set_perm) entry_set_perm;
  decltype(&::archive_entry_set_size) entry_set_size;
  decltype(&::archive_entry_set_symlink) entry_set_symlink;
};

// The library, loaded once and kept for the process. Throws core::Error (failure) naming the
// library and the package that provides it when it cannot be loaded or lacks a function.
const Api& api();

}  // namespace bevenv::core::libarchive
