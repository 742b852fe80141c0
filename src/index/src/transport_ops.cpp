// The Transport operations: pages (with cache revalidation), artifact downloads (checked,
// then renamed into the cache) and HEAD sizes.
#include <memory>

#include "bevenv/index/transport.hpp"
#include "cache.hpp"
#include "transport_job.hpp"

namespace bevenv::index {
namespace {

namespace fs = std::filesystem;

std::string offline_miss(const std::string& url) {
  return "`" + url + "` is not in the cache, and --offline forbids the network";
}

}  // namespace

std::string store_download(Transport::Job& job, const fs::path& cache_dir) {
  job.actual_sha256 = job.hasher.hex_digest();
  if (!job.expected_sha256.empty() && job.actual_sha256 != job.expected_sha256) {
    job.drop_part();
    return {};  // download() names both hashes
  }
  const fs::path final_path = cache::file_path(cache_dir, job.actual_sha256, job.filename);
  std::error_code ec;
  fs::create_directories(final_path.parent_path(), ec);
  fs::rename(job.temp, final_path, ec);
  if (ec) {
    job.drop_part();
    return "cannot store `" + job.filename + "` in the cache at `" + final_path.string() +
           "`: " + ec.message();
  }
  job.temp.clear();
  job.drop_part();  // closes the file and lets go of its lock
  job.stored = final_path;
  return {};
}

std::pair<std::string, std::string> split_hint(const std::string& error) {
  const std::string marker = "\nhint: ";
  const auto at = error.rfind(marker);
  if (at == std::string::npos) return {error, {}};
  return {error.substr(0, at), error.substr(at + marker.size())};
}

std::vector<core::Expected<Page, std::string>> Transport::get(
    const std::vector<PageRequest>& requests, std::string_view what) {
  const std::int64_t now = cache::now_seconds();
  const auto make = [&](const PageRequest& request,
                        core::Expected<Page, std::string>& answer) -> std::unique_ptr<Job> {
    auto cached = cache::read_page(settings_.cache_dir, request.url, request.form);
    const bool fresh =
        cached && cached->page.max_age > 0 && now - cached->fetched_at < cached->page.max_age;
    if (cached && (fresh || settings_.offline)) {
      answer = std::move(cached->page);
      return nullptr;
    }
    auto job = new_job(JobKind::page, request.url);
    job->accept = request.accept;
    job->metadata_file = request.metadata_file;
    job->max_body = job->metadata_file ? settings_.max_metadata_size : settings_.max_page_size;
    job->cached = std::move(cached);
    return job;
  };
  return answer_each<Page>(requests, what, make, offline_miss, [&](Job& job) -> Page {
    if (job.status == 304 && job.cached) {
      Page page = std::move(job.cached->page);
      // The server confirmed the copy: keep its new validators and restart its freshness.
      if (!job.etag.empty()) page.etag = job.etag;
      if (!job.last_modified.empty()) page.last_modified = job.last_modified;
      page.max_age = job.max_age;
      page.from_cache = true;
      cache::write_page(settings_.cache_dir, page, cache::now_seconds());
      return page;
    }
    Page page;
    page.url = job.url;
    page.body = std::move(job.body);
    page.content_type = job.content_type;
    page.etag = job.etag;
    page.last_modified = job.last_modified;
    page.max_age = job.max_age;
    return page;
  });
}

void Transport::run_made(const std::vector<std::unique_ptr<Job>>& jobs, std::string_view what) {
  std::vector<Job*> to_run;
  for (const auto& job : jobs) {
    if (job) to_run.push_back(job.get());
  }
  run(to_run, what);
}

void Transport::commit(const Page& page) {
  if (page.from_cache) return;
  cache::write_page(settings_.cache_dir, page, cache::now_seconds());
}

void Transport::forget(const std::string& url, const std::string& form) {
  cache::remove_page(settings_.cache_dir, url, form);
}

std::vector<core::Expected<DownloadedFile, std::string>> Transport::download(
    const std::vector<FileRequest>& requests, std::string_view what) {
  const auto make =
      [&](const FileRequest& request,
          core::Expected<DownloadedFile, std::string>& answer) -> std::unique_ptr<Job> {
    std::error_code ec;
    if (!request.sha256.empty()) {
      const fs::path path = cache::file_path(settings_.cache_dir, request.sha256, request.filename);
      if (fs::is_regular_file(path, ec)) {
        answer = DownloadedFile{path, request.sha256, fs::file_size(path, ec)};
        return nullptr;
      }
    } else if (auto known = cache::file_by_url(settings_.cache_dir, request.url)) {
      answer = *known;
      return nullptr;
    }
    auto job = new_job(JobKind::file, request.url);
    job->filename = request.filename;
    job->expected_sha256 = request.sha256;
    return job;
  };
  return answer_each<DownloadedFile>(
      requests, what, make, offline_miss,
      [&](Job& job) -> core::Expected<DownloadedFile, std::string> {
        if (job.stored.empty()) {
          return core::unexpected("sha256 mismatch for `" + job.url + "`: expected " +
                                  job.expected_sha256 + ", got " + job.actual_sha256);
        }
        DownloadedFile file{job.stored, job.actual_sha256, job.received};
        if (job.expected_sha256.empty())
          cache::remember_file_url(settings_.cache_dir, job.url, file);
        return file;
      });
}

std::vector<std::optional<std::uint64_t>> Transport::sizes(const std::vector<std::string>& urls) {
  std::vector<std::optional<std::uint64_t>> out(urls.size());
  std::vector<std::unique_ptr<Job>> jobs(urls.size());
  for (std::size_t i = 0; i < urls.size(); ++i) {
    out[i] = cache::read_size(settings_.cache_dir, urls[i]);
    if (out[i] || settings_.offline) continue;
    jobs[i] = new_job(JobKind::head, urls[i]);
  }
  run_made(jobs, "sizes");
  for (std::size_t i = 0; i < urls.size(); ++i) {
    Job* job = jobs[i].get();
    if (job == nullptr || !job->error.empty() || !job->content_length) continue;
    out[i] = job->content_length;
    cache::write_size(settings_.cache_dir, urls[i], *job->content_length);
  }
  return out;
}

}  // namespace bevenv::index
