# SPDX-License-Identifier: GPL-2.0-or-later
# cmake -DSRC=<lnetcap.so> -DWSVER=4.0 -P install-user.cmake
# Copies the plugin into the personal plugin folder.  Run it as the user who
# runs Wireshark: Wireshark ignores personal plugins when started as root.
if(NOT DEFINED ENV{HOME})
  message(FATAL_ERROR "HOME is not set")
endif()
set(dest "$ENV{HOME}/.local/lib/wireshark/plugins/${WSVER}/epan")
file(MAKE_DIRECTORY "${dest}")
file(COPY "${SRC}" DESTINATION "${dest}")
message(STATUS "Installed ${dest}/lnetcap.so")
