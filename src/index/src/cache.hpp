#pragma once
// The on-disk layout of the download cache (private to the index module):
//   pages-v1/<sha256 of URL>         header lines, a blank line, then the body
//   <form>/<sha256 of URL>           the same, with a caller's parsed form of the body in place
//                                    of the body (Page::form names the area: listings-v1/ for
//                                    index project pages, listing_form.hpp; core-metadata-v1/
//                                    for PEP 658 files, metadata_form.hpp)
//   files-v2/<sha256 prefix>/<sha256><.whl|.tar.gz|...>
//                                    artifacts, only after their hash was checked; the name is
//                                    derived from the hash, never from what a page served
//   urls-v1/<sha256 of URL>          `sha256 size filename` of an artifact fetched without a hash
//   sizes-v1/<sha256 of URL>         Content-Length learned by HEAD
//   metadata-v2/<sha256>             METADATA read from a remote archive by range requests (or
//                                    a stopped stream), as its form (metadata_form.hpp),
//                                    by the archive's published sha256 (`url-<sha256 of URL>`
//                                    when the source publishes none)
//   tmp/                             partial downloads (`*.part`, each flock-ed by the process
//                                    writing it), renamed into place or removed
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "bevenv/index/transport.hpp"

namespace bevenv::index::cache {

struct CachedPage {
  Page page;
  std::int64_t fetched_at = 0;  // seconds since the epoch
};

// `form` empty: the page as served (pages-v1); else the area of that parsed form.
std::optional<CachedPage> read_page(const std::filesystem::path& root, const std::string& url,
                                    const std::string& form = {});
void write_page(const std::filesystem::path& root, const Page& page, std::int64_t now);
void remove_page(const std::filesystem::path& root, const std::string& url,
                 const std::string& form);

std::filesystem::path file_path(const std::filesystem::path& root, const std::string& sha256,
                                const std::string& filename);
std::optional<DownloadedFile> file_by_url(const std::filesystem::path& root,
                                          const std::string& url);
void remember_file_url(const std::filesystem::path& root, const std::string& url,
                       const DownloadedFile& file);

std::optional<std::uint64_t> read_size(const std::filesystem::path& root, const std::string& url);
void write_size(const std::filesystem::path& root, const std::string& url, std::uint64_t size);

std::optional<std::string> read_metadata(const std::filesystem::path& root,
                                         const std::string& sha256, const std::string& url);
void write_metadata(const std::filesystem::path& root, const std::string& sha256,
                    const std::string& url, std::string_view text);

std::filesystem::path temp_dir(const std::filesystem::path& root);

// A new partial download `tmp/<stem>-<random>.part`, open for writing and flock-ed: it gets its
// `.part` name only once locked, so remove_stale_parts() never takes it for a dead process's.
// Sets `path`; nullptr when the file cannot be made.
std::FILE* open_part(const std::filesystem::path& root, const std::string& stem,
                     std::filesystem::path& path);
// Removes the `tmp/*.part` files that no live process holds (kill -9 leaves them behind), and
// hidden files of a `open_part` cut short that are older than ten minutes.
void remove_stale_parts(const std::filesystem::path& root);

std::int64_t now_seconds();

}  // namespace bevenv::index::cache
