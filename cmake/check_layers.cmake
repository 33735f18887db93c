# check_layers.cmake - the layering of docs/architecture.md, enforced: every
# `#include "FOLDER/..."` in a library folder must name that folder or one
# it may use. Run by the build (cmake -P, target tirx_layers, which the
# library depends on), so a wrong include fails the build with file:line.
#
#   cmake -DSRC=<source root> -DSTAMP=<file written on success> -P check_layers.cmake
#
# The arrows. One line a folder: the folders its files may include.
# `tirx` is the public API (include/tirx/). runtime/ is libtirx_rt: it may
# use only abi/ and support/ (the link of libtirx_rt checks the same).
set(ALLOWED_abi "abi;support;tirx")
set(ALLOWED_support "support;tirx")
set(ALLOWED_ir "ir;support;abi;tirx")
set(ALLOWED_frontend "frontend;ir;support;abi;tirx")
set(ALLOWED_target "target;ir;support;abi;tirx")
set(ALLOWED_passes "passes;target;ir;support;abi;tirx")
set(ALLOWED_driver "driver;frontend;passes;target;ir;support;abi;tirx")
set(ALLOWED_runtime "runtime;support;abi;tirx")
set(FOLDERS abi support ir frontend target passes driver runtime)

if(NOT SRC)
  message(FATAL_ERROR "check_layers.cmake: pass -DSRC=<source root>")
endif()
set(bad "")
foreach(folder ${FOLDERS})
  file(GLOB_RECURSE files "${SRC}/${folder}/*.c" "${SRC}/${folder}/*.h" "${SRC}/${folder}/*.def"
       "${SRC}/${folder}/*.y" "${SRC}/${folder}/*.l")
  foreach(f ${files})
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]+\"[A-Za-z0-9_]+/")
    foreach(line ${lines})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([A-Za-z0-9_]+)/.*" "\\1" used "${line}")
      list(FIND ALLOWED_${folder} "${used}" at)
      if(at EQUAL -1)
        file(RELATIVE_PATH rel "${SRC}" "${f}")
        string(STRIP "${line}" text)
        string(APPEND bad "  ${rel}: ${text} (${folder}/ may use: ${ALLOWED_${folder}})\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "layering (docs/architecture.md): includes across the allowed arrows:\n${bad}")
endif()
if(STAMP)
  file(WRITE "${STAMP}" "ok\n")
endif()
