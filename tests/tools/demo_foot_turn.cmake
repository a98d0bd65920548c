# Feet turn with the animation: runs crowdik_demo on a clip on flat ground
# with --dump and checks with demo_foot_turn.py that no solved foot turns
# in a frame more than 20 degrees beyond the animated foot's own turn, and
# that the p99 of that is at most 12 degrees (the CMU jog, whose feet
# crowdik 0.20 flicked at push-off: p99 23, 1,166 rows over 20). Called by
# tests/tools.cmake:
#
#   cmake -DDEMO=crowdik_demo -DPYTHON=python3 -DSCRIPT=demo_foot_turn.py -DCLIP=file.bvh -DWORK=dir
#         -P demo_foot_turn.cmake
#
# SKIPPED when the clip is absent.
cmake_minimum_required(VERSION 3.16)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
crowdik_require(DEMO PYTHON SCRIPT CLIP WORK)
crowdik_clip_args()
file(MAKE_DIRECTORY "${WORK}")
crowdik_run(crowdik_demo report COMMAND "${DEMO}" --characters 40 --frames 200 --threads 1 --quiet
                                        --terrain flat --ground exact ${clip_args}
                                        --out "${WORK}/demo.svg" --dump "${WORK}/run.csv")
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/run.csv" 12 20
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "demo_foot_turn.py exited with ${rc}")
endif()
