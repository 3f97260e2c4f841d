# SPDX-License-Identifier: GPL-2.0-or-later
# LnetcapBpf.cmake - build BPF programs into libbpf skeletons.
#
#   lnetcap_bpf_find_tools()      sets LNETCAP_BPF_TOOLS_FOUND and the tool paths
#   lnetcap_bpf_skeleton(NAME SOURCE [DEFINES d...] [DEPENDS f...])
#       clang -target bpf  SOURCE -> NAME.tmp.o
#       bpftool gen object NAME.bpf.o NAME.tmp.o   (links, checks BTF/relocations)
#       bpftool gen skeleton NAME.bpf.o name NAME > NAME.skel.h
#     and an INTERFACE target NAME_skel whose include directory holds
#     NAME.skel.h.  The same SOURCE can be built several times with different
#     DEFINES (one skeleton per attach mode).
#
# Nothing generated here lives in the source tree.  No vmlinux.h is used:
# the programs read kernel memory through offsets (struct lnetcap_layout in bpf/lnetcap_abi.h), so
# they only need UAPI headers and libbpf's bpf_helpers.h/bpf_tracing.h.

include_guard(GLOBAL)

function(lnetcap_bpf_find_tools)
  find_program(LNETCAP_CLANG NAMES clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14)
  find_program(LNETCAP_BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin /usr/local/sbin)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(LIBBPF QUIET IMPORTED_TARGET GLOBAL libbpf>=0.8)
  endif()
  set(found TRUE)
  foreach(what LNETCAP_CLANG LNETCAP_BPFTOOL)
    if(NOT ${what})
      set(found FALSE)
    endif()
  endforeach()
  if(NOT LIBBPF_FOUND)
    set(found FALSE)
  endif()
  if(found)
    execute_process(COMMAND ${LNETCAP_CLANG} --version OUTPUT_VARIABLE ver ERROR_QUIET)
    if(ver MATCHES "clang version ([0-9]+)")
      if(CMAKE_MATCH_1 LESS 11)
        message(STATUS "lnetcap: clang ${CMAKE_MATCH_1} is too old for BPF (need >= 11)")
        set(found FALSE)
      endif()
    endif()
  endif()
  set(LNETCAP_BPF_TOOLS_FOUND ${found} PARENT_SCOPE)
endfunction()

function(lnetcap_bpf_skeleton name src)
  cmake_parse_arguments(ARG "" "" "DEFINES;DEPENDS" ${ARGN})
  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/skel)
  set(tmp_obj ${outdir}/${name}.tmp.o)
  set(bpf_obj ${outdir}/${name}.bpf.o)
  set(skel_h ${outdir}/${name}.skel.h)

  # -target bpf has no system include dirs of its own: add the host's
  # multiarch dir (asm/types.h) and clang's own (stdbool.h, stddef.h).
  execute_process(COMMAND ${LNETCAP_CLANG} -print-resource-dir
                  OUTPUT_VARIABLE clang_res OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  set(sys_inc -idirafter ${clang_res}/include)
  if(EXISTS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE})
    list(APPEND sys_inc -idirafter /usr/include/${CMAKE_LIBRARY_ARCHITECTURE})
  elseif(EXISTS /usr/include/x86_64-linux-gnu)
    list(APPEND sys_inc -idirafter /usr/include/x86_64-linux-gnu)
  endif()
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    set(arch x86)
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
    set(arch arm64)
  else()
    set(arch ${CMAKE_SYSTEM_PROCESSOR})
  endif()
  set(defs)
  foreach(d ${ARG_DEFINES})
    list(APPEND defs -D${d})
  endforeach()
  foreach(inc ${LIBBPF_INCLUDE_DIRS})
    list(APPEND sys_inc -idirafter ${inc})
  endforeach()

  # The depfile must name the command's first output (-MT): clang would
  # name the .tmp.o, which no rule makes, and ninja would rerun the whole
  # skeleton command on every build.
  add_custom_command(
    OUTPUT ${skel_h} ${bpf_obj}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
    COMMAND ${LNETCAP_CLANG} -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_${arch}
            ${defs} -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/bpf ${sys_inc}
            -MD -MF ${tmp_obj}.d -MT ${skel_h} -c ${src} -o ${tmp_obj}
    COMMAND ${LNETCAP_BPFTOOL} gen object ${bpf_obj} ${tmp_obj}
    COMMAND ${LNETCAP_BPFTOOL} gen skeleton ${bpf_obj} name ${name} > ${skel_h}
    DEPENDS ${src} ${ARG_DEPENDS}
    DEPFILE ${tmp_obj}.d
    COMMENT "BPF skeleton ${name}"
    VERBATIM)
  add_custom_target(${name}_skel_gen DEPENDS ${skel_h})
  add_library(${name}_skel INTERFACE)
  add_dependencies(${name}_skel ${name}_skel_gen)
  target_include_directories(${name}_skel INTERFACE ${outdir})
  target_link_libraries(${name}_skel INTERFACE PkgConfig::LIBBPF)
endfunction()
