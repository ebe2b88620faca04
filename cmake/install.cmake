# What `cmake --install` (and so cpack) ships: the CLI (`git-berth` a link to `berth`), libberth
# (shared and static, exporting the public API only), its headers, a CMake package
# (find_package(berth) -> berth::berth) and a pkg-config file (berth.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# libberth: the objects of berth_util and berth_core (built once, position independent, hidden
# but for include/berth). The CLI and the unit tests keep linking those two static libraries.
set(BERTH_OBJECTS $<TARGET_OBJECTS:berth_util> $<TARGET_OBJECTS:berth_core>)
add_library(berth_shared SHARED ${BERTH_OBJECTS})
add_library(berth_static STATIC ${BERTH_OBJECTS})
foreach(lib berth_shared berth_static)
  target_include_directories(${lib} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # The public headers need C++20 and these two header-only libraries; the rest is private.
  target_compile_features(${lib} PUBLIC cxx_std_20)
  target_link_libraries(${lib} PUBLIC tl::expected nlohmann_json::nlohmann_json
                        PRIVATE fmt::fmt tomlplusplus::tomlplusplus PkgConfig::SECCOMP Threads::Threads)
  set_target_properties(${lib} PROPERTIES OUTPUT_NAME berth)
endforeach()
set_target_properties(berth_shared PROPERTIES EXPORT_NAME berth VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
set_target_properties(berth_static PROPERTIES EXPORT_NAME berth_static)

# Where an embedded libberth finds the berth executable it starts for its background work (the
# pool filler, the watcher) when the host program is not berth: <libexecdir>/berth/berth, a link
# to the installed CLI. Compiled in as an absolute path (for libberth.a) and as a path relative to
# libdir (for libberth.so, which finds itself: a prefix chosen at `cmake --install` time works).
set(BERTH_HELPER_NAME ${CMAKE_INSTALL_LIBEXECDIR}/berth/berth)
file(RELATIVE_PATH BERTH_HELPER_FROM_LIBDIR ${CMAKE_INSTALL_FULL_LIBDIR}
     ${CMAKE_INSTALL_FULL_LIBEXECDIR}/berth/berth)
# The fsmonitor hook (src/hook/fsmonitor.cpp) is installed beside that link; the helper is always
# the CLI's real path (<bindir>/berth), so it is found from there.
file(RELATIVE_PATH BERTH_FSMONITOR_FROM_BINDIR ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_LIBEXECDIR}/berth/berth-fsmonitor)
target_compile_definitions(berth_core PRIVATE
  BERTH_INSTALLED_HELPER="${CMAKE_INSTALL_FULL_LIBEXECDIR}/berth/berth"
  BERTH_HELPER_FROM_LIBDIR="${BERTH_HELPER_FROM_LIBDIR}"
  BERTH_FSMONITOR_FROM_BINDIR="${BERTH_FSMONITOR_FROM_BINDIR}")

# Links are made in the build tree and installed as links (file(INSTALL) keeps them so).
set(BERTH_LINKS ${PROJECT_BINARY_DIR}/install-links)
file(RELATIVE_PATH berth_from_libexec ${CMAKE_INSTALL_FULL_LIBEXECDIR}/berth
     ${CMAKE_INSTALL_FULL_BINDIR}/berth)
file(MAKE_DIRECTORY ${BERTH_LINKS}/bin ${BERTH_LINKS}/libexec)
file(CREATE_LINK berth ${BERTH_LINKS}/bin/git-berth SYMBOLIC)
file(CREATE_LINK ${berth_from_libexec} ${BERTH_LINKS}/libexec/berth SYMBOLIC)

install(TARGETS berth RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# `git berth ...` runs git-berth: the same program, so a link rather than a second copy.
install(FILES ${BERTH_LINKS}/bin/git-berth DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${BERTH_LINKS}/libexec/berth DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/berth)
install(TARGETS berth-fsmonitor RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/berth)
install(FILES docs/berth.1 docs/git-berth.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

install(TARGETS berth_shared berth_static EXPORT berthTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/berth DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(BERTH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/berth)
install(EXPORT berthTargets NAMESPACE berth:: DESTINATION ${BERTH_CMAKE_DIR})
configure_package_config_file(cmake/berthConfig.cmake.in ${PROJECT_BINARY_DIR}/berthConfig.cmake
                              INSTALL_DESTINATION ${BERTH_CMAKE_DIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/berthConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/berthConfig.cmake ${PROJECT_BINARY_DIR}/berthConfigVersion.cmake
        DESTINATION ${BERTH_CMAKE_DIR})

# berth.pc, relocatable: its prefix is found from where the file lies.
file(RELATIVE_PATH BERTH_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" BERTH_PC_TO_PREFIX "${BERTH_PC_TO_PREFIX}")
configure_file(cmake/berth.pc.in ${PROJECT_BINARY_DIR}/berth.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/berth.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Shell completions, generated from the operation table as the built berth dumps it
# (`berth help --completion-data`): its commands, options and choices.
set(BERTH_COMPLETIONS ${PROJECT_BINARY_DIR}/completions)
add_custom_command(OUTPUT ${BERTH_COMPLETIONS}/berth.bash ${BERTH_COMPLETIONS}/_berth
                          ${BERTH_COMPLETIONS}/berth.fish
                   COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/completions $<TARGET_FILE:berth>
                           ${BERTH_COMPLETIONS}
                   DEPENDS berth ${PROJECT_SOURCE_DIR}/scripts/completions VERBATIM)
add_custom_target(berth_completions ALL DEPENDS ${BERTH_COMPLETIONS}/berth.bash)
install(FILES ${BERTH_COMPLETIONS}/berth.bash RENAME berth
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${BERTH_COMPLETIONS}/_berth DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${BERTH_COMPLETIONS}/berth.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)

# `cpack -G DEB` (scripts/package): one package with the CLI, the library and its package files.
set(CPACK_PACKAGE_NAME berth)
set(CPACK_PACKAGE_VENDOR berth)
set(CPACK_PACKAGE_CONTACT "berth maintainers <berth@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "a workspace per task: git worktrees for agents and people")
set(CPACK_PACKAGE_DESCRIPTION "berth gives every coding task its own git worktree on its own branch,
outside your checkout; you review the diff, then accept it (never clobbering your
uncommitted work) or discard it (recoverably). Also libberth, its headers, CMake and
pkg-config files.")
set(CPACK_STRIP_FILES ON)
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/cmake/strip_static.cmake)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION vcs)
# The libraries it links (libc, libstdc++, fmt, toml++, seccomp) are found by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "git (>= 1:2.38)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bubblewrap, git-lfs")
# Building a program against libberth needs these headers (libberth.a: the last three too).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "libexpected-dev, nlohmann-json3-dev, libfmt-dev, libtomlplusplus-dev, libseccomp-dev")
include(CPack)
