#include "image.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "bevenv/util/bytes.hpp"
#include "image_fields.hpp"
#include "stand_ins.hpp"

// Layout: the magic line, the format number, the digest of the data files, the tables of
// distinct texts (names and URLs; versions, specifiers and markers as canonical text; the parts
// of each version and specifier, as their parse found them), then the matrix's fields in the
// order image_fields.hpp lists them. Numbers are LEB128; a
// string is its index in the table; containers are a count and their items.
namespace bevenv::matrix::detail {
namespace {

constexpr std::string_view kMagic = "bevenv matrix image\n";
// Raised whenever the layout changes, so that an image of another layout is never misread.
constexpr std::uint64_t kFormat = 8;

// A field added to one of these records must be listed in image_fields.hpp; this size check
// (for the one ABI the project builds on) makes that hard to forget.
#if defined(__x86_64__) && defined(__GLIBCXX__) && defined(_GLIBCXX_USE_CXX11_ABI)
static_assert(sizeof(PackageVersion) == 808, "list the new field in image_fields.hpp");
static_assert(sizeof(Profile) == 632, "list the new field in image_fields.hpp");
static_assert(sizeof(Rule) == 536, "list the new field in image_fields.hpp");
static_assert(sizeof(Failure) == 512, "list the new field in image_fields.hpp");
static_assert(sizeof(ObservedHost) == 344, "list the new field in image_fields.hpp");
static_assert(sizeof(Matrix) == 256, "list the new field in image_fields.hpp");
#endif

// Distinct texts are kept once, in one table per kind, so that the reader makes each version,
// specifier and marker once and sizes its caches by what it makes. Versions and specifiers come
// with their parts (one entry per version or specifier, in the same order), which the reader
// takes as they are: scanning their text took a lock a tenth of its start-up.
enum class Table : std::uint8_t {
  text,
  version,
  specifier,
  marker,
  version_parts,
  specifier_parts
};
constexpr std::size_t kTables = 6;
constexpr std::size_t kInterned = 4;  // the tables of texts; the parts follow

class ImageWriter {
 public:
  template <class... T>
  void operator()(const T&... values) {
    (put(values), ...);
  }

  std::string finish(std::string_view digest) && {
    std::string out(kMagic);
    util::put_number(out, kFormat);
    util::put_text(out, digest);
    // The parts first: a specifier's may add a version, and either may add texts.
    std::vector<std::string> specifier_parts;
    for (const core::Specifier* s : specifiers_) {
      specifier_parts.push_back(
          encoded(s->op(), s->is_wildcard(), s->version_text(), s->version()));
    }
    std::vector<std::string> version_parts;
    for (const core::Version& v : versions_) {
      version_parts.push_back(
          encoded(v.epoch(), v.release(), v.pre(), v.post(), v.dev(), v.local()));
    }
    for (const Interned& table : tables_) put_table(table.texts, out);
    put_table({version_parts.begin(), version_parts.end()}, out);
    put_table({specifier_parts.begin(), specifier_parts.end()}, out);
    out += body_;
    return out;
  }

 private:
  static void put_table(const std::vector<std::string_view>& texts, std::string& out) {
    util::put_number(out, texts.size());
    std::uint64_t end = 0;
    fixed(0, out);
    for (const std::string_view s : texts) {
      end += s.size();
      if (end > UINT32_MAX) throw std::length_error("matrix image: a text table over 4 GiB");
      fixed(static_cast<std::uint32_t>(end), out);
    }
    for (const std::string_view s : texts) out += s;
  }
  // `values` as put() writes them, apart from the body.
  template <class... T>
  std::string encoded(const T&... values) {
    std::string outer = std::exchange(body_, {});
    (*this)(values...);
    return std::exchange(body_, std::move(outer));
  }
  static void fixed(std::uint32_t n, std::string& out) {  // little-endian, 4 bytes
    for (int byte = 0; byte < 4; ++byte) out.push_back(static_cast<char>((n >> (8 * byte)) & 0xff));
  }
  void number(std::uint64_t n) { util::put_number(body_, n); }

