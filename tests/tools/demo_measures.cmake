# The report's measures follow from the --dump CSV alone: runs crowdik_demo
# with --dump and recomputes every figure of its table from the CSV with
# tools/demo/measures.py (docs/foot.md's definitions, independent code),
# which fails when one differs by more than the CSV's 5 decimals allow.
# Called by tests/tools.cmake:
#
#   cmake -DDEMO=crowdik_demo -DPYTHON=python3 -DSCRIPT=measures.py -DWORK=dir [-DCLIP=file.bvh]
#         [-DCREATURE=quadruped|hexapod] -P demo_measures.cmake
#
# With CLIP, the crowd plays that clip (SKIPPED when the file is absent);
# with CREATURE it is a herd of them (the figures its CSV holds).
cmake_minimum_required(VERSION 3.16)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
crowdik_require(DEMO PYTHON SCRIPT WORK)
crowdik_clip_args()
set(creature_args)
if(DEFINED CREATURE)
  set(creature_args --creature ${CREATURE})
endif()
file(MAKE_DIRECTORY "${WORK}")
crowdik_run(crowdik_demo report COMMAND "${DEMO}" --characters 24 --frames 150 --threads 1 --quiet --terrain procedural
                                        --ground exact ${clip_args} ${creature_args} --out "${WORK}/demo.svg" --dump "${WORK}/dump.csv")
file(WRITE "${WORK}/report.txt" "${report}")
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/dump.csv" --compare "${WORK}/report.txt"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the report's measures do not follow from its CSV (measures.py exited with ${rc})")
endif()
