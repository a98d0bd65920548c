# crowdik_validate --bvh needs memory in proportion to the clip, a few times
# its size: it once kept every row's chains (1 KB each, ten per frame), about
# 15 times the file. Runs the tool on a clip and on the clip with its frames
# repeated 20 times, and checks the growth of the peak memory it reports
# against the growth of the file (the tool's fixed memory cancels out).
# Called by tests/tools.cmake:
#
#   cmake -DVALIDATE=prog -DCLIP=file.bvh -DWORK=dir -P bvh_memory.cmake
cmake_minimum_required(VERSION 3.16)
foreach(v VALIDATE CLIP WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "bvh_memory.cmake: -D${v}=... is missing")
  endif()
endforeach()
if(NOT EXISTS "${CLIP}")
  message("SKIPPED: ${CLIP} is absent")
  return()
endif()
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
  execute_process(COMMAND "${VALIDATE}" --bvh "${path}" --no-bench RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${path}: exit ${rc}\n${e}")
  endif()
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
