#include "bevenv/containers/context.hpp"

#include <algorithm>
#include <fstream>
#include <memory>
#include <set>

#include "bevenv/core/error.hpp"
#include "bevenv/core/libarchive.hpp"

namespace bevenv::containers {
namespace {

namespace fs = std::filesystem;
using core::Error;
using core::ExitCode;

using ArchivePtr = std::unique_ptr<archive, int (*)(archive*)>;
using EntryPtr = std::unique_ptr<archive_entry, void (*)(archive_entry*)>;

[[noreturn]] void archive_failure(archive* a, const std::string& what) {
  const auto& la = core::libarchive::api();
  const char* message = la.error_string(a);
  throw Error(ExitCode::failure,
              what + ": " + (message != nullptr ? message : "libarchive reported an error"));
}

la_ssize_t append_to_string(archive*, void* client, const void* buffer, size_t length) {
  static_cast<std::string*>(client)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

void write_data(archive* a, const char* data, std::size_t size, const std::string& path) {
  if (size == 0) return;
  const auto& la = core::libarchive::api();
  if (la.write_data(a, data, size) != static_cast<la_ssize_t>(size)) {
    archive_failure(a, "cannot add `" + path + "` to the build context");
  }
}

std::uintmax_t content_size(const ContextEntry& entry) {
  if (entry.source.empty()) return entry.content.size();
  std::error_code error;
  const auto size = fs::file_size(entry.source, error);
  if (error) {
    throw Error(ExitCode::failure,
                "cannot read `" + entry.source.string() + "`: " + error.message());
  }
  return size;
}

void copy_file_data(archive* a, const ContextEntry& entry, std::uintmax_t size) {
  std::ifstream in(entry.source, std::ios::binary);
  if (!in) throw Error(ExitCode::failure, "cannot read `" + entry.source.string() + "`");
  std::string buffer(1 << 16, '\0');
  std::uintmax_t copied = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    copied += got;
    if (copied > size) break;
    write_data(a, buffer.data(), got, entry.path);
  }
  if (copied != size) {
    throw Error(ExitCode::failure,
                "`" + entry.source.string() + "` changed while the build context was written",
                "run the command again once nothing writes to the project directory");
  }
}

// Parent directories every entry needs, so the archive lists them whatever the caller gave.
void add_parents(std::vector<ContextEntry>& entries) {
  std::set<std::string> present;
  for (const auto& e : entries) present.insert(e.path);
  std::vector<ContextEntry> parents;
  for (const auto& e : entries) {
    std::string path = e.path;
    for (auto slash = path.rfind('/'); slash != std::string::npos; slash = path.rfind('/')) {
      path.resize(slash);
      if (path.empty() || !present.insert(path).second) continue;
      ContextEntry dir;
      dir.path = path;
      dir.kind = ContextEntry::Kind::directory;
      parents.push_back(std::move(dir));
    }
  }
  entries.insert(entries.end(), parents.begin(), parents.end());
}

void check_relative_path(const std::string& path) {
  const bool bad = path.empty() || path.front() == '/' || path.back() == '/' || path == ".." ||
                   path.starts_with("../") || path.find("/../") != std::string::npos ||
                   path.ends_with("/..");
  if (bad) throw Error(ExitCode::failure, "bad build context path `" + path + "`");
}

}  // namespace

void add_directory_tree(std::vector<ContextEntry>& entries, const fs::path& dir,
                        const std::string& prefix) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    throw Error(ExitCode::bad_input, "`" + dir.string() + "` is not a directory",
                "pass the project's checkout to `--context-dir`");
  }
  ContextEntry root;
  root.path = prefix;
  root.kind = ContextEntry::Kind::directory;
  entries.push_back(root);
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, error);
  if (error) {
    throw Error(ExitCode::bad_input, "cannot read `" + dir.string() + "`: " + error.message());
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (error) {
      throw Error(ExitCode::bad_input, "cannot read `" + dir.string() + "`: " + error.message());
    }
    const fs::path& path = it->path();
    // VCS metadata changes with every commit and fetch; it would bust the cache and the digest.
    if (path.filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    ContextEntry entry;
    entry.path = prefix + "/" + path.lexically_relative(dir).generic_string();
    const auto status = it->symlink_status();
    if (fs::is_symlink(status)) {
      entry.kind = ContextEntry::Kind::symlink;
      entry.link_target = fs::read_symlink(path).string();
    } else if (fs::is_directory(status)) {
      entry.kind = ContextEntry::Kind::directory;
    } else if (fs::is_regular_file(status)) {
      entry.source = path;
      entry.executable = (status.permissions() & fs::perms::owner_exec) != fs::perms::none;
    } else {
      continue;  // sockets, fifos and devices have no place in an image
    }
    entries.push_back(std::move(entry));
  }
}

