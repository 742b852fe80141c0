#include "bevenv/index/client.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "bevenv/core/name.hpp"
#include "bevenv/core/sha256.hpp"
#include "cache.hpp"
#include "local_files.hpp"
#include "metadata_errors.hpp"
#include "metadata_form.hpp"
#include "parsed_pages.hpp"
#include "remote_metadata.hpp"
#include "sdist_stream.hpp"

namespace bevenv::index {
namespace {

namespace fs = std::filesystem;
using detail::for_release;

constexpr const char* kAcceptSimple =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01";

std::map<std::string, std::vector<Artifact>> group_by_name(std::vector<Artifact> artifacts) {
  std::map<std::string, std::vector<Artifact>> out;
  for (auto& a : artifacts) {
    const std::string name = a.name;
    out[name].push_back(std::move(a));
  }
  return out;
}

// A local find-links page, up to `limit` bytes (the limit for pages from the network).
core::Expected<std::string, std::string> read_local(const std::string& path, std::uint64_t limit) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return core::unexpected("cannot read the find-links page `" + path + "`");
  std::string text;
  char buffer[65536];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0 && text.size() <= limit)
    text.append(buffer, n);
  std::fclose(file);
  if (text.size() > limit) {
    return core::unexpected("the find-links page `" + path + "` is larger than the " +
                            std::to_string(limit >> 20) +
                            " MiB limit\nhint: `BEVENV_MAX_PAGE_MB` raises the limit");
  }
  return text;
}

// A find-links page by name, or why it cannot be used.
core::Expected<std::map<std::string, std::vector<Artifact>>, std::string> link_page(
    std::string_view html, const std::string& location) {
  auto parsed = parse_simple_html(html, location);
  if (!parsed) {
    return core::unexpected("the find-links page `" + location +
                            "` is malformed: " + parsed.error());
  }
  return group_by_name(std::move(parsed).value());
}

core::Expected<CoreMetadata, std::string> metadata_from_file(const Artifact& artifact,
                                                             const fs::path& path,
                                                             std::uint64_t limit) {
  auto text = artifact.kind == ArtifactKind::wheel ? wheel_metadata_text(path, limit)
                                                   : sdist_metadata_text(path, limit);
  if (!text) return core::unexpected(text.error());
  auto parsed = parse_core_metadata(*text);
  if (!parsed)
    return core::unexpected("the metadata of `" + artifact.filename + "`: " + parsed.error());
  return for_release(artifact, std::move(parsed));
}

// Metadata read from part of a remote archive: parsed and held to the release.
core::Expected<CoreMetadata, std::string> parse_metadata_of(const Artifact& artifact,
                                                            std::string_view text) {
  auto parsed = parse_core_metadata(text);
  if (!parsed)
    return core::unexpected("the metadata of `" + artifact.filename + "`: " + parsed.error());
  return for_release(artifact, std::move(parsed));
}

// Metadata read from part of a remote archive, kept in the cache (as its form, metadata_form.hpp)
// only once it parsed, as pages are committed only once they parsed: a warm run then reads it
// without a request and without parsing the text again.
core::Expected<CoreMetadata, std::string> keep_remote_metadata(const fs::path& root,
                                                               const Artifact& artifact,
                                                               const std::string& text) {
  auto parsed = parse_metadata_of(artifact, text);
  if (parsed)
    cache::write_metadata(root, artifact.sha256, artifact.url, metadata_form::encode(*parsed));
  return parsed;
}

std::string host_of(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return {};
  const auto begin = scheme + 3;
  return url.substr(begin, url.find('/', begin) - begin);
}

bool is_http(const std::string& url) {
  return url.starts_with("https://") || url.starts_with("http://");
}

// Wheels over HTTP: a zip's directory sits at its end, so a few ranges find the METADATA.
bool range_readable(const Artifact& a) { return a.kind == ArtifactKind::wheel && is_http(a.url); }

// The whole archive is in the cache already: reading it there costs no transfer.
bool whole_file_cached(const fs::path& root, const Artifact& a) {
  std::error_code ec;
  if (!a.sha256.empty())
    return fs::is_regular_file(cache::file_path(root, a.sha256, a.filename), ec);
  return cache::file_by_url(root, a.url).has_value();
}

}  // namespace

namespace detail {

// Metadata must describe the release the file name promises: otherwise the lock would pin one
// release and install another.
core::Expected<CoreMetadata, std::string> for_release(const Artifact& artifact,
                                                      core::Expected<CoreMetadata, std::string> m) {
  if (!m) return m;
  if (core::normalize_name(m->name) == artifact.name && m->version == artifact.version) return m;
  return core::unexpected(
      "the metadata of `" + artifact.filename + "` is for `" + m->name + " " +
      m->version.to_string() + "`, not `" + artifact.name + " " + artifact.version.to_string() +
      "`\nhint: " + std::string(detail::kAnotherRelease) + "; tell its maintainers");
}

}  // namespace detail

