# Bad input for the command-line tools: each case runs a tool on a missing,
# unreadable or malformed file, or on bad option values, through
# tests/tools/bad_input.cmake, which wants the exit status every crowdik
# tool gives that input (2: a bad option or a file that cannot be read or
# used; 3: cannot run, such as an output that cannot be written), no crash,
# no sanitizer report, no traceback, and a message on stderr matching the
# regex.
#
#   ctest --test-dir <build> -R tool_bad --output-on-failure
#
# Arguments are separated by '|'; '<empty>' is an empty argument and '@WORK@'
# the test's scratch folder (garbage.bvh, empty.bvh, adir/, unreadable.bvh).
if(NOT CROWDIK_BUILD_TOOLS OR CMAKE_CROSSCOMPILING OR NOT TARGET crowdik_demo)
  return()
endif()

function(crowdik_bad_input name code expect)
  set(work ${CMAKE_CURRENT_BINARY_DIR}/bad_input/${name})
  string(REPLACE ";" "|" command "${ARGN}")
  add_test(NAME tool_bad_${name}
           COMMAND ${CMAKE_COMMAND} "-DTOOL_COMMAND=${command}" "-DEXPECT=${expect}" "-DEXIT_CODE=${code}"
                   "-DWORK=${work}" -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/bad_input.cmake)
  set_tests_properties(tool_bad_${name} PROPERTIES TIMEOUT 180 SKIP_REGULAR_EXPRESSION "SKIPPED:")
endfunction()

set(validate $<TARGET_FILE:crowdik_validate>)
crowdik_bad_input(validate_chains_word 2 "--chains needs an integer" ${validate} --chains abc)
crowdik_bad_input(validate_hash_chains 2 "--chains needs an integer" ${validate} --hash --chains 0)
crowdik_bad_input(validate_hash_option 2 "unknown --hash option" ${validate} --hash --bogus)
crowdik_bad_input(validate_chains_negative 2 "--chains needs an integer" ${validate} --chains -5)
crowdik_bad_input(validate_chains_huge 2 "--chains needs an integer" ${validate} --chains 99999999999999999999)
crowdik_bad_input(validate_threads_float 2 "--threads needs an integer" ${validate} --threads 1e9)
crowdik_bad_input(validate_threads_empty 2 "--threads needs an integer" ${validate} --threads <empty>)
crowdik_bad_input(validate_seed_missing 2 "--seed needs an integer" ${validate} --seed)
crowdik_bad_input(validate_frames_unknown 2 "unknown option '--frames'" ${validate} --frames -5)
crowdik_bad_input(validate_stray_argument 2 "unknown option 'extra'" ${validate} extra)

set(stats $<TARGET_FILE:crowdik_stats>)
crowdik_bad_input(stats_word 2 "CHAINS must be an integer" ${stats} abc)
crowdik_bad_input(stats_negative 2 "CHAINS must be an integer" ${stats} -5)
crowdik_bad_input(stats_float 2 "CHAINS must be an integer" ${stats} 1e9)
crowdik_bad_input(stats_empty 2 "CHAINS must be an integer" ${stats} <empty>)
crowdik_bad_input(stats_unknown_option 2 "unknown option '--chars'" ${stats} --chars)
crowdik_bad_input(stats_two_arguments 2 "one argument at most" ${stats} 10 20)
crowdik_bad_input(stats_threads_missing 2 "--threads needs an integer" ${stats} 10 --threads)
crowdik_bad_input(stats_threads_word 2 "--threads needs an integer" ${stats} --threads abc)

set(demo $<TARGET_FILE:crowdik_demo>)
set(small --characters|2|--frames|2|--quiet|--out|@WORK@/demo.svg)
crowdik_bad_input(demo_unknown_option 2 "unknown option '--chars'" ${demo} --chars abc)
crowdik_bad_input(demo_frames_negative 2 "bad value '-5' for --frames" ${demo} --frames -5)
crowdik_bad_input(demo_frames_empty 2 "bad value '' for --frames" ${demo} --frames <empty>)
crowdik_bad_input(demo_threads_float 2 "bad value '1e9' for --threads" ${demo} --threads 1e9)
crowdik_bad_input(demo_characters_word 2 "bad value 'abc' for --characters" ${demo} --characters abc)
crowdik_bad_input(demo_characters_zero 2 "bad value '0' for --characters" ${demo} --characters 0)
crowdik_bad_input(demo_seed_missing 2 "--seed needs a value" ${demo} --seed)
crowdik_bad_input(demo_backend_unknown 2 "bad value 'fast' for --backend" ${demo} --backend fast)
crowdik_bad_input(demo_bvh_scale_nan 2 "bad value 'nan' for --bvh-scale" ${demo} --bvh-scale nan)
crowdik_bad_input(demo_start_unknown 2 "bad value 'sideways' for --start" ${demo} --start sideways)
crowdik_bad_input(demo_legs_without_bvh 2 "--legs needs --bvh" ${demo} --legs a,b,c:d,e,f)
crowdik_bad_input(demo_bvh_missing 2 "missing[.]bvh: No such file" ${demo} ${small} --bvh @WORK@/missing.bvh)
crowdik_bad_input(demo_bvh_directory 2 "adir: (cannot read|Is a directory)" ${demo} ${small} --bvh @WORK@/adir)
crowdik_bad_input(demo_bvh_unreadable 2 "unreadable[.]bvh: Permission denied" ${demo} ${small}
                  --bvh @WORK@/unreadable.bvh)
