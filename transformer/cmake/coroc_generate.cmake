# coroc_generate.cmake: run coroc on the .coc sources of a target.
#
# The same file serves coroc's own build (examples/) and projects that use an
# installed coroc through find_package(coroc): corocConfig.cmake includes it
# after it has imported coroc::coroc. Which coroc runs is the target named by
# COROC_EXECUTABLE_TARGET when this file is included (coroc's own build sets
# it to `coroc`); otherwise it is the imported coroc::coroc.
#
#   coroc_generate(TARGET <target>
#                  [BACKEND stackless|stackful]
#                  [SOURCES <file.coc>...]
#                  [OUTPUT_DIR <dir>]
#                  [HEADER]
#                  [OPTIONS <coroc option>...]
#                  [DEPENDS <file>...])
#
# Arguments:
#   TARGET      the target whose sources the generated C joins (required). It
#               must already exist, made in the directory that calls
#               coroc_generate.
#   BACKEND     stackless (the default) or stackful; passed as --backend=.
#   SOURCES     the .coc files, relative to the current source directory or
#               absolute (at least one).
#   OUTPUT_DIR  where the C goes; default: the current binary directory. Each
#               <name>.coc becomes <OUTPUT_DIR>/<name>.<backend>.c, so one .coc
#               can be built with both backends in one project.
#   HEADER      also write, for each <name>.coc, <OUTPUT_DIR>/<name>.h (coroc
#               --header): the frames and creation functions of its
#               coroutines with external linkage, so that other C files can
#               make instances in storage they give (CORO_FRAME(NAME),
#               coro_in_NAME). The target's sources and those of every target
#               that links it find it as `#include "<name>.h"`: OUTPUT_DIR and
#               the .coc's directory (whose headers it may include) go on the
#               target's include path (PUBLIC, for the build tree only). One
#               .coc built with both backends needs two OUTPUT_DIRs.
#   OPTIONS     more command-line options for coroc, such as --no-line.
#   DEPENDS     more files whose change must re-run coroc. The headers that a
#               .coc includes need not be listed where the depfile is used
#               (below); list them on an older CMake, and list a header that
#               the build generates, so that it is made before coroc runs.
#
# coroc is given the target's include directories and compile definitions as
# -I/-D (it must know the type names that headers declare, and evaluate #if
# inside coroutine bodies as the compiler will), and -I the .coc's own
# directory. The generated C is compiled with that directory on its include
# path too, so `#include "local.h"` beside the .coc works in both.
#
# With CMake >= 3.20 and a Makefile or Ninja generator (>= 3.21: Visual Studio
# and Xcode too), coroc also writes a depfile, <output>.d (coroc -MD -MF), and
# the custom command reads it (DEPFILE): a change to any header the .coc
# includes runs coroc again. Other CMake versions and generators do without.
#
# coroc_generate does not link the runtime: link the target with coroc::coro
# (or `coro` inside coroc's own build).
#
# Example:
#   find_package(coroc 0.1 REQUIRED)
#   add_executable(app main.c)
#   target_link_libraries(app PRIVATE coroc::coro)
#   coroc_generate(TARGET app BACKEND stackless SOURCES gen.coc)
#   # builds ${CMAKE_CURRENT_BINARY_DIR}/gen.stackless.c into app
#   coroc_generate(TARGET app SOURCES frames.coc HEADER)
#   # and frames.stackless.c, with frames.h for app's main.c to include
include_guard(GLOBAL)

# Can add_custom_command take a DEPFILE with this CMake and this generator?
# (Using it where it cannot is an error.)
if((CMAKE_VERSION VERSION_GREATER_EQUAL 3.20 AND CMAKE_GENERATOR MATCHES "Makefiles|Ninja|WMake")
   OR (CMAKE_VERSION VERSION_GREATER_EQUAL 3.21 AND CMAKE_GENERATOR MATCHES "Visual Studio|Xcode"))
  set_property(GLOBAL PROPERTY COROC_USE_DEPFILE TRUE)
else()
  set_property(GLOBAL PROPERTY COROC_USE_DEPFILE FALSE)
endif()

if(NOT DEFINED COROC_EXECUTABLE_TARGET)
  set(COROC_EXECUTABLE_TARGET coroc::coroc)
endif()
# A global property, not a variable: coroc_generate may be called from
# directories that do not see the variable the including directory set.
set_property(GLOBAL PROPERTY COROC_EXECUTABLE_TARGET "${COROC_EXECUTABLE_TARGET}")

