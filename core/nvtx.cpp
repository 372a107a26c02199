// core/nvtx.cpp: NVTX ranges and marks; NVTX's implementation is compiled into this file.
#include "core/nvtx.hpp"

#ifdef PYCUDA_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace pycuda {

#ifdef PYCUDA_HAVE_NVTX

namespace {

nvtxEventAttributes_t attributes(const char* message, std::optional<std::uint32_t> argb) {
    nvtxEventAttributes_t attr{};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = message;
    if (argb) {
        attr.colorType = NVTX_COLOR_ARGB;
        attr.color = *argb;
    }
    return attr;
}

/// The "pycuda" domain, made on first use (thread-safe: a function-local static). Without a
/// tool it is null, which NVTX's domain calls accept.
nvtxDomainHandle_t pycuda_domain() noexcept {
    static const nvtxDomainHandle_t domain = nvtxDomainCreateA("pycuda");
    return domain;
}

} // namespace

bool nvtx_available() noexcept {
    return true;
}

int nvtx_push_range(const char* message, std::optional<std::uint32_t> argb) noexcept {
    nvtxEventAttributes_t attr = attributes(message, argb);
    return nvtxRangePushEx(&attr);
}

int nvtx_pop_range() noexcept {
    return nvtxRangePop();
}

void nvtx_mark(const char* message, std::optional<std::uint32_t> argb) noexcept {
    nvtxEventAttributes_t attr = attributes(message, argb);
    nvtxMarkEx(&attr);
}

void nvtx_push_auto_range(const char* message) noexcept {
    nvtxEventAttributes_t attr = attributes(message, {});
    nvtxDomainRangePushEx(pycuda_domain(), &attr);
}

void nvtx_pop_auto_range() noexcept {
    nvtxDomainRangePop(pycuda_domain());
}

#else // built without NVTX's headers: every call does nothing

bool nvtx_available() noexcept {
    return false;
}
int nvtx_push_range(const char*, std::optional<std::uint32_t>) noexcept {
    return -1;
}
int nvtx_pop_range() noexcept {
    return -1;
}
void nvtx_mark(const char*, std::optional<std::uint32_t>) noexcept {}
void nvtx_push_auto_range(const char*) noexcept {}
void nvtx_pop_auto_range() noexcept {}

#endif

} // namespace pycuda
