// core/nvrtc_signals.hpp: keeps NVRTC from replacing the signal handlers the program installed.
#pragma once

namespace pycuda {

/// NVRTC's front end calls signal() to put its own SIGINT and SIGTERM handlers in place for the
/// length of that phase (seconds, for a large source). Its handler ends the process with status 4
/// from whichever thread the signal lands on (a crash when that is not the compiling thread), so a
/// Ctrl-C in a compile never becomes Python's KeyboardInterrupt. This redirects libnvrtc's own
/// import of signal() (its GOT entries) to a wrapper that leaves a handler the program installed
/// in place and passes every other call through. `nvrtc_function` is any function of the loaded
/// libnvrtc, which names the library. Returns whether the redirect is in place; false where
/// libnvrtc does not import signal() or the platform is not ELF (NVRTC then behaves as before).
bool keep_signal_handlers_from(const void* nvrtc_function) noexcept;

} // namespace pycuda
