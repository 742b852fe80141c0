# `bevenv-static`: bevenv as one executable that runs on any x86_64 Linux with a 3.2+ kernel,
# glibc's version included (Debian 11-13, Ubuntu 20.04-24.04), for carrying to GPU nodes. glibc,
# libstdc++ and every library are linked statically: libarchive and its compressors, zlib and
# nettle from Debian's static archives, libsolv from Debian's source package built as a static
# archive (scripts/static_libsolv.sh; Debian ships no libsolv.a), toml++'s implementation
# compiled in. libcurl is not linked: a static binary cannot load it, so index access refuses
# with a hint (src/index/src/curl_library.cpp) and the matrix, lockfiles, images and doctor work.
set(BEVENV_STATIC_LIBSOLV "" CACHE FILEPATH
    "libsolv.a built from Debian's source package (scripts/static_libsolv.sh); builds bevenv-static")
if(NOT BEVENV_STATIC_LIBSOLV)
  return()
endif()
if(BEVENV_SANITIZE OR BEVENV_FUZZ)
  message(STATUS "bevenv-static: not built with sanitizers (they need a dynamic program)")
  return()
endif()
if(NOT EXISTS ${BEVENV_STATIC_LIBSOLV})
  message(FATAL_ERROR "BEVENV_STATIC_LIBSOLV: no file ${BEVENV_STATIC_LIBSOLV} "
                      "(scripts/static_libsolv.sh builds it)")
endif()

# libarchive's own dependencies as Debian builds it, each as a static archive.
set(static_archives)
foreach(library archive z bz2 lzma zstd lz4 acl attr nettle)
  find_library(BEVENV_STATIC_${library} NAMES lib${library}.a)
  if(NOT BEVENV_STATIC_${library})
    message(FATAL_ERROR "bevenv-static needs lib${library}.a (scripts/setup.sh installs the "
                        "Debian packages that ship it)")
  endif()
  list(APPEND static_archives ${BEVENV_STATIC_${library}})
endforeach()

add_library(bevenv_toml_implementation OBJECT ${CMAKE_CURRENT_LIST_DIR}/toml_implementation.cpp)
target_link_libraries(bevenv_toml_implementation PRIVATE tomlplusplus::tomlplusplus)

# The modules' archives by path, not as targets: a target would bring its shared libraries
# (libsolv.so, libtomlplusplus.so, libarchive.so) onto the static link line.
set(module_targets bevenv_app bevenv_matrix bevenv_probes bevenv_solver bevenv_index
                   bevenv_containers bevenv_lockfiles bevenv_core bevenv_util)
set(module_archives)
foreach(module ${module_targets})
  list(APPEND module_archives $<TARGET_FILE:${module}>)
endforeach()
# Core's stand-ins for its dlopen caller and its libarchive loader (src/core/static/): defined
# here, before the archives, they keep shared_library.o and libarchive.o out of the link, so the
# link names no dlopen (glibc warns about dlopen in a static program) and the libarchive table
# names the functions linked in.
add_library(bevenv_no_shared_library OBJECT
            ${PROJECT_SOURCE_DIR}/src/core/static/no_shared_library.cpp
            ${PROJECT_SOURCE_DIR}/src/core/static/libarchive_linked.cpp)
target_include_directories(bevenv_no_shared_library PRIVATE ${PROJECT_SOURCE_DIR}/src/core/include)
target_link_libraries(bevenv_no_shared_library PRIVATE bevenv_warnings bevenv_archive_headers)
add_executable(bevenv-static $<TARGET_OBJECTS:bevenv_cli_objects>
                             $<TARGET_OBJECTS:bevenv_toml_implementation>
                             $<TARGET_OBJECTS:bevenv_no_shared_library>)
add_dependencies(bevenv-static ${module_targets})
# --gc-sections drops the archive writers libarchive's format table names but bevenv never
# calls (xar would pull in libxml2 and ICU's 30 MB of data).
target_link_options(bevenv-static PRIVATE -static -Wl,--gc-sections)
target_link_libraries(bevenv-static PRIVATE -Wl,--start-group ${module_archives}
                      ${BEVENV_STATIC_LIBSOLV} ${static_archives} -Wl,--end-group)
