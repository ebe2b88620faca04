# CPack pre-build script: CPACK_STRIP_FILES strips executables and shared libraries only; the
# static library's debug info (most of its size in a RelWithDebInfo build) goes too.
file(GLOB_RECURSE archives "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.a")
foreach(archive ${archives})
  execute_process(COMMAND strip --strip-debug ${archive} COMMAND_ERROR_IS_FATAL ANY)
endforeach()
