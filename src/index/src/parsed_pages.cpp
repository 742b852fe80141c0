#include "parsed_pages.hpp"

#include "bevenv/core/sha256.hpp"
#include "listing_form.hpp"
#include "metadata_errors.hpp"

namespace bevenv::index::parsed_pages {
namespace {

using PageAnswer = core::Expected<Page, std::string>;

// Each page's value by `read(page, i)`, which gives nullopt for a cached form that no longer
// serves; those are dropped from the cache and fetched once more. A second nullopt (which only a
// concurrent writer can cause) is `damaged(i)`.
template <class T, class Read, class Damaged>
std::vector<T> read_pages(Transport& transport, const std::vector<PageRequest>& requests,
                          std::string_view what, Read read, Damaged damaged) {
  auto pages = transport.get(requests, what);
  std::vector<T> out;
  out.reserve(pages.size());
  std::vector<std::size_t> stale;
  for (std::size_t i = 0; i < pages.size(); ++i) {
    std::optional<T> value = read(pages[i], i);
    if (!value) {
      transport.forget(requests[i].url, requests[i].form);
      stale.push_back(i);
      value.emplace(damaged(i));
    }
    out.push_back(std::move(*value));
  }
  if (stale.empty()) return out;
  std::vector<PageRequest> again;
  for (const std::size_t i : stale) again.push_back(requests[i]);
  auto fetched = transport.get(again, what);
  for (std::size_t k = 0; k < stale.size(); ++k) {
    if (std::optional<T> value = read(fetched[k], stale[k])) out[stale[k]] = std::move(*value);
  }
  return out;
}

bool is_json(const Page& page) { return page.content_type.find("json") != std::string::npos; }

// A page parsed from its text is kept in the cache as its listing: a warm run reads that.
std::optional<Artifacts> listing_of(Transport& transport, PageAnswer& page,
                                    const std::string& name) {
  if (!page) {
    if (page.error().find("HTTP 404") != std::string::npos) return std::vector<Artifact>{};
    return core::unexpected("cannot read `" + name + "` from the index: " + page.error());
  }
  if (!page->form.empty()) {
    auto kept = listing_form::decode(page->body, name);
    if (!kept) return std::nullopt;
    return std::move(*kept);
  }
  auto found = is_json(*page) ? parse_simple_json(page->body, page->url, name)
                              : parse_simple_html(page->body, page->url, name);
  if (!found)
    return core::unexpected("the index page `" + page->url + "` is malformed: " + found.error());
  page->body = listing_form::encode(*found);
  page->form = listing_form::kArea;
  transport.commit(*page);
  return found;
}

// A new PEP 658 file is hashed (a cached form was checked before it was committed), parsed,
// held to its release and kept as its form.
core::Expected<CoreMetadata, std::string> parse_new_file(Transport& transport, Page& page,
                                                         const Artifact& a) {
  if (!a.metadata_sha256.empty()) {
    std::string actual = core::sha256_hex(page.body);
    if (actual != a.metadata_sha256) {
      return core::unexpected("sha256 mismatch for `" + page.url + "`: expected " +
                              a.metadata_sha256 + ", got " + actual);
    }
    page.body_sha256 = std::move(actual);
  }
  auto parsed = detail::for_release(a, parse_core_metadata(page.body));
  if (!parsed) return core::unexpected("`" + page.url + "`: " + parsed.error());
  page.body = metadata_form::encode(*parsed);
  page.form = metadata_form::kPages;
  transport.commit(page);
  return parsed;
}

// nullopt: a cached form that does not read, or was checked against another published hash.
std::optional<core::Expected<CoreMetadata, std::string>> metadata_of(Transport& transport,
                                                                     metadata_form::Reader& reader,
                                                                     PageAnswer& page,
                                                                     const Artifact& a) {
  if (!page) return core::unexpected(page.error());
  if (page->form.empty()) return parse_new_file(transport, *page, a);
  if (!a.metadata_sha256.empty() && page->body_sha256 != a.metadata_sha256) return std::nullopt;
  auto kept = reader.decode(page->body);
  if (!kept) return std::nullopt;
  return detail::for_release(a, std::move(*kept));
}

}  // namespace

std::vector<Artifacts> listings(Transport& transport, std::vector<PageRequest> requests,
                                const std::vector<std::string>& names) {
  for (auto& request : requests) request.form = listing_form::kArea;
  return read_pages<Artifacts>(
      transport, requests, "index pages",
      [&](PageAnswer& page, std::size_t i) { return listing_of(transport, page, names[i]); },
      [&](std::size_t i) -> Artifacts {
        return core::unexpected("the cached listing of `" + names[i] + "` keeps changing");
      });
}

void metadata_files(Transport& transport, metadata_form::Reader& reader,
                    const std::vector<Artifact>& artifacts, std::vector<PageRequest> requests,
                    const std::vector<std::size_t>& artifact_of, std::vector<MetadataSlot>& out) {
  for (auto& request : requests) request.form = metadata_form::kPages;
  using Metadata = core::Expected<CoreMetadata, std::string>;
  auto read = read_pages<Metadata>(
      transport, requests, "metadata",
      [&](PageAnswer& page, std::size_t k) {
        return metadata_of(transport, reader, page, artifacts[artifact_of[k]]);
      },
      [&](std::size_t k) -> Metadata {
        return core::unexpected("the cached metadata of `" + artifacts[artifact_of[k]].filename +
                                "` keeps changing");
      });
  for (std::size_t k = 0; k < read.size(); ++k) out[artifact_of[k]] = std::move(read[k]);
}

}  // namespace bevenv::index::parsed_pages