  void put(bool b) { body_.push_back(b ? 1 : 0); }
  void put(std::uint32_t n) { number(n); }
  void put(std::uint64_t n) { number(n); }
  void put(std::int64_t n) {  // zigzag: small negative numbers stay short
    number((static_cast<std::uint64_t>(n) << 1) ^ static_cast<std::uint64_t>(n >> 63));
  }
  void put(double d) { number(std::bit_cast<std::uint64_t>(d)); }
  template <class E>
  requires std::is_enum_v<E>
  void put(E e) { number(static_cast<std::uint64_t>(e)); }
  // The id of `s` in `table`, and whether it was added now.
  std::pair<std::uint64_t, bool> id_of(Table table, std::string_view s) {
    Interned& into = tables_[static_cast<std::size_t>(table)];
    auto [at, added] = into.ids.try_emplace(std::string(s), into.texts.size());
    if (added) into.texts.push_back(at->first);
    return {at->second, added};
  }
  void intern(Table table, std::string_view s) { number(id_of(table, s).first); }
  std::uint64_t version_id(const core::Version& v) {
    const auto [id, added] = id_of(Table::version, v.to_string());
    if (added) versions_.push_back(v);
    return id;
  }
  void put(const std::string& s) { intern(Table::text, s); }
  void put(const util::SharedText& s) { intern(Table::text, s.view()); }
  void put(const core::Version& v) { number(version_id(v)); }
  // Its version first, so that the version's id is known when the specifier's parts are written.
  void put(const core::Specifier& s) {
    if (s.version()) version_id(*s.version());
    const auto [id, added] = id_of(Table::specifier, s.to_string());
    if (added) specifiers_.push_back(&s);
    number(id);
  }
  void put(const core::SpecifierSet& s) { put(s.specifiers()); }
  void put(const core::Marker& m) { intern(Table::marker, m.empty() ? "" : m.to_string()); }
  void put(const core::Requirement& r) { (*this)(r.name, r.extras, r.specifier, r.url, r.marker); }
  void put(const core::PreRelease& p) { (*this)(p.kind, p.number); }
  void put(const core::LocalSegment& segment) {  // a number, or a text
    const auto* number = std::get_if<std::uint64_t>(&segment);
    put(number != nullptr);
    if (number != nullptr) {
      put(*number);
    } else {
      put(std::get<std::string>(segment));
    }
  }
  // A list of requirements after its length in bytes: the reader decodes each distinct list once
  // (807 distinct lists among 4,764 generated releases) and shares it with the others.
  void put(const util::SharedList<core::Requirement>& list) {
    std::string outer = std::exchange(body_, {});
    number(list.size());
    for (const core::Requirement& r : list) put(r);
    std::string encoded = std::exchange(body_, std::move(outer));
    number(encoded.size());
    body_ += encoded;
  }
  template <class T>
  void put(const std::optional<T>& o) {
    put(o.has_value());
    if (o) put(*o);
  }
  template <class T>
  void put(const std::vector<T>& items) {
    number(items.size());
    for (const T& item : items) put(item);
  }
  template <class K, class V, class C>
  void put(const std::map<K, V, C>& items) {
    number(items.size());
    for (const auto& [key, value] : items) (*this)(key, value);
  }
  template <class T>
  requires requires(ImageWriter& w, const T& t) { fields(w, t); }
  void put(const T& record) { fields(*this, record); }
  // Whether it is a generated release and whether a newer one stands for it, then its length:
  // a reader that leaves either out skips it without reading it.
  void put(const PackageVersion& version) {
    std::string outer = std::exchange(body_, {});
    fields(*this, version);
    std::string record = std::exchange(body_, std::move(outer));
    put(version.generated.has_value());
    put(version.newer_stands_for);
    number(record.size());
    body_ += record;
  }

