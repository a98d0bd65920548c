# Checks of crowdik_validate --bvh on a clip, CHECK one of:
#
# variants: legal variants of the clip must pass like the clip itself: the
#   same hierarchy with the rotation channels listed in another order
#   (another legal motion), numbers written as hex floats, and the root's
#   rotation channels before its position (the same motion). With 926 chains
#   in the clip's +60-frame row, one chain off used to fail the 99.9 percent
#   rule (docs/solver.md, "Agreement between backends").
# memory: the tool's memory grows with the clip by a few times its size at
#   most: it once kept every row's chains (1 KB each, ten per frame), about
#   15 times the file. Runs the tool on the clip and on the clip with its
#   frames repeated 20 times, and checks the growth of the peak memory it
#   reports against the growth of the file (its fixed memory cancels out).
#
# Called by tests/tools.cmake:
#
#   cmake -DCHECK=variants|memory -DVALIDATE=prog -DCLIP=file.bvh -DWORK=dir -P validate_bvh.cmake
cmake_minimum_required(VERSION 3.16)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
crowdik_require(CHECK VALIDATE CLIP WORK)
crowdik_clip_args()

if(CHECK STREQUAL "variants")
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
elseif(CHECK STREQUAL "memory")
  set(max_ratio 4)

  file(READ "${CLIP}" text)
  string(REGEX MATCH "Frames:[ \t]*([0-9]+)" _ "${text}")
  set(frames ${CMAKE_MATCH_1})
  string(REGEX MATCH "Frame Time:[^\n]*\n" time_line "${text}")
  string(FIND "${text}" "${time_line}" at)
  string(LENGTH "${time_line}" n)
  math(EXPR at "${at} + ${n}")
  string(SUBSTRING "${text}" 0 ${at} head)
  string(SUBSTRING "${text}" ${at} -1 rows)
  math(EXPR big_frames "${frames} * 20")
  string(REGEX REPLACE "Frames:[ \t]*[0-9]+" "Frames: ${big_frames}" head "${head}")
  string(REPEAT "${rows}" 20 big_rows)
  file(MAKE_DIRECTORY "${WORK}")
  file(WRITE "${WORK}/big.bvh" "${head}${big_rows}")

  function(peak path out)
    crowdik_run("crowdik_validate --bvh ${path}" o COMMAND "${VALIDATE}" --bvh "${path}" --no-bench)
    if(NOT o MATCHES "peak memory: ([0-9]+) KiB")
      message(FATAL_ERROR "${path}: no 'peak memory:' line")
    endif()
    set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  endfunction()
  peak("${CLIP}" small_kib)
  peak("${WORK}/big.bvh" big_kib)
  file(SIZE "${CLIP}" small_bytes)
  file(SIZE "${WORK}/big.bvh" big_bytes)
  math(EXPR grown_kib "${big_kib} - ${small_kib}")
  math(EXPR file_kib "(${big_bytes} - ${small_bytes}) / 1024")
  math(EXPR allowed_kib "${file_kib} * ${max_ratio}")
  message("peak memory ${small_kib} KiB -> ${big_kib} KiB for ${small_bytes} -> ${big_bytes} bytes of clip: "
          "${grown_kib} KiB more for ${file_kib} KiB more (at most ${max_ratio} times)")
  if(grown_kib GREATER allowed_kib)
    message(FATAL_ERROR "crowdik_validate --bvh grows by more than ${max_ratio} times the clip")
  endif()
else()
  message(FATAL_ERROR "validate_bvh.cmake: unknown CHECK ${CHECK}")
endif()
