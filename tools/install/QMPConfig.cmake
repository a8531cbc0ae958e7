# CMake package for meshmp's QMP: find_package(QMP) gives the target QMP::qmp.
get_filename_component(_qmp_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET QMP::qmp)
  add_library(QMP::qmp SHARED IMPORTED)
  set_target_properties(QMP::qmp PROPERTIES
    IMPORTED_LOCATION "${_qmp_prefix}/lib/libqmp.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_qmp_prefix}/include"
    INTERFACE_LINK_LIBRARIES "stdc++;m;rt;pthread")
endif()
set(QMP_FOUND TRUE)
set(QMP_VERSION 2.5.4)
set(QMP_INCLUDE_DIRS "${_qmp_prefix}/include")
set(QMP_LIBRARIES QMP::qmp)
unset(_qmp_prefix)