  struct Interned {
    std::unordered_map<std::string, std::uint64_t> ids;
    std::vector<std::string_view> texts;  // into ids' keys, which never move
  };
  std::string body_;
  std::array<Interned, kInterned> tables_;
  std::vector<core::Version> versions_;             // by id in Table::version
  std::vector<const core::Specifier*> specifiers_;  // by id in Table::specifier: the matrix's
};

class ImageReader {
 public:
  ImageReader(std::string_view image, LeftOut left_out) : bytes_(image), left_out_(left_out) {}

  // The header up to the body; false when the image is of another format or other files.
  bool header(std::string_view digest) {
    if (!bytes_.rest().starts_with(kMagic)) return false;
    bytes_.take(kMagic.size());
    if (number() != kFormat || bytes_.text() != digest) return false;
    for (TextTable& table : tables_) table = text_table();
    versions_.resize(texts(Table::version).size());
    specifiers_.resize(texts(Table::specifier).size());
    markers_.resize(texts(Table::marker).size());
    return texts(Table::version_parts).size() == versions_.size() &&
           texts(Table::specifier_parts).size() == specifiers_.size();
  }

  template <class... T>
  void operator()(T&... values) {
    (get(values), ...);
  }

  bool done() const { return bytes_.done(); }

 private:
  std::uint64_t number() { return bytes_.number(); }
  std::size_t count() { return bytes_.count(); }
  // One table of distinct texts: `count + 1` little-endian offsets into the texts that follow,
  // so a text is found without reading the ones before it (a lock that skips the generated
  // layer never touches its URLs).
  class TextTable {
   public:
    TextTable() = default;
    TextTable(std::string_view offsets, std::string_view texts)
        : offsets_(offsets), texts_(texts) {}
    std::size_t size() const { return offsets_.empty() ? 0 : offsets_.size() / 4 - 1; }
    std::string_view operator[](std::size_t i) const {
      const std::uint32_t begin = offset(i);
      const std::uint32_t end = offset(i + 1);
      if (end < begin || end > texts_.size()) throw util::DamagedBytes{};
      return texts_.substr(begin, end - begin);
    }
    static std::uint32_t read(std::string_view four) {
      std::uint32_t n = 0;
      if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(&n, four.data(), sizeof n);  // read for every text field: one load
      } else {
        for (int byte = 3; byte >= 0; --byte)
          n = (n << 8) | static_cast<unsigned char>(four[static_cast<std::size_t>(byte)]);
      }
      return n;
    }

   private:
    std::uint32_t offset(std::size_t i) const { return read(offsets_.substr(4 * i, 4)); }
    std::string_view offsets_, texts_;
  };

  TextTable text_table() {
    const std::size_t n = count();
    if (n >= bytes_.rest().size() / 4) throw util::DamagedBytes{};
    const std::string_view offsets = bytes_.take(4 * (n + 1));
    const std::string_view texts = bytes_.take(TextTable::read(offsets.substr(4 * n, 4)));
    return TextTable(offsets, texts);
  }
  const TextTable& texts(Table table) const { return tables_[static_cast<std::size_t>(table)]; }
  std::size_t id_in(Table table) { return id_in(table, bytes_); }
  std::size_t id_in(Table table, util::ByteReader& from) const {
    const std::uint64_t id = from.number();
    if (id >= texts(table).size()) throw util::DamagedBytes{};
    return static_cast<std::size_t>(id);
  }
  // Made once per distinct text: the same version, specifier or marker recurs across records.
  const core::Marker& marker_at(std::size_t id) {
    if (!markers_[id]) {
      auto value = core::Marker::parse(texts(Table::marker)[id]);
      if (!value) throw util::DamagedBytes{};
      markers_[id] = std::move(value).value();
    }
    return *markers_[id];
  }
  const core::Version& version_at(std::size_t id) {
    if (versions_[id]) return *versions_[id];
    core::VersionParts parts;
    decode(texts(Table::version_parts)[id], parts.epoch, parts.release, parts.pre, parts.post,
           parts.dev, parts.local);
    if (parts.pre && parts.pre->kind > core::PreKind::rc) throw util::DamagedBytes{};
    versions_[id] = core::Version::from_parts(std::move(parts));
    return *versions_[id];
  }
  const core::Specifier& specifier_at(std::size_t id) {
    if (specifiers_[id]) return *specifiers_[id];
    core::Operator op = core::Operator::equal;
    bool wildcard = false;
    std::string written;
    std::optional<core::Version> version;
    decode(texts(Table::specifier_parts)[id], op, wildcard, written, version);
    if (op > core::Operator::arbitrary || version.has_value() == (op == core::Operator::arbitrary))
      throw util::DamagedBytes{};
    specifiers_[id] =
        core::Specifier::from_parts(op, wildcard, std::move(written), std::move(version));
    return *specifiers_[id];
  }
  // Reads `values` from `encoded` as get() reads them, all of it.
  template <class... T>
  void decode(std::string_view encoded, T&... values) {
    util::ByteReader outer = std::exchange(bytes_, util::ByteReader(encoded));
    (*this)(values...);
    if (!bytes_.done()) throw util::DamagedBytes{};
    bytes_ = outer;
  }