crowdik_bad_input(demo_bvh_garbage 2 "garbage[.]bvh: line 1: expected 'HIERARCHY'" ${demo} ${small}
                  --bvh @WORK@/garbage.bvh)
crowdik_bad_input(demo_bvh_empty 2 "empty[.]bvh: line 1:" ${demo} ${small} --bvh @WORK@/empty.bvh)
crowdik_bad_input(demo_out_directory 3 "cannot write .*adir: Is a directory" ${demo} --characters 2 --frames 2
                  --quiet --out @WORK@/adir)
crowdik_bad_input(demo_out_missing_folder 3 "cannot write .*No such file" ${demo} --characters 2 --frames 2
                  --quiet --out @WORK@/no/such/folder/demo.svg)
crowdik_bad_input(demo_terrain_unknown 2 "bad value 'hilly' for --terrain" ${demo} --terrain hilly)
crowdik_bad_input(demo_ground_unknown 2 "bad value 'raycast' for --ground" ${demo} --ground raycast)
crowdik_bad_input(demo_contacts_unknown 2 "bad value 'feet' for --contacts" ${demo} --contacts feet)
crowdik_bad_input(demo_loop_unknown 2 "bad value 'smooth' for --loop" ${demo} --loop smooth)
crowdik_bad_input(demo_loop_missing 2 "--loop needs a value" ${demo} --loop)
crowdik_bad_input(demo_plant_speed_zero 2 "bad value '0' for --plant-speed" ${demo} --plant-speed 0)
crowdik_bad_input(demo_plant_speed_word 2 "bad value 'slow' for --plant-speed" ${demo} --plant-speed slow)
crowdik_bad_input(demo_swing_lift_above_1 2 "bad value '1.5' for --swing-lift" ${demo} --swing-lift 1.5)
crowdik_bad_input(demo_dump_missing 2 "--dump needs a value" ${demo} --dump)
crowdik_bad_input(demo_dump_directory 3 "cannot write .*adir: Is a directory" ${demo} ${small} --dump @WORK@/adir)
crowdik_bad_input(demo_dump_missing_folder 3 "cannot write .*No such file" ${demo} ${small}
                  --dump @WORK@/no/such/folder/dump.csv)

# --creature: a herd's flags (the biped's --bvh, --legs, --view, --png refused)
crowdik_bad_input(demo_creature_unknown 2 "bad value 'centaur' for --creature" ${demo} --creature centaur)
crowdik_bad_input(demo_creature_bvh 2 "--bvh is for --creature biped only" ${demo} ${small} --creature quadruped
                  --bvh @WORK@/garbage.bvh)
crowdik_bad_input(demo_creature_view 2 "--view is for --creature biped only" ${demo} ${small} --creature hexapod
                  --view @WORK@/v.html)
crowdik_bad_input(demo_creature_png 2 "--png is for --creature biped only" ${demo} ${small} --creature quadruped
                  --png @WORK@/p.png)
crowdik_bad_input(demo_creature_out 3 "cannot write .*adir: Is a directory" ${demo} --creature hexapod
                  --characters 2 --frames 2 --quiet --out @WORK@/adir)
crowdik_bad_input(demo_creature_dump 3 "cannot write .*No such file" ${demo} ${small} --creature quadruped
                  --dump @WORK@/no/such/folder/dump.csv)

# --creature quadruped and hexapod: a herd's run, report, picture and --dump
# rows (tests/tools/demo_herd.cmake); the quadruped's planted feet within
# 1 cm of the ground on >= 99 % of planted frames, no limit violation.
foreach(creature quadruped hexapod)
  add_test(NAME tool_demo_herd_${creature}
           COMMAND ${CMAKE_COMMAND} -DDEMO=${demo} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/demo_herd/${creature}
                   -DCREATURE=${creature} -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/demo_herd.cmake)
  set_tests_properties(tool_demo_herd_${creature} PROPERTIES TIMEOUT 180)
endforeach()