std::string local_path_of(const std::string& url) {
  return url.starts_with("file://") ? url.substr(7) : std::string();
}

IndexClient::IndexClient(IndexSettings settings, Reporter* reporter)
    : settings_(std::move(settings)),
      sources_(settings_.sources()),
      transport_(settings_.transport, reporter),
      local_(std::make_unique<local::LocalFiles>(settings_.transport.cache_dir)),
      forms_(std::make_unique<metadata_form::Reader>()) {}

IndexClient::~IndexClient() = default;

void IndexClient::load_find_links(const std::vector<Source>& wanted) {
  std::vector<PageRequest> requests;
  std::vector<std::string> locations;
  for (const Source& source : wanted) {
    if (source.kind == SourceKind::index || link_pages_.count(source.location) > 0) continue;
    if (source.kind == SourceKind::directory) {
      auto listed = local_->list_directory(source.location);
      if (!listed) {
        link_pages_.emplace(source.location, core::unexpected(listed.error()));
      } else {
        link_pages_.emplace(source.location, group_by_name(std::move(listed).value()));
      }
      continue;
    }
    if (const std::string path = local_path_of(source.location); !path.empty()) {
      const auto html = read_local(path, settings_.transport.max_page_size);
      if (!html) {
        link_pages_.emplace(source.location, core::unexpected(html.error()));
        continue;
      }
      link_pages_.emplace(source.location, link_page(*html, source.location));
      continue;
    }
    if (std::find(locations.begin(), locations.end(), source.location) != locations.end()) continue;
    requests.push_back({source.location, "text/html", false, {}});
    locations.push_back(source.location);
  }
  auto pages = transport_.get(requests, "find-links pages");
  for (std::size_t i = 0; i < pages.size(); ++i) {
    if (!pages[i]) {
      link_pages_.emplace(locations[i], core::unexpected(pages[i].error()));
      continue;
    }
    auto page = link_page(pages[i]->body, locations[i]);
    if (page) transport_.commit(*pages[i]);  // a malformed page is never cached
    link_pages_.emplace(locations[i], std::move(page));
  }
}

core::Expected<std::vector<Artifact>, std::string> IndexClient::from_find_links(
    const Source& source, const std::string& name) {
  const auto& page = link_pages_.at(source.location);
  if (!page) return core::unexpected(page.error());
  const auto it = page->find(name);
  if (it == page->end()) return std::vector<Artifact>{};
  return it->second;
}

std::map<std::string, core::Expected<Listing, std::string>> IndexClient::list(
    const std::vector<std::string>& names, const std::map<std::string, std::vector<Source>>& only) {
  auto sources_for = [&](const std::string& name) -> const std::vector<Source>& {
    const auto it = only.find(name);
    return it != only.end() ? it->second : sources_;
  };
  std::vector<Source> all_link_sources;
  for (const auto& name : names) {
    for (const Source& s : sources_for(name)) all_link_sources.push_back(s);
  }
  load_find_links(all_link_sources);

  // Every (name, index) page in one parallel batch; the priority is applied afterwards.
  std::vector<PageRequest> requests;
  std::vector<std::string> request_names;
  std::map<std::pair<std::string, std::string>, std::size_t> request_of;
  for (const auto& name : names) {
    for (const Source& s : sources_for(name)) {
      if (s.kind != SourceKind::index) continue;
      const auto key = std::make_pair(name, s.location);
      if (request_of.count(key) > 0) continue;
      request_of[key] = requests.size();
      requests.push_back({s.location + "/" + name + "/", kAcceptSimple, false, {}});
      request_names.push_back(name);
    }
  }
  auto pages = parsed_pages::listings(transport_, requests, request_names);

  std::map<std::string, core::Expected<Listing, std::string>> out;
  for (const auto& name : names) {
    Listing listing;
    listing.name = name;
    std::optional<std::string> failure;
    for (const Source& s : sources_for(name)) {
      parsed_pages::Artifacts found = s.kind == SourceKind::index
                                          ? std::move(pages[request_of.at({name, s.location})])
                                          : from_find_links(s, name);
      if (!found) {
        failure = found.error();
        break;
      }
      if (found->empty()) continue;
      listing.source = s;
      listing.artifacts = std::move(found).value();
      break;
    }
    if (failure) {
      out.emplace(name, core::unexpected(*failure));
    } else {
      out.emplace(name, std::move(listing));
    }
  }
  return out;
}

