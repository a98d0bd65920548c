# Runs one command-line tool on bad input and checks that it refuses it
# cleanly: a non-zero exit status (not a signal, not a sanitizer report), and
# a message on stderr that matches EXPECT. Called by tests/tools.cmake:
#
#   cmake -DTOOL_COMMAND=prog|arg|... -DEXPECT=regex -DEXIT_CODE=n -DWORK=dir -P bad_input.cmake
#
# EXIT_CODE is the status every crowdik tool gives that kind of input (see
# each tool's --help): 2 for a bad option or a file that cannot be read or
# used, 3 when it cannot run (an output that cannot be written).
#
# TOOL_COMMAND separates arguments with '|'; '<empty>' stands for an empty
# argument and '@WORK@' for WORK, a scratch folder holding the bad files:
#   garbage.bvh     text that is not BVH
#   empty.bvh       an empty file
#   adir/           a folder where a file is expected
#   unreadable.bvh  a file without read permission (root reads it anyway:
#                   then a test that needs it reports SKIPPED)
#   none.json       crowdik_bench JSON output without results
#   foot.json       crowdik_bench JSON output with one foot frame
cmake_minimum_required(VERSION 3.16)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
crowdik_require(TOOL_COMMAND EXPECT EXIT_CODE WORK)

file(MAKE_DIRECTORY "${WORK}/adir")
file(WRITE "${WORK}/garbage.bvh" "this is not a motion capture file\n1 2 3\n")
file(WRITE "${WORK}/empty.bvh" "")
file(WRITE "${WORK}/none.json" "{\"benchmarks\": []}\n")
file(WRITE "${WORK}/foot.json"
     "{\"benchmarks\": [{\"name\": \"foot/frame/characters:10/threads:1/manual_time\", \"frame_ms\": 1.0}]}\n")
file(REMOVE "${WORK}/unreadable.bvh")
file(WRITE "${WORK}/unreadable.bvh" "HIERARCHY\n")
execute_process(COMMAND chmod 000 "${WORK}/unreadable.bvh")

string(REPLACE "@WORK@" "${WORK}" command "${TOOL_COMMAND}")
# Each argument single-quoted for sh, which then execs the tool (so that a
# signal still reaches execute_process as one): a CMake list cannot carry an
# empty argument.
string(REPLACE "|" ";" command "${command}")
set(line "exec")
foreach(a IN LISTS command)
  if(a STREQUAL "<empty>")
    set(a "")
  endif()
  string(REPLACE "'" "'\\''" a "${a}")
  string(APPEND line " '${a}'")
endforeach()

if(TOOL_COMMAND MATCHES "unreadable")
  # root reads files whatever their mode: nothing to test there
  execute_process(COMMAND cat "${WORK}/unreadable.bvh" RESULT_VARIABLE readable OUTPUT_QUIET ERROR_QUIET)
  if(readable EQUAL 0)
    message("SKIPPED: this user can read a file with mode 000 (root)")
    return()
  endif()
endif()

execute_process(COMMAND sh -c "${line}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
message("command: ${line}\nexit: ${rc}\nstderr: ${err}")
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "the tool did not exit normally: ${rc}")
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "the tool accepted bad input (exit status 0)\nstdout: ${out}")
endif()
if(rc GREATER 125)
  message(FATAL_ERROR "exit status ${rc}: a signal or a shell failure, not a refusal")
endif()
if(NOT rc EQUAL EXIT_CODE)
  message(FATAL_ERROR "exit status ${rc}, not ${EXIT_CODE} (the status every crowdik tool gives this input)")
endif()
if(err MATCHES "Sanitizer|runtime error|Traceback|Segmentation|core dumped")
  message(FATAL_ERROR "the tool crashed or reported a sanitizer error")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}'")
endif()
