# What the tests/tools/*.cmake scripts share; each includes it first:
#
#   include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# Stops with an error when one of the named -D variables is missing.
function(crowdik_require)
  get_filename_component(script "${CMAKE_SCRIPT_MODE_FILE}" NAME)
  foreach(v ${ARGN})
    if(NOT DEFINED ${v})
      message(FATAL_ERROR "${script}: -D${v}=... is missing")
    endif()
  endforeach()
endfunction()

# The clip to play, where CLIP is given: clip_args is `--bvh CLIP` (empty
# without CLIP), and the script ends as SKIPPED where the file is absent
# (a macro, so that its return() ends the calling script).
macro(crowdik_clip_args)
  set(clip_args)
  if(DEFINED CLIP)
    if(NOT EXISTS "${CLIP}")
      message("SKIPPED: ${CLIP} is absent")
      return()
    endif()
    set(clip_args --bvh "${CLIP}")
  endif()
endmacro()

# Runs a command that must succeed: `crowdik_run(what out COMMAND ...)`
# puts its standard output in the variable `out` and stops, naming `what`,
# its exit status and its standard error, where it fails.
function(crowdik_run what out)
  execute_process(${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} exited with ${rc}: ${e}\n${o}")
  endif()
  set(${out} "${o}" PARENT_SCOPE)
endfunction()
