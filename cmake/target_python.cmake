# cmake/target_python.cmake: the Python that the extension is built for, when it is not the Python
# that runs the build (scripts/build_wheels.sh builds every wheel this way: another version, or
# another processor, from that version's headers alone).
#
# nanobind asks for the targets and variables that find_package(Python) defines; FindPython
# needs an interpreter of the target version to define them, which a cross build does not have.
# So they are defined here from what the caller states:
#   PYCUDA_TARGET_PYTHON_INCLUDE_DIRS  the headers of the target Python (Python.h, pyconfig.h)
#   PYCUDA_TARGET_PYTHON_VERSION       its version, MAJOR.MINOR
#   PYCUDA_TARGET_PYTHON_SOABI         its SOABI (cpython-313-aarch64-linux-gnu), which names the
#                                      extension's file
# The build's own interpreter (Python_EXECUTABLE) only runs nanobind's tools.
if(NOT PYCUDA_TARGET_PYTHON_VERSION MATCHES "^([0-9]+)\\.([0-9]+)$")
    message(FATAL_ERROR "PYCUDA_TARGET_PYTHON_VERSION must be MAJOR.MINOR, got "
                        "'${PYCUDA_TARGET_PYTHON_VERSION}'")
endif()
set(Python_VERSION_MAJOR ${CMAKE_MATCH_1})
set(Python_VERSION_MINOR ${CMAKE_MATCH_2})
set(Python_VERSION ${PYCUDA_TARGET_PYTHON_VERSION})
set(Python_INTERPRETER_ID Python)
set(Python_SOABI ${PYCUDA_TARGET_PYTHON_SOABI})
set(Python_SOSABI abi3)
set(Python_INCLUDE_DIRS ${PYCUDA_TARGET_PYTHON_INCLUDE_DIRS})
if(NOT EXISTS "${PYCUDA_TARGET_PYTHON_INCLUDE_DIRS}/Python.h")
    list(GET PYCUDA_TARGET_PYTHON_INCLUDE_DIRS 0 first_dir)
    if(NOT EXISTS "${first_dir}/Python.h")
        message(FATAL_ERROR "No Python.h in ${first_dir} (PYCUDA_TARGET_PYTHON_INCLUDE_DIRS)")
    endif()
endif()
if(NOT Python_EXECUTABLE)
    find_program(Python_EXECUTABLE NAMES python3 python REQUIRED)
endif()

add_executable(Python::Interpreter IMPORTED)
set_target_properties(Python::Interpreter PROPERTIES IMPORTED_LOCATION "${Python_EXECUTABLE}")
# An extension module links no libpython on Linux: the interpreter provides the symbols.
foreach(component Module SABIModule)
    add_library(Python::${component} INTERFACE IMPORTED)
    set_target_properties(Python::${component} PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${PYCUDA_TARGET_PYTHON_INCLUDE_DIRS}")
endforeach()
message(STATUS "Target Python: ${Python_VERSION} (${Python_SOABI}), headers "
               "${PYCUDA_TARGET_PYTHON_INCLUDE_DIRS}")
