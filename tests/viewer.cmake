# The demo's 3D view (crowdik_demo --view, docs/viewer.md) in a real browser:
# viewer/test.mjs writes the page for a short scene, checks the page's
# script with node --check and opens the page in headless Chromium through
# playwright-core (no network): no console error, the animation advancing,
# legs drawn over terrain. Skipped, with the reason, when node, Chromium
# (apt-get install chromium) or viewer/node_modules (npm ci --prefix viewer)
# is absent.
#
#   ctest --test-dir <build> -R viewer --output-on-failure
if(NOT CROWDIK_BUILD_TOOLS OR CMAKE_CROSSCOMPILING OR NOT TARGET crowdik_demo)
  return()
endif()

find_program(CROWDIK_NODE NAMES node nodejs)
if(CROWDIK_NODE)
  add_test(NAME viewer_browser
           COMMAND ${CROWDIK_NODE} ${PROJECT_SOURCE_DIR}/viewer/test.mjs --demo $<TARGET_FILE:crowdik_demo>
                   --work ${CMAKE_CURRENT_BINARY_DIR}/viewer)
else()
  add_test(NAME viewer_browser COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: node not found (apt-get install nodejs)")
endif()
set_tests_properties(viewer_browser PROPERTIES TIMEOUT 600 SKIP_REGULAR_EXPRESSION "SKIPPED:")

# --view refuses a page it cannot write, and says which of its files is
# missing (the writes need three.js installed to get that far): 3, cannot
# run, like any output that cannot be written.
set(demo $<TARGET_FILE:crowdik_demo>)
set(small --characters|2|--frames|2|--quiet|--out|@WORK@/demo.svg)
crowdik_bad_input(demo_view_value_missing 2 "--view needs a value" ${demo} --view)
crowdik_bad_input(demo_view_no_assets 3 "--view: cannot read the page's .*page[.]html: No such file"
                  env CROWDIK_VIEWER_DIR=@WORK@/adir ${demo} ${small} --view @WORK@/view.html)
if(EXISTS ${PROJECT_SOURCE_DIR}/viewer/node_modules/three/build/three.core.js)
  crowdik_bad_input(demo_view_missing_folder 3 "cannot write .*No such file" ${demo} ${small}
                    --view @WORK@/no/such/folder/view.html)
  crowdik_bad_input(demo_view_directory 3 "cannot write .*adir: Is a directory" ${demo} ${small} --view @WORK@/adir)
  # the page is an addition: the report and the SVG stay the same
  add_test(NAME viewer_same_report
           COMMAND ${CMAKE_COMMAND} -DDEMO=$<TARGET_FILE:crowdik_demo> -DWORK=${CMAKE_CURRENT_BINARY_DIR}/viewer_same
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/view_same.cmake)
  set_tests_properties(viewer_same_report PROPERTIES TIMEOUT 180)
endif()
