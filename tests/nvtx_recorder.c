/* tests/nvtx_recorder.c: a stand-in NVTX tool for CPU tests: what a profiler would be told.
 *
 * NVTX loads it from $NVTX_INJECTION64_PATH (as it loads nsys's library) and calls
 * InitializeInjectionNvtx2, which installs the callbacks below for the core calls (ranges,
 * marks) and the domain calls. Each event becomes a line of recorder_log():
 *   push MESSAGE [#AARRGGBB], pop, mark MESSAGE [#AARRGGBB]   (the default domain)
 *   push DOMAIN:MESSAGE, pop DOMAIN                            (a named domain)
 * Built by tests/nvtx_recorder.py. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char* log_text;
static size_t log_len, log_cap;
static __thread int depth;

static void add_line(const char* kind, const char* domain, const nvtxEventAttributes_t* a) {
    char line[512];
    size_t n = (size_t)snprintf(line, sizeof line, "%s", kind);
    if (domain && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, " %s%s", domain, a ? ":" : "");
    else if (a && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, " ");
    if (a && a->messageType == NVTX_MESSAGE_TYPE_ASCII && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s", a->message.ascii);
    if (a && a->colorType == NVTX_COLOR_ARGB && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, " #%08X", a->color);
    if (n >= sizeof line)
        n = sizeof line - 1;
    pthread_mutex_lock(&lock);
    if (log_len + n + 2 > log_cap) {
        log_cap = 2 * (log_len + n + 2);
        log_text = realloc(log_text, log_cap);
    }
    memcpy(log_text + log_len, line, n);
    log_len += n;
    log_text[log_len++] = '\n';
    log_text[log_len] = '\0';
    pthread_mutex_unlock(&lock);
}

/* The log so far, then cleared. */
const char* recorder_log(void) {
    static char* taken;
    pthread_mutex_lock(&lock);
    free(taken);
    taken = log_text ? log_text : strdup("");
    log_text = NULL;
    log_len = log_cap = 0;
    pthread_mutex_unlock(&lock);
    return taken;
}

static void mark_ex(const nvtxEventAttributes_t* a) {
    add_line("mark", NULL, a);
}
static int push_ex(const nvtxEventAttributes_t* a) {
    add_line("push", NULL, a);
    return depth++;
}
static int pop(void) {
    add_line("pop", NULL, NULL);
    return --depth;
}
static nvtxDomainHandle_t domain_create(const char* name) {
    return (nvtxDomainHandle_t)strdup(name);
}
static int domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    add_line("push", (const char*)d, a);
    return 0;
}
static int domain_pop(nvtxDomainHandle_t d) {
    add_line("pop", (const char*)d, NULL);
    return 0;
}

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
    const NvtxExportTableCallbacks* callbacks = get_export_table(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable core = NULL, core2 = NULL;
    unsigned core_size = 0, core2_size = 0;
    if (!callbacks || !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size) ||
        !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size))
        return 0;
    *core[NVTX_CBID_CORE_MarkEx] = (NvtxFunctionPointer)mark_ex;
    *core[NVTX_CBID_CORE_RangePushEx] = (NvtxFunctionPointer)push_ex;
    *core[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)pop;
    *core2[NVTX_CBID_CORE2_DomainCreateA] = (NvtxFunctionPointer)domain_create;
    *core2[NVTX_CBID_CORE2_DomainRangePushEx] = (NvtxFunctionPointer)domain_push_ex;
    *core2[NVTX_CBID_CORE2_DomainRangePop] = (NvtxFunctionPointer)domain_pop;
    return 1;
}
