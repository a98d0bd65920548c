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
# with CREATURE it is a herd of them (the figures its CSV holds). A crowd's
# CSV is also sorted into classes (measures.py --classes): its knee pops in
# all, the solve's own (not a jump of the animation's that it smooths) and
# those where the solved knee turned more must be the report's three knee
# pop figures.
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
if(NOT DEFINED CREATURE)
  execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/dump.csv" --classes
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "knee pops: [0-9]+ in [0-9]+ rows, ([0-9.]+) per 1000; the solve's own: [0-9]+, ([0-9.]+) per 1000; the solved knee turning more: [0-9]+, ([0-9.]+) per 1000")
    message(FATAL_ERROR "measures.py --classes: no knee pop classes (exit ${rc})\n${out}${err}")
  endif()
  set(all ${CMAKE_MATCH_1})
  set(own ${CMAKE_MATCH_2})
  set(more ${CMAKE_MATCH_3})
  string(REGEX MATCH "knee pops the solve makes [^\n]*/1000 +([0-9.]+)" line "${report}")
  set(report_own ${CMAKE_MATCH_1})
  string(REGEX MATCH "the animation's own jumps that it smooths +([0-9.]+)" line "${report}")
  set(report_all ${CMAKE_MATCH_1})
  string(REGEX MATCH "the solved knee turning faster than the animated one +([0-9.]+)" line "${report}")
  set(report_more ${CMAKE_MATCH_1})
  if(NOT all STREQUAL report_all OR NOT own STREQUAL report_own OR NOT more STREQUAL report_more)
    message(FATAL_ERROR "measures.py --classes: knee pops ${all}, ${own} and ${more} per 1000, the report ${report_all}, ${report_own} and ${report_more}\n${out}")
  endif()
  string(REGEX MATCH "soles more than 3 deg beyond[^\n]*" line "${out}")
  message("knee pops by class: ${all} per 1000, ${own} the solve's own, ${more} turning more, as the report; ${line}")
endif()
