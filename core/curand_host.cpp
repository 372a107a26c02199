// core/curand_host.cpp: cuRAND's host calls through the entry points driver_api loads.
#include "core/curand_host.hpp"

#include "core/driver_api.hpp"

#include <string>

namespace pycuda {

namespace {

// curandStatus_t's names (curand.h); the host calls used here fail only with the first few.
const char* status_name(int status) {
    switch (status) {
    case 100:
        return "CURAND_STATUS_VERSION_MISMATCH";
    case 101:
        return "CURAND_STATUS_NOT_INITIALIZED";
    case 102:
        return "CURAND_STATUS_ALLOCATION_FAILED";
    case 103:
        return "CURAND_STATUS_TYPE_ERROR";
    case 104:
        return "CURAND_STATUS_OUT_OF_RANGE";
    case 105:
        return "CURAND_STATUS_LENGTH_NOT_MULTIPLE";
    case 106:
        return "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED";
    case 201:
        return "CURAND_STATUS_LAUNCH_FAILURE";
    case 202:
        return "CURAND_STATUS_PREEXISTING_FAILURE";
    case 203:
        return "CURAND_STATUS_INITIALIZATION_FAILED";
    case 204:
        return "CURAND_STATUS_ARCH_MISMATCH";
    case 999:
        return "CURAND_STATUS_INTERNAL_ERROR";
    default:
        return "curandStatus_t";
    }
}

std::string describe(int status, const char* routine) {
    if (status == 0)
        return std::string(routine) + " is missing from the libcurand at " + curand().library_path;
    return std::string(routine) + " failed: " + status_name(status) + " (" +
           std::to_string(status) + ")";
}

/// Calls a cuRAND entry point that may be missing (null) and checks its status.
template <typename Fn, typename... Args>
void checked_curand(Fn fn, const char* routine, Args... args) {
    if (fn == nullptr) [[unlikely]]
        throw CurandError(0, routine);
    if (int status = fn(args...); status != 0) [[unlikely]]
        throw CurandError(status, routine);
}

void require_set(int set, int first, int last, const char* routine) {
    if (set < first || set > last)
        throw std::invalid_argument(std::string(routine) + ": direction-vector set " +
                                    std::to_string(set) + " is not one of " +
                                    std::to_string(first) + ", " + std::to_string(last));
}

} // namespace

CurandError::CurandError(int status, const char* routine)
    : std::runtime_error(describe(status, routine)), status_(status) {}

int curand_version() {
    int version = 0;
    checked_curand(curand().curandGetVersion, "curandGetVersion", &version);
    return version;
}

std::span<const std::uint32_t> curand_direction_vectors32(int set) {
    require_set(set, 101, 102, "curandGetDirectionVectors32");
    unsigned int(*rows)[32] = nullptr;
    checked_curand(curand().curandGetDirectionVectors32, "curandGetDirectionVectors32", &rows, set);
    return {reinterpret_cast<const std::uint32_t*>(rows), k_curand_dimensions * 32};
}

std::span<const std::uint64_t> curand_direction_vectors64(int set) {
    require_set(set, 103, 104, "curandGetDirectionVectors64");
    unsigned long long(*rows)[64] = nullptr;
    checked_curand(curand().curandGetDirectionVectors64, "curandGetDirectionVectors64", &rows, set);
    return {reinterpret_cast<const std::uint64_t*>(rows), k_curand_dimensions * 64};
}

std::span<const std::uint32_t> curand_scramble_constants32() {
    unsigned int* constants = nullptr;
    checked_curand(curand().curandGetScrambleConstants32, "curandGetScrambleConstants32",
                   &constants);
    return {reinterpret_cast<const std::uint32_t*>(constants), k_curand_dimensions};
}

std::span<const std::uint64_t> curand_scramble_constants64() {
    unsigned long long* constants = nullptr;
    checked_curand(curand().curandGetScrambleConstants64, "curandGetScrambleConstants64",
                   &constants);
    return {reinterpret_cast<const std::uint64_t*>(constants), k_curand_dimensions};
}

} // namespace pycuda
