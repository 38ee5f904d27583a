# Project-wide compile settings, applied only to Tidepool's own targets.
set(TIDEPOOL_WARNINGS -Wall -Wextra -Werror -Wno-missing-field-initializers)
set(TIDEPOOL_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
                             -fno-sanitize-recover=undefined)

function(tidepool_apply_settings target)
  target_compile_options(${target} PRIVATE ${TIDEPOOL_WARNINGS})
  if(TIDEPOOL_SANITIZE)
    target_compile_options(${target} PRIVATE ${TIDEPOOL_SANITIZER_FLAGS})
    target_link_options(${target} PRIVATE ${TIDEPOOL_SANITIZER_FLAGS})
  endif()
endfunction()

# tidepool_library(NAME SOURCES ... DEPS ...)
function(tidepool_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/libs)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  tidepool_apply_settings(${name})
endfunction()

# tidepool_service(NAME SOURCES ... DEPS ...): one deployable binary.
function(tidepool_service name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  tidepool_apply_settings(${name})
  install(TARGETS ${name} RUNTIME DESTINATION bin)
endfunction()

# tidepool_test(NAME LABELS ... SOURCES ... DEPS ...): a Catch2 test binary registered with ctest.
function(tidepool_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} Catch2::Catch2WithMain)
  tidepool_apply_settings(${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  add_test(NAME ${name} COMMAND ${name} --reporter compact --order rand --warn NoAssertions)
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
endfunction()
