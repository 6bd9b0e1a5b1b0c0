# Fuzz builds (-DDBREPRO_BUILD_FUZZ=ON, engine/fuzz/): with clang, every
# object is compiled with libFuzzer's coverage instrumentation and ASan +
# UBSan, so the fuzzer sees (and checks) the engine code it drives, not only
# the target file. Use a build directory of its own (build/fuzz).
if(NOT DBREPRO_BUILD_FUZZ)
  return()
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(DBREPRO_LIBFUZZER ON)
  if(NOT DBREPRO_SANITIZER STREQUAL "")
    message(FATAL_ERROR "DBREPRO_BUILD_FUZZ with clang brings its own sanitizers; leave DBREPRO_SANITIZER empty")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "dbrepro: libFuzzer targets (clang ${CMAKE_CXX_COMPILER_VERSION})")
else()
  set(DBREPRO_LIBFUZZER OFF)
  message(STATUS "dbrepro: ${CMAKE_CXX_COMPILER_ID} has no libFuzzer: fuzz targets replay their corpus only")
endif()