  void get(bool& b) { b = bytes_.flag(); }
  void get(std::uint32_t& n) {
    const std::uint64_t wide = number();
    if (wide > UINT32_MAX) throw util::DamagedBytes{};
    n = static_cast<std::uint32_t>(wide);
  }
  void get(std::uint64_t& n) { n = number(); }
  void get(std::int64_t& n) {
    const std::uint64_t z = number();
    n = static_cast<std::int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  void get(double& d) { d = std::bit_cast<double>(number()); }
  template <class E>
  requires std::is_enum_v<E>
  void get(E& e) {
    const std::uint64_t n = number();
    if (n > 0xff) throw util::DamagedBytes{};  // every enum of the model is a uint8_t
    e = static_cast<E>(n);
  }
  void get(std::string& s) { s = texts(Table::text)[id_in(Table::text)]; }
  // Borrowed from the image, which outlives the matrix read from it: the image holds every
  // artifact's file name, URL and hash, tens of thousands of texts a copy would allocate.
  void get(util::SharedText& s) {
    s = util::SharedText::lasting(texts(Table::text)[id_in(Table::text)]);
  }
  void get(core::Version& v) { v = version_at(id_in(Table::version)); }
  void get(core::Specifier& s) { s = specifier_at(id_in(Table::specifier)); }
  // A set is its specifiers' ids; the same ids recur across releases (`numpy>=1.17`), so each
  // distinct list is built once and shared by the sets that copy it.
  void get(core::SpecifierSet& set) {
    const std::string_view start = bytes_.rest();
    const std::size_t n = count();
    for (std::size_t i = 0; i < n; ++i) id_in(Table::specifier);
    const std::string_view encoded = start.substr(0, start.size() - bytes_.rest().size());
    auto [at, added] = sets_.try_emplace(encoded);
    if (added) {
      util::ByteReader ids(encoded);
      ids.count();
      at->second.reserve(n);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t id = id_in(Table::specifier, ids);
        at->second.add(specifier_at(id));
      }
    }
    set = at->second;
  }
  void get(core::Marker& m) {
    const std::size_t id = id_in(Table::marker);
    if (texts(Table::marker)[id].empty()) {
      m = core::Marker();
      return;
    }
    m = marker_at(id);
  }
  void get(core::Requirement& r) { (*this)(r.name, r.extras, r.specifier, r.url, r.marker); }
  void get(core::PreRelease& p) { (*this)(p.kind, p.number); }
  void get(core::LocalSegment& segment) {
    if (bytes_.flag()) {
      segment = number();
    } else {
      std::string text;
      get(text);
      segment = std::move(text);
    }
  }
  // Each distinct list is decoded once; the releases that repeat it share it.
  void get(util::SharedList<core::Requirement>& list) {
    const std::string_view encoded = bytes_.take(count());
    auto [at, added] = requirement_lists_.try_emplace(encoded);
    if (added) {
      std::vector<core::Requirement> items;
      decode(encoded, items);
      at->second = std::move(items);
    }
    list = at->second;
  }
  template <class T>
  void get(std::optional<T>& o) {
    bool present = false;
    get(present);
    if (!present) {
      o.reset();
      return;
    }
    o.emplace();
    get(*o);
  }
  template <class T>
  void get(std::vector<T>& items) {
    items.resize(count());
    for (T& item : items) get(item);
  }
  // As fields(Package) lists them: the name, then the releases, some of which may be left out.
  void get(Package& package) {
    get(package.name);
    const std::size_t n = count();
    package.versions.clear();
    package.versions.reserve(kept_releases(n));
    for (std::size_t i = 0; i < n; ++i) {
      bool generated = false;
      bool stood_for = false;
      (*this)(generated, stood_for);
      const std::size_t length = count();
      if (reads(generated, stood_for)) {
        const std::size_t before = bytes_.rest().size();
        fields(*this, package.versions.emplace_back());
        if (before - bytes_.rest().size() != length) throw util::DamagedBytes{};
      } else if (stood_for && left_out_ == LeftOut::stood_for) {
        package.stood_for.push_back(version_leading(bytes_.take(length)));
      } else {
        bytes_.take(length);
      }
    }
  }
  // Whether a release with these flags is read, not left out.
  bool reads(bool generated, bool stood_for) const {
    return !(generated && left_out_ == LeftOut::generated) &&
           !(stood_for && left_out_ == LeftOut::stood_for);
  }
  // How many of the `n` releases ahead get() reads, not leaves out: room for exactly those.
  // (Room for all would leave a megabyte or two unused, which the kernel still clears once
  // the heap's huge pages are touched.)
  std::size_t kept_releases(std::size_t n) const {
    util::ByteReader ahead = bytes_;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const bool generated = ahead.flag();
      const bool stood_for = ahead.flag();
      ahead.take(ahead.count());
      if (reads(generated, stood_for)) ++kept;
    }
    return kept;
  }
  // The version of an encoded release, which its name and version lead (image_fields.hpp).
  const core::Version& version_leading(std::string_view release) {
    util::ByteReader fields(release);
    id_in(Table::text, fields);
    return version_at(id_in(Table::version, fields));
  }
  template <class K, class V, class C>
  void get(std::map<K, V, C>& items) {
    items.clear();
    for (std::size_t n = count(); n > 0; --n) {
      K key;
      get(key);
      get(items.emplace_hint(items.end(), std::move(key), V())->second);
    }
  }
  template <class T>
  requires requires(ImageReader& r, T& t) { fields(r, t); }
  void get(T& record) { fields(*this, record); }