std::string write_context_tar(std::vector<ContextEntry> entries, std::int64_t mtime) {
  add_parents(entries);
  std::sort(entries.begin(), entries.end(),
            [](const ContextEntry& a, const ContextEntry& b) { return a.path < b.path; });
  std::string out;
  const auto& la = core::libarchive::api();
  ArchivePtr writer(la.write_new(), la.write_free);
  if (la.write_set_format_pax_restricted(writer.get()) != ARCHIVE_OK ||
      la.write_add_filter_none(writer.get()) != ARCHIVE_OK ||
      la.write_open(writer.get(), &out, nullptr, append_to_string, nullptr) != ARCHIVE_OK) {
    archive_failure(writer.get(), "cannot start the build context");
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const ContextEntry& e = entries[i];
    check_relative_path(e.path);
    if (i > 0 && entries[i - 1].path == e.path) {
      throw Error(ExitCode::failure, "the build context lists `" + e.path + "` twice");
    }
    EntryPtr header(la.entry_new(), la.entry_free);
    const std::string name = e.kind == ContextEntry::Kind::directory ? e.path + "/" : e.path;
    la.entry_set_pathname(header.get(), name.c_str());
    la.entry_set_mtime(header.get(), static_cast<time_t>(mtime), 0);
    la.entry_set_uid(header.get(), 0);
    la.entry_set_gid(header.get(), 0);
    la.entry_set_uname(header.get(), "root");
    la.entry_set_gname(header.get(), "root");
    std::uintmax_t size = 0;
    switch (e.kind) {
      case ContextEntry::Kind::directory:
        la.entry_set_filetype(header.get(), AE_IFDIR);
        la.entry_set_perm(header.get(), 0755);
        break;
      case ContextEntry::Kind::symlink:
        la.entry_set_filetype(header.get(), AE_IFLNK);
        la.entry_set_perm(header.get(), 0777);
        la.entry_set_symlink(header.get(), e.link_target.c_str());
        break;
      case ContextEntry::Kind::file:
        size = content_size(e);
        la.entry_set_filetype(header.get(), AE_IFREG);
        la.entry_set_perm(header.get(), e.executable ? 0755 : 0644);
        la.entry_set_size(header.get(), static_cast<la_int64_t>(size));
        break;
    }
    if (la.write_header(writer.get(), header.get()) != ARCHIVE_OK) {
      archive_failure(writer.get(), "cannot add `" + e.path + "` to the build context");
    }
    if (e.kind != ContextEntry::Kind::file) continue;
    if (e.source.empty()) {
      write_data(writer.get(), e.content.data(), e.content.size(), e.path);
    } else {
      copy_file_data(writer.get(), e, size);
    }
  }
  if (la.write_close(writer.get()) != ARCHIVE_OK) {
    archive_failure(writer.get(), "cannot finish the build context");
  }
  return out;
}

void extract_context_tar(const std::string& tar_bytes, const fs::path& dir) {
  const auto& la = core::libarchive::api();
  ArchivePtr reader(la.read_new(), la.read_free);
  la.read_support_format_tar(reader.get());
  if (la.read_open_memory(reader.get(), tar_bytes.data(), tar_bytes.size()) != ARCHIVE_OK) {
    archive_failure(reader.get(), "cannot read the build context");
  }
  ArchivePtr writer(la.write_disk_new(), la.write_free);
  la.write_disk_set_options(writer.get(), ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_TIME |
                                              ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                              ARCHIVE_EXTRACT_SECURE_SYMLINKS);
  archive_entry* entry = nullptr;
  while (true) {
    const int status = la.read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status != ARCHIVE_OK) archive_failure(reader.get(), "cannot read the build context");
    const std::string target = (dir / la.entry_pathname(entry)).string();
    la.entry_set_pathname(entry, target.c_str());
    if (la.write_header(writer.get(), entry) != ARCHIVE_OK) {
      archive_failure(writer.get(), "cannot unpack the build context into `" + dir.string() + "`");
    }
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    while (la.read_data_block(reader.get(), &block, &size, &offset) == ARCHIVE_OK) {
      if (la.write_data_block(writer.get(), block, size, offset) != ARCHIVE_OK) {
        archive_failure(writer.get(), "cannot unpack the build context");
      }
    }
    la.write_finish_entry(writer.get());
  }
}

}  // namespace bevenv::containers
