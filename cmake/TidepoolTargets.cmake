# Project-wide compile settings, applied only to Tidepool's own targets.
set(TIDEPOOL_WARNINGS -Wall -Wextra -Werror -Wno-missing-field-initializers)
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  # RapidJSON's member iterators compare both ways round; clang's C++20 check flags every
  # `it == obj.MemberEnd()` in code that includes it (the fuzz build uses clang).
  list(APPEND TIDEPOOL_WARNINGS -Wno-ambiguous-reversed-operator)
endif()
set(TIDEPOOL_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
                             -fno-sanitize-recover=undefined)

# Fuzzing: every Tidepool target instrumented for libFuzzer's coverage and the sanitizers;
# the fuzz targets themselves link libFuzzer's main.
# pointer-overflow is recoverable so that tests/fuzz/ubsan.supp can name RapidJSON's known
# case; tools/fuzz/run halts on every other report (halt_on_error=1).
set(TIDEPOOL_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                        -fno-sanitize-recover=undefined -fsanitize-recover=pointer-overflow)

function(tidepool_apply_settings target)
  target_compile_options(${target} PRIVATE ${TIDEPOOL_WARNINGS})
  if(TIDEPOOL_FUZZ)
    target_compile_options(${target} PRIVATE ${TIDEPOOL_FUZZ_FLAGS})
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  elseif(TIDEPOOL_SANITIZE)
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
