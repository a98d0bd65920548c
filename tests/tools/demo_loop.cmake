# A clip loops without a seam: runs crowdik_demo on a clip with --loop raw
# and with --loop blend (the default), and checks with demo_loop.py on the
# --dump CSVs that the raw loop's wrap jumps (a knee by over 25 degrees in a
# frame) and the blended loop's does not (no knee by over 15 degrees, no
# ankle by over 80 mm, as the clip's own motion), and that the report's
# motion line names the loop. Called by tests/tools.cmake:
#
#   cmake -DDEMO=crowdik_demo -DPYTHON=python3 -DSCRIPT=demo_loop.py -DCLIP=file.bvh -DWORK=dir
#         -P demo_loop.cmake
#
# SKIPPED when the clip is absent.
cmake_minimum_required(VERSION 3.16)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
crowdik_require(DEMO PYTHON SCRIPT CLIP WORK)
crowdik_clip_args()
file(MAKE_DIRECTORY "${WORK}")
foreach(mode raw blend)
  crowdik_run(crowdik_demo report_${mode} COMMAND "${DEMO}" --characters 4 --frames 200 --threads 1 --quiet
                                                  --terrain flat --ground exact ${clip_args} --loop ${mode}
                                                  --out "${WORK}/demo.svg" --dump "${WORK}/${mode}.csv")
endforeach()
if(NOT report_blend MATCHES "looped frames [0-9]+[.][.][0-9]+, 0[.][0-9]+ s cross-fade\\)")
  message(FATAL_ERROR "the blended loop's motion line names no cross-fade:\n${report_blend}")
endif()
if(NOT report_raw MATCHES "looped frames 1[.][.][0-9]+, no cross-fade\\)")
  message(FATAL_ERROR "the raw loop's motion line is not the whole clip:\n${report_raw}")
endif()
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/raw.csv" "${WORK}/blend.csv"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "demo_loop.py exited with ${rc}")
endif()
