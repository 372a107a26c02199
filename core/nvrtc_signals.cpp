// core/nvrtc_signals.cpp: libnvrtc's calls to signal() go through a wrapper that keeps the
// program's handlers (issue 22: Ctrl-C in a large compile ended the process with status 4).
#include "core/nvrtc_signals.hpp"

#if defined(__linux__)
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <array>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstring>

namespace pycuda {

#if defined(__linux__)
namespace {

using Handler = void (*)(int);

/// Per signal, the disposition NVRTC last set through the wrapper: NVRTC may change its own
/// handler back (it restores what signal() returned at the end of its front end), never the
/// program's.
std::array<std::atomic<Handler>, NSIG> nvrtc_set{};

/// What libnvrtc calls instead of signal(). NVRTC asks `signal(SIGINT, SIG_IGN)` first and puts
/// its handler in only when the answer is not SIG_IGN; answering with the program's handler,
/// unchanged, makes it "restore" that same handler at the end, so nothing changes at all.
Handler guarded_signal(int sig, Handler handler) {
    struct sigaction current{};
    if (sig <= 0 || sig >= NSIG || sigaction(sig, nullptr, &current) != 0)
        return std::signal(sig, handler);
    // sa_handler and sa_sigaction share storage: either way this is the installed function.
    Handler installed = current.sa_handler;
    if (installed != SIG_DFL && installed != nvrtc_set[sig].load())
        return installed; // the program's handler, or its SIG_IGN, stays
    Handler previous = std::signal(sig, handler);
    nvrtc_set[sig].store(handler);
    return previous;
}

/// An address in the object's dynamic section: glibc relocates these in place on x86_64 and
/// aarch64, other loaders leave them as offsets from the load address.
template <typename T>
T* dynamic_address(const dl_phdr_info* info, ElfW(Addr) value) {
    return reinterpret_cast<T*>(value < info->dlpi_addr ? value + info->dlpi_addr : value);
}

bool contains(const dl_phdr_info* info, const void* address) {
    auto a = reinterpret_cast<ElfW(Addr)>(address);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) & ph = info->dlpi_phdr[i];
        ElfW(Addr) start = info->dlpi_addr + ph.p_vaddr;
        if (ph.p_type == PT_LOAD && a >= start && a < start + ph.p_memsz)
            return true;
    }
    return false;
}

/// Writes `value` into a GOT slot. Full RELRO made the slot read-only after loading: it is made
/// writable for the store and read-only again after it.
bool write_slot(const dl_phdr_info* info, void** slot, void* value) {
    const auto page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const auto address = reinterpret_cast<std::uintptr_t>(slot);
    const auto start = address & ~(page - 1);
    bool relro = false;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) & ph = info->dlpi_phdr[i];
        // The loader protects whole pages only: the last partial page of the range stays writable.
        std::uintptr_t from = (info->dlpi_addr + ph.p_vaddr) & ~(page - 1);
        std::uintptr_t to = (info->dlpi_addr + ph.p_vaddr + ph.p_memsz) & ~(page - 1);
        relro = relro || (ph.p_type == PT_GNU_RELRO && start >= from && start < to);
    }
    if (mprotect(reinterpret_cast<void*>(start), page, PROT_READ | PROT_WRITE) != 0)
        return false;
    __atomic_store_n(slot, value, __ATOMIC_SEQ_CST);
    if (relro)
        mprotect(reinterpret_cast<void*>(start), page, PROT_READ);
    return true;
}

std::size_t symbol_index(ElfW(Xword) info) {
#if defined(__LP64__)
    return ELF64_R_SYM(info);
#else
    return ELF32_R_SYM(info);
#endif
}

/// Points every relocation of `symbol` in one table (PLT or GLOB_DAT) at `replacement`.
int redirect(const dl_phdr_info* info, const ElfW(Rela) * relocations, std::size_t bytes,
             const ElfW(Sym) * symbols, const char* strings, const char* symbol,
             void* replacement) {
    int patched = 0;
    for (std::size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
        const ElfW(Sym) & s = symbols[symbol_index(relocations[i].r_info)];
        if (std::strcmp(strings + s.st_name, symbol) != 0)
            continue;
        auto** slot = reinterpret_cast<void**>(info->dlpi_addr + relocations[i].r_offset);
        patched += write_slot(info, slot, replacement) ? 1 : 0;
    }
    return patched;
}

struct Search {
    const void* function;
    int patched = 0;
};

int patch_library(dl_phdr_info* info, std::size_t, void* data) {
    auto* search = static_cast<Search*>(data);
    if (!contains(info, search->function))
        return 0;
    const ElfW(Dyn)* dynamic = nullptr;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dynamic =
                reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    }
    if (!dynamic)
        return 1;
    const ElfW(Sym)* symbols = nullptr;
    const char* strings = nullptr;
    const ElfW(Rela)* plt = nullptr, *rela = nullptr;
    std::size_t plt_bytes = 0, rela_bytes = 0;
    bool plt_is_rela = true;
    for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
        switch (d->d_tag) {
        case DT_SYMTAB:
            symbols = dynamic_address<const ElfW(Sym)>(info, d->d_un.d_ptr);
            break;
        case DT_STRTAB:
            strings = dynamic_address<const char>(info, d->d_un.d_ptr);
            break;
        case DT_JMPREL:
            plt = dynamic_address<const ElfW(Rela)>(info, d->d_un.d_ptr);
            break;
        case DT_PLTRELSZ:
            plt_bytes = d->d_un.d_val;
            break;
        case DT_PLTREL:
            plt_is_rela = d->d_un.d_val == DT_RELA;
            break;
        case DT_RELA:
            rela = dynamic_address<const ElfW(Rela)>(info, d->d_un.d_ptr);
            break;
        case DT_RELASZ:
            rela_bytes = d->d_un.d_val;
            break;
        default:
            break;
        }
    }
    if (!symbols || !strings || !plt_is_rela) // REL tables exist only on 32-bit targets
        return 1;
    auto* replacement = reinterpret_cast<void*>(&guarded_signal);
    if (plt)
        search->patched += redirect(info, plt, plt_bytes, symbols, strings, "signal", replacement);
    if (rela)
        search->patched +=
            redirect(info, rela, rela_bytes, symbols, strings, "signal", replacement);
    return 1;
}

} // namespace

bool keep_signal_handlers_from(const void* nvrtc_function) noexcept {
    if (!nvrtc_function)
        return false;
    Search search{nvrtc_function};
    dl_iterate_phdr(&patch_library, &search);
    return search.patched > 0;
}

#else

bool keep_signal_handlers_from(const void*) noexcept {
    return false;
}

#endif

} // namespace pycuda
