# Sanitizer builds: -DDBREPRO_SANITIZER=address (ASan + UBSan) or =thread
# (TSan). Applied to every target of the tree (engine, tests, driver) so that
# inline template code in headers is instrumented where it is instantiated.
# Use a build directory of its own (build/asan, build/tsan): the flags change
# every object file.
set(DBREPRO_SANITIZER "" CACHE STRING "Sanitizer build: empty, address (ASan+UBSan) or thread (TSan)")
set_property(CACHE DBREPRO_SANITIZER PROPERTY STRINGS "" address thread)

if(DBREPRO_SANITIZER STREQUAL "")
  return()
elseif(DBREPRO_SANITIZER STREQUAL "address")
  # UBSan rides along: both are cheap together, and halting on the first
  # report makes a finding fail the test instead of scrolling past.
  set(_dbrepro_sanitize -fsanitize=address,undefined -fno-sanitize-recover=all)
elseif(DBREPRO_SANITIZER STREQUAL "thread")
  set(_dbrepro_sanitize -fsanitize=thread)
else()
  message(FATAL_ERROR "DBREPRO_SANITIZER must be empty, address or thread, not '${DBREPRO_SANITIZER}'")
endif()

# Frame pointers give readable stacks in reports; -O1 keeps the run fast
# without inlining away the frames a report names.
add_compile_options(${_dbrepro_sanitize} -fno-omit-frame-pointer -g -O1)
add_link_options(${_dbrepro_sanitize})
message(STATUS "dbrepro: sanitizer build (${DBREPRO_SANITIZER})")
