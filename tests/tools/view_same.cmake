# crowdik_demo --view only adds the page: the run, the report and the SVG are
# the same with and without it. Runs the demo twice (one thread, so that
# nothing but the timings can differ) and compares the SVGs byte for byte and
# the reports less the timing table and the output lines. Called by
# tests/viewer.cmake:
#
#   cmake -DDEMO=crowdik_demo -DWORK=dir -P view_same.cmake
cmake_minimum_required(VERSION 3.16)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
crowdik_require(DEMO WORK)
file(MAKE_DIRECTORY "${WORK}")
set(args --characters 40 --frames 60 --threads 1 --quiet)
foreach(run plain view)
  set(extra)
  if(run STREQUAL "view")
    set(extra --view "${WORK}/view.html")
  endif()
  crowdik_run("crowdik_demo (${run})" out_${run} COMMAND "${DEMO}" ${args} --out "${WORK}/${run}.svg" ${extra})
  # the timing table (its lines start with two spaces and a stage name and
  # end in two times) and the lines naming the outputs differ by design
  string(REGEX REPLACE "\ntime per frame[^\n]*(\n  [^\n]*)*" "" out_${run} "${out_${run}}")
  string(REGEX REPLACE "\n(picture|view): [^\n]*" "" out_${run} "${out_${run}}")
endforeach()
file(READ "${WORK}/plain.svg" svg_plain HEX)
file(READ "${WORK}/view.svg" svg_view HEX)
if(NOT svg_plain STREQUAL svg_view)
  message(FATAL_ERROR "the SVG differs with --view")
endif()
if(NOT out_plain STREQUAL out_view)
  message(FATAL_ERROR "the report differs with --view:\n--- without\n${out_plain}\n--- with\n${out_view}")
endif()
if(NOT EXISTS "${WORK}/view.html")
  message(FATAL_ERROR "--view wrote no page")
endif()
message(STATUS "the report and the SVG are the same with and without --view")