# --dump: the CSV's header row exactly, a row per frame and foot, numbers
# the geometry fixes (tests/tools/demo_dump.cmake); on flat ground and on
# the procedural terrain with exact ground, and with a clip when present.
foreach(case flat procedural clip)
  set(extra -DTERRAIN=${case})
  if(case STREQUAL "clip")
    set(extra -DTERRAIN=flat -DCLIP=${CROWDIK_MOCAP_DIR}/cmu_12_01_walk.bvh)
  endif()
  add_test(NAME tool_demo_dump_${case}
           COMMAND ${CMAKE_COMMAND} -DDEMO=${demo} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/demo_dump/${case} ${extra}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/demo_dump.cmake)
  set_tests_properties(tool_demo_dump_${case} PROPERTIES TIMEOUT 180 SKIP_REGULAR_EXPRESSION "SKIPPED:")
endforeach()

find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  set(report ${Python3_EXECUTABLE}|${PROJECT_SOURCE_DIR}/tools/bench_report.py)
  crowdik_bad_input(bench_report_missing 2 "cannot read .*missing[.]json: No such file" ${report} @WORK@/missing.json)
  crowdik_bad_input(bench_report_directory 2 "cannot read .*adir: Is a directory" ${report} @WORK@/adir)
  crowdik_bad_input(bench_report_not_json 2 "garbage[.]bvh is not JSON" ${report} @WORK@/garbage.bvh)
  crowdik_bad_input(bench_report_chains_word 2 "invalid int value: 'abc'" ${report} --chains abc @WORK@/x.json)
  crowdik_bad_input(bench_report_no_results 2 "no crowdik_bench results in .*none[.]json" ${report} @WORK@/none.json)
  crowdik_bad_input(bench_report_unwritable 3 "cannot write .*adir/no/r[.]md" ${report} @WORK@/foot.json
                    --markdown @WORK@/adir/no/r.md)
  # the report's measures recomputed from its CSV by tools/demo/measures.py
  # (tests/tools/demo_measures.cmake): the procedural walk, a run (the
  # 1.0 m/s still feet) when the clip is present, and the herds
  foreach(case walk run quadruped hexapod)
    set(extra)
    if(case STREQUAL "run")
      set(extra -DCLIP=${CROWDIK_MOCAP_DIR}/cmu_49_04_run_leap.bvh)
    elseif(case STREQUAL "quadruped" OR case STREQUAL "hexapod")
      set(extra -DCREATURE=${case})
    endif()
    add_test(NAME tool_demo_measures_${case}
             COMMAND ${CMAKE_COMMAND} -DDEMO=${demo} -DPYTHON=${Python3_EXECUTABLE}
                     -DSCRIPT=${PROJECT_SOURCE_DIR}/tools/demo/measures.py
                     -DWORK=${CMAKE_CURRENT_BINARY_DIR}/demo_measures/${case} ${extra}
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/demo_measures.cmake)
    set_tests_properties(tool_demo_measures_${case} PROPERTIES TIMEOUT 300 SKIP_REGULAR_EXPRESSION "SKIPPED:")
  endforeach()
  # on the jog, with its --dump CSVs checked by a script of the same name:
  # a clip's loop, whose raw wrap jumps and cross-faded one does not (the
  # jog's first and last frames are at different gait phases;
  # tests/tools/demo_loop.cmake), and feet that turn with the animation, on
  # flat ground, whose push-off flicked before 0.21
  # (tests/tools/demo_foot_turn.cmake)
  foreach(check loop foot_turn)
    add_test(NAME tool_demo_${check}
             COMMAND ${CMAKE_COMMAND} -DDEMO=${demo} -DPYTHON=${Python3_EXECUTABLE}
                     -DSCRIPT=${CMAKE_CURRENT_SOURCE_DIR}/tools/demo_${check}.py
                     -DCLIP=${CROWDIK_MOCAP_DIR}/cmu_02_03_runjog_daz.bvh -DWORK=${CMAKE_CURRENT_BINARY_DIR}/demo_${check}
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/demo_${check}.cmake)
    set_tests_properties(tool_demo_${check} PROPERTIES TIMEOUT 180 SKIP_REGULAR_EXPRESSION "SKIPPED:")
  endforeach()
endif()

# Legal BVH variants (channel order, hex floats, root rotation first) pass
# validation like the clip they come from, and crowdik_validate --bvh's
# memory grows with the clip by a few times its size at most; both skipped
# when the clip is absent (tests/tools/validate_bvh.cmake).
foreach(check variants memory)
  add_test(NAME tool_validate_bvh_${check}
           COMMAND ${CMAKE_COMMAND} -DCHECK=${check} -DVALIDATE=$<TARGET_FILE:crowdik_validate>
                   -DCLIP=${CROWDIK_MOCAP_DIR}/cmu_12_01_walk.bvh -DWORK=${CMAKE_CURRENT_BINARY_DIR}/bvh_${check}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/validate_bvh.cmake)
  set_tests_properties(tool_validate_bvh_${check} PROPERTIES TIMEOUT 600 SKIP_REGULAR_EXPRESSION "SKIPPED:")
endforeach()

