# Foot placement tools: the BVH loader (a static library the tests use too)
# and the crowd demo, the first command to run.
add_library(crowdik_bvh STATIC ${CMAKE_CURRENT_SOURCE_DIR}/bvh.c)
target_include_directories(crowdik_bvh PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(crowdik_bvh PUBLIC crowdik)
target_compile_options(crowdik_bvh PRIVATE ${CROWDIK_WARNINGS} ${CROWDIK_SANITIZE_FLAGS})
set_target_properties(crowdik_bvh PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)
set_property(GLOBAL APPEND PROPERTY CROWDIK_TEST_LIBS crowdik_bvh)

add_executable(crowdik_demo ${CMAKE_CURRENT_SOURCE_DIR}/demo.c ${CMAKE_CURRENT_SOURCE_DIR}/demo/view.c)
# --view reads the page template, its script and three.js (npm ci --prefix
# viewer) from the source tree when it writes the page, so that neither an
# npm install nor an edit of the page's script needs a rebuild; the
# CROWDIK_VIEWER_DIR environment variable points elsewhere.
target_compile_definitions(crowdik_demo PRIVATE CROWDIK_VIEWER_DIR="${PROJECT_SOURCE_DIR}/viewer")
target_link_libraries(crowdik_demo PRIVATE crowdik_bvh crowdik)
target_compile_options(crowdik_demo PRIVATE ${CROWDIK_WARNINGS} ${CROWDIK_SANITIZE_FLAGS})
set_target_properties(crowdik_demo PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)
