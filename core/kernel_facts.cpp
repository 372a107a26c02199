// core/kernel_facts.cpp: the driver queries behind KernelFacts.
#include "core/kernel_facts.hpp"

#include "core/error.hpp"

namespace pycuda {

KernelFacts query_kernel_facts(CUfunction handle) {
    KernelFacts facts;
    facts.handle = handle;
    int max_threads = 0;
    PYCUDA_CALL(cuFuncGetAttribute, &max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, handle);
    facts.max_threads_per_block = static_cast<unsigned>(max_threads);
    if (auto get = driver().cuFuncGetParamInfo; get != nullptr) {
        // The driver answers INVALID_VALUE one past the last parameter.
        for (std::size_t i = 0;; ++i) {
            std::size_t offset = 0, size = 0;
            CUresult rc = get(handle, i, &offset, &size);
            if (rc == CUDA_ERROR_INVALID_VALUE) {
                facts.params_known = true;
                break;
            }
            if (rc != CUDA_SUCCESS) // e.g. NOT_SUPPORTED for some images: no validation
                break;
            facts.params.push_back(ParamInfo{offset, size});
        }
    }
    if (!facts.params_known)
        facts.params.clear();
    return facts;
}

} // namespace pycuda
