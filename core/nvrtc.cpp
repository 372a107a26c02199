// core/nvrtc.cpp: NVRTC programs through the run-time loaded entry points of driver_api.
#include "core/nvrtc.hpp"

#include "core/nvrtc_signals.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace pycuda {
namespace {

/// NVRTC takes C strings: a NUL inside one would silently cut it short (an option "-DX=1\0-o/x"
/// would compile as "-DX=1"), so it is refused.
void refuse_nul(const std::string& text, const char* what) {
    if (text.find('\0') != std::string::npos)
        throw std::invalid_argument(std::string("NVRTC ") + what + " contains a NUL byte");
}

std::string describe(nvrtcResult code, const char* routine) {
    const char* text = nullptr;
    try {
        text = nvrtc().nvrtcGetErrorString(code);
    } catch (...) {
    }
    return std::string(routine) + " failed: " + (text ? text : "NVRTC error") + " (" +
           std::to_string(int(code)) + ")";
}

void check_nvrtc(nvrtcResult code, const char* routine) {
    if (code != NVRTC_SUCCESS) [[unlikely]]
        throw NvrtcError(code, routine);
}

/// Whether a ptxas option makes ptxas print a report (-v/--verbose, or a -warn-* flag).
bool ptxas_reports(std::string_view value) {
    return value == "-v" || value == "--verbose" || value.starts_with("-warn") ||
           value.starts_with("--warn");
}

/// Since 12.9 NVRTC keeps its own cache of compiled programs, and a program it finds there is
/// not run through ptxas again: the report that -v asked for is silently missing from the log
/// of every compile after the first. A user who asks for that report gets it every time.
bool wants_ptxas_report(const std::vector<std::string>& options) {
    for (std::size_t i = 0; i < options.size(); ++i) {
        std::string_view o = options[i];
        for (std::string_view prefix : {"--ptxas-options=", "-Xptxas="}) {
            if (o.starts_with(prefix) && ptxas_reports(o.substr(prefix.size())))
                return true;
        }
        if ((o == "--ptxas-options" || o == "-Xptxas") && i + 1 < options.size() &&
            ptxas_reports(options[i + 1]))
            return true;
    }
    return false;
}

bool nvrtc_has_own_cache() {
    int major = 0, minor = 0;
    if (nvrtc().nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return false;
    return major > 12 || (major == 12 && minor >= 9);
}

} // namespace

NvrtcError::NvrtcError(nvrtcResult code, const char* routine)
    : std::runtime_error(describe(code, routine)), code_(code) {}

NvrtcProgram::NvrtcProgram(const std::string& source, const std::string& name,
                           const std::vector<NvrtcHeader>& headers) {
    refuse_nul(source, "source");
    refuse_nul(name, "program name");
    std::vector<const char*> contents, names;
    for (const auto& h : headers) {
        refuse_nul(h.contents, "header");
        refuse_nul(h.name, "header name");
        contents.push_back(h.contents.c_str());
        names.push_back(h.name.c_str());
    }
    check_nvrtc(nvrtc().nvrtcCreateProgram(&program_, source.c_str(), name.c_str(),
                                           int(headers.size()), contents.data(), names.data()),
                "nvrtcCreateProgram");
}

NvrtcProgram::~NvrtcProgram() {
    if (program_)
        nvrtc().nvrtcDestroyProgram(&program_); // cannot fail for a valid program
}

bool NvrtcProgram::compile(const std::vector<std::string>& options) {
    std::vector<const char*> argv;
    for (const auto& o : options) {
        refuse_nul(o, "option");
        argv.push_back(o.c_str());
    }
    static const std::string no_cache = "--no-cache";
    if (wants_ptxas_report(options) && nvrtc_has_own_cache() &&
        std::find(options.begin(), options.end(), no_cache) == options.end())
        argv.push_back(no_cache.c_str());
    // Once per process, before NVRTC's first compile can put its own SIGINT handler in place.
    static const bool handlers_kept [[maybe_unused]] =
        keep_signal_handlers_from(reinterpret_cast<const void*>(nvrtc().nvrtcCompileProgram));
    nvrtcResult rc = nvrtc().nvrtcCompileProgram(program_, int(argv.size()), argv.data());
    // These two mean "the source or the options are wrong": the log says why.
    if (rc == NVRTC_ERROR_COMPILATION || rc == NVRTC_ERROR_INVALID_OPTION)
        return false;
    check_nvrtc(rc, "nvrtcCompileProgram");
    return true;
}

std::string NvrtcProgram::log() const {
    std::size_t size = 0;
    check_nvrtc(nvrtc().nvrtcGetProgramLogSize(program_, &size), "nvrtcGetProgramLogSize");
    std::string text(size, '\0');
    if (size > 0)
        check_nvrtc(nvrtc().nvrtcGetProgramLog(program_, text.data()), "nvrtcGetProgramLog");
    while (!text.empty() && text.back() == '\0') // the size counts the terminator
        text.pop_back();
    return text;
}

std::string NvrtcProgram::ptx() const {
    std::size_t size = 0;
    check_nvrtc(nvrtc().nvrtcGetPTXSize(program_, &size), "nvrtcGetPTXSize");
    std::string text(size, '\0');
    if (size > 0)
        check_nvrtc(nvrtc().nvrtcGetPTX(program_, text.data()), "nvrtcGetPTX");
    // PTX is text; the loader accepts it with or without the terminator, the cache wants it
    // without so that equal programs give equal bytes.
    while (!text.empty() && text.back() == '\0')
        text.pop_back();
    return text;
}

std::string NvrtcProgram::cubin() const {
    std::size_t size = 0;
    // For a virtual architecture NVRTC has no cubin and says so with an error code.
    if (nvrtc().nvrtcGetCUBINSize(program_, &size) != NVRTC_SUCCESS || size == 0)
        return {};
    std::string bytes(size, '\0');
    check_nvrtc(nvrtc().nvrtcGetCUBIN(program_, bytes.data()), "nvrtcGetCUBIN");
    return bytes;
}

NvrtcResult nvrtc_compile(const std::string& source, const std::string& name,
                          const std::vector<std::string>& options,
                          const std::vector<NvrtcHeader>& headers) {
    NvrtcProgram program(source, name, headers);
    NvrtcResult result;
    result.success = program.compile(options);
    result.log = program.log();
    if (result.success) {
        result.ptx = program.ptx();
        result.cubin = program.cubin();
    }
    return result;
}

std::pair<int, int> nvrtc_version() {
    int major = 0, minor = 0;
    check_nvrtc(nvrtc().nvrtcVersion(&major, &minor), "nvrtcVersion");
    return {major, minor};
}

std::vector<int> nvrtc_supported_archs() {
    const NvrtcApi& api = nvrtc();
    if (!api.nvrtcGetNumSupportedArchs || !api.nvrtcGetSupportedArchs)
        return {};
    int count = 0;
    check_nvrtc(api.nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
    std::vector<int> archs(std::size_t(count > 0 ? count : 0));
    if (count > 0)
        check_nvrtc(api.nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
    return archs;
}

} // namespace pycuda
