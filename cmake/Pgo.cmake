# Profile-guided optimisation with GCC, in two builds (scripts/build_release.sh runs both):
#   BEVENV_PGO=generate  instrumented; every run of its programs adds to the profiles in
#                        BEVENV_PGO_DIR (scripts/pgo_train.sh makes those runs);
#   BEVENV_PGO=use       optimised with those profiles: GCC inlines, lays out and unrolls where
#                        the runs spent their time (a lock runs about a tenth faster).
# The profiles are named by each object's path below its build directory, so the two builds may
# live in different directories. Code the runs never reached is optimised as without a profile.
set(BEVENV_PGO "" CACHE STRING "Profile-guided optimisation: empty, `generate` or `use`")
set_property(CACHE BEVENV_PGO PROPERTY STRINGS "" generate use)
set(BEVENV_PGO_DIR "" CACHE PATH "Where the BEVENV_PGO profiles are written and read")

if(BEVENV_PGO)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR CMAKE_CXX_COMPILER_VERSION VERSION_LESS 11)
    message(FATAL_ERROR "BEVENV_PGO needs GCC 11 or newer (-fprofile-prefix-path); this is "
                        "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}.\n"
                        "Configure without -DBEVENV_PGO, or with CXX=g++.")
  endif()
  if(NOT IS_ABSOLUTE "${BEVENV_PGO_DIR}")
    message(FATAL_ERROR "BEVENV_PGO needs BEVENV_PGO_DIR, an absolute path "
                        "(given: `${BEVENV_PGO_DIR}`).")
  endif()
  set(bevenv_pgo_paths -fprofile-prefix-path=${CMAKE_BINARY_DIR})
  if(BEVENV_PGO STREQUAL "generate")
    # Atomic counters: a lock reads the lockfile it replaces on a second thread.
    add_compile_options(-fprofile-generate=${BEVENV_PGO_DIR} -fprofile-update=prefer-atomic
                        ${bevenv_pgo_paths})
    add_link_options(-fprofile-generate=${BEVENV_PGO_DIR})
  elseif(BEVENV_PGO STREQUAL "use")
    if(NOT IS_DIRECTORY "${BEVENV_PGO_DIR}")
      message(FATAL_ERROR "BEVENV_PGO=use: no profiles in `${BEVENV_PGO_DIR}`.\n"
                          "Build with BEVENV_PGO=generate and run it first "
                          "(scripts/build_release.sh does both).")
    endif()
    # Sources no run reached keep the usual optimisation. A function whose source moved since
    # the profiles were made keeps only what still matches, silently: the sources generated in
    # each build directory (the embedded matrix, the version) always differ in their path.
    add_compile_options(-fprofile-use=${BEVENV_PGO_DIR} -fprofile-partial-training
                        -Wno-missing-profile -Wno-coverage-mismatch ${bevenv_pgo_paths})
  else()
    message(FATAL_ERROR "BEVENV_PGO is `${BEVENV_PGO}`; it takes `generate` or `use`.")
  endif()
endif()
