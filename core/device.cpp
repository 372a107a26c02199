// core/device.cpp: device queries through the driver table.
#include "core/device.hpp"

#include "core/error.hpp"

#include <mutex>
#include <string>

namespace pycuda {

void init(unsigned flags) {
    // cuInit is cheap after the first success, but the lock keeps the first one from racing.
    static std::mutex mutex;
    static bool done = false;
    std::lock_guard lock(mutex);
    // A forked child inherits `done`: it must reach the driver door, which refuses it.
    if (done && flags == 0 && !in_forked_child())
        return;
    PYCUDA_CALL(cuInit, flags);
    done = true;
    note_cuda_initialized();
}

int driver_version() {
    int version = 0;
    PYCUDA_CALL(cuDriverGetVersion, &version);
    return version;
}

Device Device::from_ordinal(int ordinal) {
    CUdevice dev = 0;
    PYCUDA_CALL(cuDeviceGet, &dev, ordinal);
    return Device(dev);
}

Device Device::from_pci_bus_id(std::string_view bus_id) {
    CUdevice dev = 0;
    std::string id(bus_id);
    PYCUDA_CALL(cuDeviceGetByPCIBusId, &dev, id.c_str());
    return Device(dev);
}

int Device::count() {
    int n = 0;
    PYCUDA_CALL(cuDeviceGetCount, &n);
    return n;
}

std::string Device::name() const {
    char buffer[256] = {};
    PYCUDA_CALL(cuDeviceGetName, buffer, static_cast<int>(sizeof(buffer)), handle_);
    return buffer;
}

std::string Device::pci_bus_id() const {
    char buffer[64] = {};
    PYCUDA_CALL(cuDeviceGetPCIBusId, buffer, static_cast<int>(sizeof(buffer)), handle_);
    return buffer;
}

std::pair<int, int> Device::compute_capability() const {
    return {attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
            attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)};
}

size_t Device::total_memory() const {
    size_t bytes = 0;
    PYCUDA_CALL(cuDeviceTotalMem, &bytes, handle_);
    return bytes;
}

int Device::attribute(CUdevice_attribute attr) const {
    int value = 0;
    PYCUDA_CALL(cuDeviceGetAttribute, &value, attr, handle_);
    return value;
}

bool Device::can_access_peer(const Device& other) const {
    int can = 0;
    PYCUDA_CALL(cuDeviceCanAccessPeer, &can, handle_, other.handle_);
    return can != 0;
}

std::array<unsigned char, 16> Device::uuid() const {
    CUuuid id{};
    PYCUDA_CALL(cuDeviceGetUuid, &id, handle_);
    std::array<unsigned char, 16> out{};
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<unsigned char>(id.bytes[i]);
    return out;
}

} // namespace pycuda