std::vector<core::Expected<CoreMetadata, std::string>> IndexClient::metadata(
    const std::vector<Artifact>& artifacts) {
  auto read = metadata(artifacts, MetadataCost::any);
  std::vector<core::Expected<CoreMetadata, std::string>> out;
  out.reserve(read.size());
  for (auto& r : read) out.push_back(std::move(r).value());
  return out;
}

// Where each artifact's metadata is read from, by the cheapest way there is; `*_of` are the
// artifacts' places in the caller's list.
struct IndexClient::MetadataPlan {
  std::vector<PageRequest> pages;  // PEP 658 files
  std::vector<std::size_t> page_of;
  std::vector<remote::WheelRead> ranged;  // remote wheels read by byte ranges
  std::vector<std::size_t> ranged_of;
  std::vector<std::string> streamed;  // remote sdists read until PKG-INFO has arrived
  std::vector<std::size_t> streamed_of;
  std::vector<FileRequest> files;  // archives read whole, from the cache or downloaded
  std::vector<std::size_t> file_of;
};

std::vector<std::optional<core::Expected<CoreMetadata, std::string>>> IndexClient::metadata(
    const std::vector<Artifact>& artifacts, MetadataCost cost) {
  std::vector<std::optional<core::Expected<CoreMetadata, std::string>>> out(artifacts.size());
  std::vector<std::pair<const Artifact*, std::string>> local_files;
  for (const Artifact& a : artifacts) {
    if (std::string path = local_path_of(a.url); !path.empty())
      local_files.emplace_back(&a, std::move(path));
  }
  local_->prefetch_metadata(local_files);
  MetadataPlan plan = plan_metadata(artifacts, cost, out);
  local_->save();
  parsed_pages::metadata_files(transport_, *forms_, artifacts, plan.pages, plan.page_of, out);
  read_by_ranges(artifacts, cost, plan, out);
  read_streamed(artifacts, plan, out);
  read_whole(artifacts, plan, out);
  return out;
}

// Metadata read from part of a remote archive by an earlier run; nullopt when there is none, or
// when its form no longer reads (then it is read again).
std::optional<CoreMetadata> IndexClient::kept_archive_metadata(const fs::path& root,
                                                               const Artifact& a) {
  const auto bytes = cache::read_metadata(root, a.sha256, a.url);
  return bytes ? forms_->decode(*bytes) : std::nullopt;
}

// Local files and metadata in the cache are read here; the rest is planned.
IndexClient::MetadataPlan IndexClient::plan_metadata(const std::vector<Artifact>& artifacts,
                                                     MetadataCost cost, MetadataSlots& out) {
  MetadataPlan plan;
  const fs::path& root = transport_.settings().cache_dir;
  const bool offline = transport_.settings().offline;
  for (std::size_t i = 0; i < artifacts.size(); ++i) {
    const Artifact& a = artifacts[i];
    if (const std::string path = local_path_of(a.url); !path.empty()) {
      out[i] = for_release(a, local_->metadata(a, path));
    } else if (a.has_metadata_file) {
      plan.pages.push_back({a.url + ".metadata", "", true, {}});
      plan.page_of.push_back(i);
    } else if (auto kept = kept_archive_metadata(root, a)) {
      out[i] = for_release(a, std::move(*kept));
    } else if (range_readable(a) && !whole_file_cached(root, a) && !offline &&
               stats_.no_ranges.count(host_of(a.url)) == 0) {
      plan.ranged.push_back({a.url, a.name});
      plan.ranged_of.push_back(i);
    } else if (a.kind == ArtifactKind::sdist && is_http(a.url) && cost == MetadataCost::any &&
               !whole_file_cached(root, a) && !offline) {
      plan.streamed.push_back(a.url);
      plan.streamed_of.push_back(i);
    } else {
      plan_whole(a, i, cost, plan);
    }
  }
  return plan;
}

// An archive read whole: from the cache, or (unless `cheap_only`) downloaded first.
void IndexClient::plan_whole(const Artifact& a, std::size_t i, MetadataCost cost,
                             MetadataPlan& plan) {
  const bool cached = whole_file_cached(transport_.settings().cache_dir, a);
  if (cost == MetadataCost::cheap_only && !cached) return;
  if (!cached) ++stats_.whole_downloads;
  plan.files.push_back({a.url, a.filename, a.sha256});
  plan.file_of.push_back(i);
}

