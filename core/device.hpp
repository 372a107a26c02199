// core/device.hpp: CUDA devices, a value type over CUdevice.
#pragma once

#include "core/driver_api.hpp"

#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace pycuda {

/// Calls cuInit(flags) once per process; later calls with the same flags are free.
void init(unsigned flags = 0);
/// The driver's version as an int (13000 for CUDA 13.0).
int driver_version();

/// A device by ordinal. Cheap to copy; holds no driver resource.
class Device {
public:
    explicit Device(CUdevice handle) : handle_(handle) {}
    /// cuDeviceGet; throws CudaError(INVALID_DEVICE) for a bad ordinal.
    static Device from_ordinal(int ordinal);
    /// cuDeviceGetByPCIBusId ("0000:3b:00.0").
    static Device from_pci_bus_id(std::string_view bus_id);
    static int count();

    CUdevice handle() const noexcept { return handle_; }
    std::string name() const;
    std::string pci_bus_id() const;
    std::pair<int, int> compute_capability() const;
    size_t total_memory() const;
    int attribute(CUdevice_attribute attr) const;
    bool can_access_peer(const Device& other) const;
    /// The 16-byte UUID, when the driver provides cuDeviceGetUuid.
    std::array<unsigned char, 16> uuid() const;

    bool operator==(const Device& other) const noexcept { return handle_ == other.handle_; }

private:
    CUdevice handle_;
};

} // namespace pycuda
