// bindings/device.cpp: pycuda._driver.Device, init and the version queries.
#include "bindings/checked_int.hpp"
#include "bindings/context.hpp"

#include "core/device.hpp"
#include "core/error.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <cstdint>

namespace pycuda::bindings {

namespace {

nb::object enums() {
    // The enums are plain Python IntEnums (pycuda/_enums.py, generated from cuda.h).
    // Leaked on purpose: a static nb::object would be released after the interpreter is gone.
    static nb::handle module = nb::module_::import_("pycuda._enums").release();
    return nb::borrow(module);
}

nb::object attribute_value(const Device& dev, int attr) {
    int value = dev.attribute(static_cast<CUdevice_attribute>(attr));
    if (attr == CU_DEVICE_ATTRIBUTE_COMPUTE_MODE)
        return enums().attr("compute_mode")(value);
    return nb::int_(value);
}

} // namespace

void bind_device(nb::module_& m) {
    m.def(
        "init",
        [](Int<unsigned, "init() flags"> flags) {
            nb::gil_scoped_release release;
            init(flags);
        },
        nb::arg("flags") = 0, "Initialize the CUDA driver (cuInit).");
    m.def("get_driver_version", &driver_version,
          "The driver's CUDA version as an int, e.g. 13000.");
    m.def(
        "get_version",
        []() {
            return nb::make_tuple(CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10,
                                  CUDA_VERSION % 10);
        },
        "The CUDA version of the headers this module was built with, (major, minor, patch).");
    m.def(
        "driver_library_path", []() { return driver().library_path; },
        "The libcuda that was opened (raises RuntimeError when none was found).");

    nb::class_<Device>(m, "Device", nb::dynamic_attr(),
                       "A CUDA device, by ordinal or PCI bus id.\n\n"
                       "    dev = pycuda.driver.Device(0)\n"
                       "    print(dev.name(), dev.compute_capability(), dev.multiprocessor_count)")
        // The bus id first: the ordinal's caster raises for anything that is not an int.
        .def("__init__",
             [](Device* self, const std::string& bus_id) {
                 new (self) Device(Device::from_pci_bus_id(bus_id));
             })
        .def("__init__",
             [](Device* self, Int<int, "a device ordinal (or PCI bus id string)"> ordinal) {
                 new (self) Device(Device::from_ordinal(ordinal));
             })
        .def_static("count", &Device::count, "The number of CUDA devices.")
        .def("name", &Device::name, "The device's name, such as 'NVIDIA H100 80GB HBM3'.")
        .def("pci_bus_id", &Device::pci_bus_id,
             "The device's PCI bus id, 'domain:bus:device.function' (accepted by Device()).")
        .def("compute_capability", &Device::compute_capability, "(major, minor)")
        .def("total_memory", &Device::total_memory, "Bytes of device memory.")
        .def("get_attribute", &attribute_value, nb::arg("attr"), "The value of a device_attribute.")
        .def(
            "get_attributes",
            [](const Device& dev) {
                nb::dict out;
                nb::object attrs = enums().attr("device_attribute");
                // Iterating an IntEnum skips aliases: one entry per distinct attribute.
                for (nb::handle member : attrs) {
                    try {
                        out[member] = attribute_value(dev, nb::cast<int>(member));
                    } catch (const CudaError&) {
                        // Attributes newer than the driver are left out (CUDA_ERROR_INVALID_VALUE).
                    }
                }
                return out;
            },
            "A dict of every device_attribute the driver knows, to its value.")
        .def(
            "__getattr__",
            [](const Device& dev, const std::string& name) {
                nb::object attrs = enums().attr("device_attribute");
                std::string upper;
                for (char c : name)
                    upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
                if (name.starts_with("__") || !nb::hasattr(attrs, upper.c_str()))
                    throw nb::attribute_error(("Device has no attribute '" + name + "'").c_str());
                return attribute_value(dev, nb::cast<int>(attrs.attr(upper.c_str())));
            },
            "dev.max_threads_per_block is "
            "dev.get_attribute(device_attribute.MAX_THREADS_PER_BLOCK)")
        .def(
            "make_context",
            [](const Device& dev, Int<unsigned, "make_context() flags"> flags) {
                nb::gil_scoped_release release;
                return ContextRef(Context::create(dev, flags));
            },
            nb::arg("flags") = 0, "Create a new context on this device and push it.")
        .def(
            "retain_primary_context",
            [](const Device& dev) {
                nb::gil_scoped_release release;
                return ContextRef(Context::retain_primary(dev));
            },
            "The device's primary context, shared with the runtime API (CuPy, PyTorch); not "
            "pushed: call .push().")
        .def("can_access_peer", &Device::can_access_peer,
             "Whether contexts on this device can access memory on the given device "
             "(Context.enable_peer_access).")
        .def(
            "uuid",
            [](const Device& dev) {
                auto id = dev.uuid();
                return nb::bytes(reinterpret_cast<const char*>(id.data()), id.size());
            },
            "The device's 16-byte UUID (as nvidia-smi -L shows it, in hex).")
        .def_prop_ro("handle", &Device::handle, "The CUdevice ordinal, as an int.")
        .def(
            "__eq__",
            [](const Device& a, nb::handle b) {
                return nb::isinstance<Device>(b) && a == nb::cast<const Device&>(b);
            },
            nb::arg("other").none())
        .def("__hash__", [](const Device& d) { return static_cast<Py_hash_t>(d.handle()); })
        .def("__repr__", [](const Device& d) {
            return "<pycuda.driver.Device " + std::to_string(d.handle()) + ">";
        });
}

} // namespace pycuda::bindings
