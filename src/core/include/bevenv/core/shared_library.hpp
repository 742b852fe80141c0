#pragma once
// A shared library loaded for a table of its functions, behind one class: `shared_library.cpp`
// calls dlopen for the `bevenv` built with shared libraries; bevenv-static links
// `static/no_shared_library.cpp` instead, so that its link names no dlopen (glibc warns about
// any dlopen in a static program). Its users: libcurl (src/index/src/curl_library.cpp) and
// libarchive (libarchive.cpp), each loaded when first needed instead of at every start.
#include <string>
#include <string_view>

namespace bevenv::core {

class SharedLibrary {
 public:
  // Opens `name` (RTLD_NOW | RTLD_LOCAL) for the rest of the process. Throws core::Error
  // (failure) naming it, with `install` as the hint, when it cannot be loaded.
  SharedLibrary(const char* name, std::string install);

  // Binds `slot`, a pointer of the function's own prototype, to `symbol`; a library without it
  // is refused, `needs` (`libcurl 7.66 or newer`) saying which release has it.
  template <class Function>
  void bind(const char* symbol, Function& slot, std::string_view needs = {}) const {
    void* address = find(symbol);
    if (address == nullptr) {
      refuse("has no `" + std::string(symbol) + "`" +
             (needs.empty() ? std::string() : " (" + std::string(needs) + ")"));
    }
    slot = reinterpret_cast<Function>(address);
  }

  // Throws core::Error (failure): "`NAME` WHAT", with the install hint.
  [[noreturn]] void refuse(const std::string& what) const;

 private:
  void* find(const char* symbol) const;

  std::string name_;
  std::string install_;
  void* handle_ = nullptr;  // never closed: atexit handlers of the library outlive a dlclose
};

// The function table `load` binds, made by the first caller and kept for the process, as the
// library behind it is: a function-local static, so threads that race to it load it once.
template <auto load>
const auto& loaded_once() {
  static const auto table = load();
  return table;
}

}  // namespace bevenv::core