// A host that answers a range request with the whole file is not asked for ranges again; its
// wheels are read whole.
void IndexClient::read_by_ranges(const std::vector<Artifact>& artifacts, MetadataCost cost,
                                 MetadataPlan& plan, MetadataSlots& out) {
  const fs::path& root = transport_.settings().cache_dir;
  auto read = remote::read_wheel_metadata(transport_, plan.ranged);
  for (std::size_t k = 0; k < read.size(); ++k) {
    const Artifact& a = artifacts[plan.ranged_of[k]];
    if (read[k].ranges_ignored) {
      stats_.no_ranges.insert(host_of(a.url));
      plan_whole(a, plan.ranged_of[k], cost, plan);
      continue;
    }
    if (!read[k].text) {
      out[plan.ranged_of[k]] = core::unexpected(read[k].error);
      continue;
    }
    ++stats_.by_range;
    stats_.range_bytes += read[k].bytes;
    out[plan.ranged_of[k]] = keep_remote_metadata(root, a, *read[k].text);
  }
}

void IndexClient::read_streamed(const std::vector<Artifact>& artifacts, const MetadataPlan& plan,
                                MetadataSlots& out) {
  const fs::path& root = transport_.settings().cache_dir;
  auto sdists = remote::read_sdist_metadata(transport_, plan.streamed);
  for (std::size_t k = 0; k < sdists.size(); ++k) {
    const Artifact& a = artifacts[plan.streamed_of[k]];
    stats_.stream_bytes += sdists[k].bytes;
    if (!sdists[k].text) {
      out[plan.streamed_of[k]] = core::unexpected(sdists[k].error);
      continue;
    }
    ++stats_.streamed;
    out[plan.streamed_of[k]] = keep_remote_metadata(root, a, *sdists[k].text);
  }
}

void IndexClient::read_whole(const std::vector<Artifact>& artifacts, const MetadataPlan& plan,
                             MetadataSlots& out) {
  auto downloaded = transport_.download(plan.files, "metadata (whole archives)");
  for (std::size_t k = 0; k < downloaded.size(); ++k) {
    if (!downloaded[k]) {
      out[plan.file_of[k]] = core::unexpected(downloaded[k].error());
      continue;
    }
    out[plan.file_of[k]] = metadata_from_file(artifacts[plan.file_of[k]], downloaded[k]->path,
                                              settings_.transport.max_metadata_size);
  }
}

std::vector<core::Expected<Artifact, std::string>> IndexClient::complete(
    std::vector<Artifact> artifacts) {
  std::vector<core::Expected<Artifact, std::string>> out;
  std::vector<FileRequest> files;
  std::vector<std::size_t> file_of;
  std::vector<std::string> heads;
  std::vector<std::size_t> head_of;
  for (std::size_t i = 0; i < artifacts.size(); ++i) {
    Artifact& a = artifacts[i];
    if (const std::string path = local_path_of(a.url); !path.empty()) {
      std::error_code ec;
      a.size = static_cast<std::uint64_t>(fs::file_size(path, ec));
      if (ec) {
        out.emplace_back(core::unexpected("cannot read `" + path + "`: " + ec.message()));
        continue;
      }
      const auto hashed = local_->sha256(path);
      if (!hashed) {
        out.emplace_back(core::unexpected("cannot read `" + path + "`"));
        continue;
      }
      const std::string& actual = *hashed;
      if (!a.sha256.empty() && a.sha256 != actual) {
        out.emplace_back(core::unexpected("sha256 mismatch for `" + a.url + "`: expected " +
                                          a.sha256 + ", got " + actual));
        continue;
      }
      a.sha256 = actual;
    } else if (a.sha256.empty()) {
      files.push_back({a.url, a.filename, ""});
      file_of.push_back(i);
    } else if (!a.size) {
      std::error_code ec;
      const fs::path cached =
          cache::file_path(transport_.settings().cache_dir, a.sha256, a.filename);
      if (fs::is_regular_file(cached, ec)) {
        a.size = static_cast<std::uint64_t>(fs::file_size(cached, ec));
      } else {
        heads.push_back(a.url);
        head_of.push_back(i);
      }
    }
    out.emplace_back(a);
  }
  local_->save();
  auto downloaded = transport_.download(files, "artifacts without a published hash");
  for (std::size_t k = 0; k < downloaded.size(); ++k) {
    auto& slot = out[file_of[k]];
    if (!downloaded[k]) {
      slot = core::unexpected(downloaded[k].error());
      continue;
    }
    slot->sha256 = downloaded[k]->sha256;
    slot->size = downloaded[k]->size;
  }
  auto sizes = transport_.sizes(heads);
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (out[head_of[k]]) out[head_of[k]]->size = sizes[k];
  }
  return out;
}

bool unusable_release(std::string_view error) {
  return error.find(detail::kNoPkgInfo) != std::string_view::npos ||
         error.find(detail::kAnotherRelease) != std::string_view::npos;
}

}  // namespace bevenv::index
