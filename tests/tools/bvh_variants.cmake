# Legal variants of a BVH clip must pass crowdik_validate --bvh like the
# clip itself: the same hierarchy with the rotation channels listed in
# another order (another legal motion), numbers written as hex floats, and
# the root's rotation channels before its position (the same motion). With
# 926 chains in the clip's +60-frame row, one chain off used to fail the
# 99.9 percent rule (docs/solver.md, "Agreement between backends"). Called
# by tests/tools.cmake:
#
#   cmake -DVALIDATE=prog -DCLIP=file.bvh -DWORK=dir -P bvh_variants.cmake
cmake_minimum_required(VERSION 3.16)
foreach(v VALIDATE CLIP WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "bvh_variants.cmake: -D${v}=... is missing")
  endif()
endforeach()
if(NOT EXISTS "${CLIP}")
  message("SKIPPED: ${CLIP} is absent")
  return()
endif()

file(READ "${CLIP}" text)
string(FIND "${text}" "Frame Time:" at)
if(at LESS 0)
  message(FATAL_ERROR "${CLIP}: no 'Frame Time:' line")
endif()
string(SUBSTRING "${text}" 0 ${at} head)
string(SUBSTRING "${text}" ${at} -1 frames)
file(MAKE_DIRECTORY "${WORK}")

# 1. rotation channels in another order (Z Y X becomes X Z Y everywhere)
string(REPLACE "Zrotation Yrotation Xrotation" "Xrotation Zrotation Yrotation" order "${head}")
file(WRITE "${WORK}/order.bvh" "${order}${frames}")

# 2. hex floats: zeros and 21 (0x1.5p+4) written in hex where they stand alone
string(REGEX REPLACE " -?0(\\.0+)? " " 0x0p+0 " hex "${frames}")
string(REGEX REPLACE " 21 " " 0x1.5p+4 " hex "${hex}")
file(WRITE "${WORK}/hex.bvh" "${head}${hex}")

# 3. the root's rotation before its position: the channel list and the
#    first six values of every frame swapped in threes
string(REGEX REPLACE "CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation"
       "CHANNELS 6 Zrotation Yrotation Xrotation Xposition Yposition Zposition" rot_head "${head}")
set(t "[^ \t\r\n]+")
string(REGEX REPLACE "\n(${t}) (${t}) (${t}) (${t}) (${t}) (${t}) " "\n\\4 \\5 \\6 \\1 \\2 \\3 " rot_frames "${frames}")
if(rot_head STREQUAL head OR rot_frames STREQUAL frames)
  message(FATAL_ERROR "${CLIP}: not the root channel layout this test rewrites")
endif()
file(WRITE "${WORK}/root_rotation_first.bvh" "${rot_head}${rot_frames}")

set(failed "")
foreach(variant order hex root_rotation_first)
  execute_process(COMMAND "${VALIDATE}" --bvh "${WORK}/${variant}.bvh" --no-bench
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REGEX MATCHALL "[^\n]*FAIL[^\n]*" rows "${out}")
    string(REPLACE ";" "\n" rows "${rows}")
    message("${variant}.bvh: exit ${rc}\n${rows}${err}")
    list(APPEND failed ${variant})
  else()
    message("${variant}.bvh: all backends agree")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "legal BVH variants failed validation: ${failed}")
endif()