  util::ByteReader bytes_;
  LeftOut left_out_ = LeftOut::nothing;
  std::array<TextTable, kTables> tables_;
  std::vector<std::optional<core::Version>> versions_;
  std::vector<std::optional<core::Specifier>> specifiers_;
  std::vector<std::optional<core::Marker>> markers_;
  std::unordered_map<std::string_view, core::SpecifierSet> sets_;  // by their encoded ids
  std::unordered_map<std::string_view, util::SharedList<core::Requirement>> requirement_lists_;
};

}  // namespace

std::string write_image(const Matrix& matrix, std::string_view digest) {
  ImageWriter writer;
  writer(matrix);
  return std::move(writer).finish(digest);
}

std::optional<Matrix> read_image(std::string_view image, std::string_view digest,
                                 LeftOut left_out) {
  ImageReader reader(image, left_out);
  try {
    if (!reader.header(digest)) return std::nullopt;
    Matrix matrix;
    reader(matrix);
    if (!reader.done()) return std::nullopt;
    // As drop_generated_releases(): a package with only generated releases leaves too.
    if (left_out == LeftOut::generated) {
      std::erase_if(matrix.packages, [](const auto& p) { return p.second.versions.empty(); });
      forget_stand_ins(matrix);  // a curated release's stand-in may have been generated
    }
    return matrix;
  } catch (const util::DamagedBytes&) {  // not what this build writes
    return std::nullopt;
  }
}

}  // namespace bevenv::matrix::detail
