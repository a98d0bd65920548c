# crowdik_demo --creature quadruped|hexapod runs a herd (docs/foot.md,
# "Herds in the demo"): the run exits 0 (no limit violation), writes its
# picture, and its report has the measures table; for the quadruped the
# planted feet are within 1 cm of the true ground on at least 99 % of the
# planted frames; a tiny run's --dump has the header row exactly and a row
# per frame and foot. Called by tests/tools.cmake:
#
#   cmake -DDEMO=crowdik_demo -DWORK=dir -DCREATURE=quadruped|hexapod -P demo_herd.cmake
cmake_minimum_required(VERSION 3.16)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
crowdik_require(DEMO WORK CREATURE)
file(MAKE_DIRECTORY "${WORK}")
set(svg "${WORK}/${CREATURE}.svg")
file(REMOVE "${svg}")
crowdik_run(crowdik_demo out COMMAND "${DEMO}" --creature ${CREATURE} --characters 64 --frames 120 --quiet
                                     --ground exact --out "${svg}")
message("${out}")
if(NOT EXISTS "${svg}")
  message(FATAL_ERROR "no picture at ${svg}")
endif()
file(READ "${svg}" picture LIMIT 200)
if(NOT picture MATCHES "^<svg ")
  message(FATAL_ERROR "${svg} is not an SVG")
endif()
if(NOT out MATCHES "limit violations [^\n]* 0  0\n")
  message(FATAL_ERROR "the report has no limit-violation row of 0")
endif()
if(NOT out MATCHES "planted: foot within 1 cm of the ground +([0-9.]+) %")
  message(FATAL_ERROR "the report has no planted-within-1-cm row")
endif()
set(within ${CMAKE_MATCH_1})
if(CREATURE STREQUAL "quadruped" AND within LESS 99)
  message(FATAL_ERROR "planted feet within 1 cm of the ground: ${within} %, not >= 99 %")
endif()

# --dump: the header, then frames x characters x legs rows of 30 fields
set(csv "${WORK}/${CREATURE}.csv")
crowdik_run(crowdik_demo tiny COMMAND "${DEMO}" --creature ${CREATURE} --characters 3 --frames 4 --threads 1 --quiet
                                      --out "${WORK}/tiny.svg" --dump "${csv}")
set(header "frame,character,leg,segments,weight,planted,locked,body_height,body_pitch,body_roll")
string(APPEND header ",anim_foot_x,anim_foot_y,anim_foot_z,solved_foot_x,solved_foot_y,solved_foot_z")
foreach(j 0 1 2 3)
  string(APPEND header ",j${j}_x,j${j}_y,j${j}_z")
endforeach()
string(APPEND header ",ground_y")
file(STRINGS "${csv}" lines)
list(LENGTH lines count)
if(CREATURE STREQUAL "quadruped")
  set(legs 4)
else()
  set(legs 6)
endif()
math(EXPR want "1 + 4 * 3 * ${legs}")
if(NOT count EQUAL want)
  message(FATAL_ERROR "${count} lines in ${csv}, not ${want}")
endif()
list(GET lines 0 first)
if(NOT first STREQUAL header)
  message(FATAL_ERROR "header row\n  ${first}\nnot\n  ${header}")
endif()
list(GET lines 1 second)
if(NOT second MATCHES "^0,0,0,[234],")
  message(FATAL_ERROR "the first row is not frame 0, character 0, leg 0: ${second}")
endif()
