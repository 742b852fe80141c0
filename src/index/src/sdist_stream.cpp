#include "sdist_stream.hpp"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "bevenv/core/libarchive.hpp"
#include "sdist_scan.hpp"

namespace bevenv::index::remote {
namespace {

// libarchive pulls its input and the transport pushes it: the scan runs on its own thread and
// waits for chunks, so the transfer can be read (and stopped) as it arrives.
class Scanner {
 public:
  explicit Scanner(std::string what) : what_(std::move(what)), thread_([this] { run(); }) {}
  ~Scanner() {
    close();
    thread_.join();
  }
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  // More bytes for the scan; false once it needs no more.
  bool feed(std::string_view chunk) {
    const std::lock_guard lock(mutex_);
    if (done_) return false;
    chunks_.emplace_back(chunk);
    ready_.notify_one();
    return true;
  }

  // The transfer has ended: the scan sees the end of its input, and its result is final.
  core::Expected<std::string, std::string> finish() {
    close();
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [this] { return done_; });
    return result_;
  }

 private:
  void close() {
    const std::lock_guard lock(mutex_);
    eof_ = true;
    ready_.notify_one();
  }

  static la_ssize_t pull(archive*, void* self, const void** buffer) {
    auto* s = static_cast<Scanner*>(self);
    std::unique_lock lock(s->mutex_);
    s->ready_.wait(lock, [s] { return !s->chunks_.empty() || s->eof_; });
    if (s->chunks_.empty()) return 0;
    s->current_ = std::move(s->chunks_.front());
    s->chunks_.pop_front();
    *buffer = s->current_.data();
    return static_cast<la_ssize_t>(s->current_.size());
  }

  void run() {
    const auto& la = core::libarchive::api();
    archive* reader = la.read_new();
    la.read_support_format_tar(reader);
    la.read_support_format_zip(reader);
    la.read_support_filter_gzip(reader);
    la.read_support_filter_bzip2(reader);
    core::Expected<std::string, std::string> result = core::unexpected(std::string());
    if (la.read_open(reader, this, nullptr, &Scanner::pull, nullptr) != ARCHIVE_OK) {
      result = core::unexpected("cannot open " + what_ + ": " + la.error_string(reader));
    } else {
      result = scan_sdist(reader, what_);
    }
    la.read_free(reader);
    const std::lock_guard lock(mutex_);
    result_ = std::move(result);
    done_ = true;
    finished_.notify_all();
  }

  std::string what_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable finished_;
  std::deque<std::string> chunks_;
  std::string current_;  // the chunk libarchive reads now
  bool eof_ = false;
  bool done_ = false;
  core::Expected<std::string, std::string> result_ = core::unexpected(std::string());
  std::thread thread_;  // last: it starts once every other member is ready
};

// One sdist's scan; a new one for each attempt, since a retried transfer starts over.
struct Read {
  std::string what;
  std::unique_ptr<Scanner> scanner;
  int attempt = -1;

  bool feed(std::string_view chunk, int this_attempt) {
    if (this_attempt != attempt) {
      scanner = std::make_unique<Scanner>(what);
      attempt = this_attempt;
    }
    return scanner->feed(chunk);
  }
};

std::string filename_of(const std::string& url) { return url.substr(url.rfind('/') + 1); }

}  // namespace

std::vector<SdistMetadata> read_sdist_metadata(Transport& transport,
                                               const std::vector<std::string>& urls) {
  std::vector<Read> reads(urls.size());
  std::vector<StreamRequest> requests;
  for (std::size_t i = 0; i < urls.size(); ++i) {
    reads[i].what = "`" + filename_of(urls[i]) + "`";
    Read* read = &reads[i];
    requests.push_back({urls[i], [read](std::string_view chunk, int attempt) {
                          return read->feed(chunk, attempt);
                        }});
  }
  auto replies = transport.stream(requests, "metadata (sdists)");
  std::vector<SdistMetadata> out(urls.size());
  for (std::size_t i = 0; i < urls.size(); ++i) {
    if (!replies[i]) {
      out[i].error = replies[i].error();
      continue;
    }
    out[i].bytes = replies[i]->bytes;
    if (reads[i].scanner == nullptr) {
      out[i].error = "`" + urls[i] + "`: the server sent no bytes";
      continue;
    }
    auto text = reads[i].scanner->finish();
    if (text) {
      out[i].text = std::move(text).value();
    } else {
      out[i].error = "`" + urls[i] + "`: " + text.error();
    }
  }
  return out;
}

}  // namespace bevenv::index::remote
