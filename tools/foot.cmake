# The crowd demo, the first command to run.
# The demo, one file per job (tools/demo/demo.h). Its --png goes through
# libpng (Debian's libpng-dev); without it the demo is built all the same
# and --png says that it is missing.
add_executable(crowdik_demo demo/main.c demo/motion.c demo/scene.c demo/measure.c demo/draw.c demo/view.c
                            demo/herd.c)
target_link_libraries(crowdik_demo PRIVATE crowdik_bvh crowdik_creatures crowdik_legs crowdik_scalar_math crowdik)
# --view reads the page template, its script and three.js (npm ci --prefix
# viewer) from the source tree when it writes the page, so that neither an
# npm install nor an edit of the page's script needs a rebuild; the
# CROWDIK_VIEWER_DIR environment variable points elsewhere.
target_compile_definitions(crowdik_demo PRIVATE CROWDIK_VIEWER_DIR="${PROJECT_SOURCE_DIR}/viewer")
find_package(PNG QUIET)
if(PNG_FOUND)
  target_link_libraries(crowdik_demo PRIVATE PNG::PNG)
  target_compile_definitions(crowdik_demo PRIVATE CROWDIK_DEMO_PNG)
else()
  message(STATUS "crowdik: libpng not found, crowdik_demo --png is off (install libpng-dev)")
endif()
target_compile_options(crowdik_demo PRIVATE ${CROWDIK_WARNINGS} ${CROWDIK_SANITIZE_FLAGS})
set_target_properties(crowdik_demo PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)
