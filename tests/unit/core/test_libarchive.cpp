// core/libarchive: the library is loaded when the table is first asked for, not at start-up,
// and every function of the table is bound to it; a tar written through the table reads back.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "bevenv/core/libarchive.hpp"

namespace {

bool libarchive_loaded() {
  void* handle = ::dlopen("libarchive.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (handle != nullptr) ::dlclose(handle);  // NOLOAD took a reference; give it back
  return handle != nullptr;
}

la_ssize_t append(archive*, void* out, const void* buffer, size_t length) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

}  // namespace

TEST_CASE("libarchive is loaded when first asked for, with every function bound", "[core]") {
  // This test binary links no libarchive, and no core test before this one reads an archive:
  // only the table's loader can bring it in.
  CHECK_FALSE(libarchive_loaded());
  const auto& la = bevenv::core::libarchive::api();
  CHECK(libarchive_loaded());
  const auto* first = reinterpret_cast<const unsigned char*>(&la);
  for (std::size_t at = 0; at < sizeof la; at += sizeof(void*)) {
    void* slot = nullptr;
    std::memcpy(&slot, first + at, sizeof slot);
    CHECK(slot != nullptr);
  }
  CHECK(&bevenv::core::libarchive::api() == &la);  // loaded once
}

TEST_CASE("a tar written through the libarchive table reads back", "[core]") {
  const auto& la = bevenv::core::libarchive::api();
  std::string tar;
  archive* writer = la.write_new();
  REQUIRE(la.write_set_format_pax_restricted(writer) == ARCHIVE_OK);
  REQUIRE(la.write_add_filter_none(writer) == ARCHIVE_OK);
  REQUIRE(la.write_open(writer, &tar, nullptr, append, nullptr) == ARCHIVE_OK);
  archive_entry* entry = la.entry_new();
  la.entry_set_pathname(entry, "pkg-1.0/PKG-INFO");
  la.entry_set_filetype(entry, AE_IFREG);
  la.entry_set_perm(entry, 0644);
  const std::string text = "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n";
  la.entry_set_size(entry, static_cast<la_int64_t>(text.size()));
  REQUIRE(la.write_header(writer, entry) == ARCHIVE_OK);
  REQUIRE(la.write_data(writer, text.data(), text.size()) == static_cast<la_ssize_t>(text.size()));
  la.entry_free(entry);
  REQUIRE(la.write_close(writer) == ARCHIVE_OK);
  la.write_free(writer);

  archive* reader = la.read_new();
  la.read_support_format_tar(reader);
  REQUIRE(la.read_open_memory(reader, tar.data(), tar.size()) == ARCHIVE_OK);
  archive_entry* read = nullptr;
  REQUIRE(la.read_next_header(reader, &read) == ARCHIVE_OK);
  CHECK(std::string(la.entry_pathname(read)) == "pkg-1.0/PKG-INFO");
  std::string back(text.size(), '\0');
  CHECK(la.read_data(reader, back.data(), back.size()) == static_cast<la_ssize_t>(text.size()));
  CHECK(back == text);
  la.read_free(reader);
}
