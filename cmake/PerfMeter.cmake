# Whether E1's stacks are also compiled with the per-phase hardware-counter
# meter (RunConfig meter "perf"). It instantiates every stack a second time,
# about a quarter of a stack file's compile time, and only a kernel that
# grants perf_event_open can use it. By default it is built where a probe at
# configure time can open the instructions counter (the engine's own probe);
# -DDBREPRO_PERF_METER=ON or OFF decides instead. Either way the engine's
# build_info() records whether it was compiled and why.
if(NOT DEFINED DBREPRO_PERF_METER)
  try_run(_perf_run _perf_compiled ${CMAKE_BINARY_DIR}/perf_probe ${CMAKE_CURRENT_LIST_DIR}/perf_probe.cpp
          CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${CMAKE_SOURCE_DIR}/engine/src"
          CXX_STANDARD 20
          RUN_OUTPUT_VARIABLE _perf_why)
  if(_perf_compiled AND _perf_run EQUAL 0)
    set(_perf_default ON)
    set(_perf_why "the configure-time probe opened the instructions counter")
  elseif(_perf_compiled)
    set(_perf_default OFF)
    set(_perf_why "the configure-time probe could not count instructions: ${_perf_why}")
  else()
    set(_perf_default OFF)
    set(_perf_why "the configure-time probe did not compile")
  endif()
  set(DBREPRO_PERF_METER ${_perf_default} CACHE BOOL "Compile the perf_event per-phase meter into E1's stacks")
  set(DBREPRO_PERF_METER_WHY "${_perf_why}" CACHE INTERNAL "why DBREPRO_PERF_METER has its value")
elseif(NOT DEFINED DBREPRO_PERF_METER_WHY)
  set(DBREPRO_PERF_METER_WHY "set with -DDBREPRO_PERF_METER=${DBREPRO_PERF_METER}" CACHE INTERNAL "")
endif()
string(REPLACE "\"" "'" DBREPRO_PERF_METER_WHY_TEXT "${DBREPRO_PERF_METER_WHY}")
if(DBREPRO_PERF_METER)
  set(DBREPRO_PERF_METER_VALUE 1)
else()
  set(DBREPRO_PERF_METER_VALUE 0)
endif()
message(STATUS "dbrepro: perf meter ${DBREPRO_PERF_METER} (${DBREPRO_PERF_METER_WHY})")