function(coroc_generate)
  cmake_parse_arguments(PARSE_ARGV 0 arg "HEADER" "TARGET;BACKEND;OUTPUT_DIR" "SOURCES;OPTIONS;DEPENDS")

  if(arg_UNPARSED_ARGUMENTS)
    message(SEND_ERROR "coroc_generate: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
    return()
  endif()
  if(NOT arg_TARGET)
    message(SEND_ERROR "coroc_generate: TARGET <target> is required")
    return()
  endif()
  if(NOT TARGET ${arg_TARGET})
    message(SEND_ERROR "coroc_generate: TARGET ${arg_TARGET} is not a target: create it first (add_executable/add_library)")
    return()
  endif()
  if(NOT arg_BACKEND)
    set(arg_BACKEND stackless)
  endif()
  if(NOT arg_BACKEND MATCHES "^(stackless|stackful)$")
    message(SEND_ERROR "coroc_generate: unknown BACKEND '${arg_BACKEND}' (expected stackless or stackful)")
    return()
  endif()
  if(NOT arg_SOURCES)
    message(SEND_ERROR "coroc_generate: no SOURCES given for target ${arg_TARGET}")
    return()
  endif()
  if(NOT arg_OUTPUT_DIR)
    set(arg_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  get_filename_component(out_dir "${arg_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  file(MAKE_DIRECTORY "${out_dir}")  # (the Makefile generators make no directory for an output)

  get_property(coroc GLOBAL PROPERTY COROC_EXECUTABLE_TARGET)
  if(NOT TARGET ${coroc})
    message(SEND_ERROR "coroc_generate: the coroc executable target '${coroc}' does not exist "
                       "(use find_package(coroc) before calling coroc_generate)")
    return()
  endif()

  # The target's -I and -D, evaluated at generation time so that what is added
  # later (and what linked targets such as coroc::coro bring) counts too.
  # An empty list gives no argument at all, thanks to COMMAND_EXPAND_LISTS.
  set(incs "$<TARGET_PROPERTY:${arg_TARGET},INCLUDE_DIRECTORIES>")
  set(defs "$<TARGET_PROPERTY:${arg_TARGET},COMPILE_DEFINITIONS>")
  set(inc_args "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>")
  set(def_args "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>")

  foreach(src IN LISTS arg_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(src_dir "${src}" DIRECTORY)
    get_filename_component(name "${src}" NAME_WLE)
    set(out "${out_dir}/${name}.${arg_BACKEND}.c")

    # Two .coc files of the same name (or two calls for one file and backend)
    # would write the same output: refuse rather than let one overwrite the other.
    get_property(owner GLOBAL PROPERTY "COROC_GENERATED_${out}")
    if(owner)
      message(SEND_ERROR "coroc_generate: ${out} is already generated for ${owner}; "
                         "use OUTPUT_DIR to keep ${src} apart")
      continue()
    endif()
    set_property(GLOBAL PROPERTY "COROC_GENERATED_${out}" "${arg_TARGET} from ${src}")

    # HEADER: <name>.h beside it, which the same run writes (whole, or not at all).
    set(header "")
    set(header_args "")
    if(arg_HEADER)
      set(header "${out_dir}/${name}.h")
      get_property(owner GLOBAL PROPERTY "COROC_GENERATED_${header}")
      if(owner)
        message(SEND_ERROR "coroc_generate: the header ${header} is already generated for ${owner}; "
                           "use OUTPUT_DIR to keep ${src} apart")
        continue()
      endif()
      set_property(GLOBAL PROPERTY "COROC_GENERATED_${header}" "${arg_TARGET} from ${src}")
      set(header_args "--header=${header}")
    endif()

    # The depfile names the headers coroc read, so that changing one of them
    # runs coroc again. CMP0116 NEW (recorded per command, so set only around
    # it): Ninja reads relative paths in it from the current binary directory,
    # where coroc runs, as the Makefile generators always do.
    get_property(use_depfile GLOBAL PROPERTY COROC_USE_DEPFILE)
    set(dep_args "")
    set(depfile "")
    if(use_depfile)
      set(dep_args -MD -MF "${out}.d")
      set(depfile DEPFILE "${out}.d")
    endif()

    file(RELATIVE_PATH out_rel "${CMAKE_BINARY_DIR}" "${out}")
    cmake_policy(PUSH)
    if(POLICY CMP0116)
      cmake_policy(SET CMP0116 NEW)
    endif()
    add_custom_command(
      OUTPUT "${out}" ${header}
      COMMAND "$<TARGET_FILE:${coroc}>" "--backend=${arg_BACKEND}" ${arg_OPTIONS}
              "-I${src_dir}" "${inc_args}" "${def_args}" ${dep_args} ${header_args}
              -o "${out}" "${src}"
      DEPENDS "${src}" ${coroc} ${arg_DEPENDS}
      ${depfile}
      WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
      COMMENT "coroc (${arg_BACKEND}): ${out_rel}"
      VERBATIM
      COMMAND_EXPAND_LISTS)
    cmake_policy(POP)
    target_sources(${arg_TARGET} PRIVATE "${out}" ${header})
    # `#include "x.h"` in the .coc means beside the .coc, for the compiler too.
    set_property(SOURCE "${out}" APPEND PROPERTY INCLUDE_DIRECTORIES "${src_dir}")
    if(arg_HEADER)
      # the header, and what it includes as the .coc does, for the files
      # that include it (of the target, and of those that link it)
      target_include_directories(${arg_TARGET} PUBLIC "$<BUILD_INTERFACE:${out_dir}>"
                                 "$<BUILD_INTERFACE:${src_dir}>")
    endif()
  endforeach()
endfunction()
