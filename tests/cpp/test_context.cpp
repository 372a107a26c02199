// tests/cpp/test_context.cpp: contexts on CUDA's stack, ownership and activation (needs a GPU).
#include "core/context.hpp"
#include "core/event.hpp"
#include "core/stream.hpp"
#include "gpu_skip.hpp"

#include <thread>

using pycuda::Context;

TEST(Context, CreatePushesAndPopRestores) {
    PYCUDA_REQUIRE_GPU();
    auto before = Context::current();
    auto ctx = Context::create(pycuda::Device::from_ordinal(0));
    EXPECT_TRUE(ctx->is_current());
    EXPECT_EQ(Context::current(), ctx); // the registry hands back the same owner
    EXPECT_EQ(Context::pop(), ctx);
    EXPECT_EQ(Context::current(), before);
}

TEST(Context, PrimaryIsSharedNotDuplicated) {
    PYCUDA_REQUIRE_GPU();
    auto dev = pycuda::Device::from_ordinal(0);
    auto a = Context::retain_primary(dev);
    auto b = Context::retain_primary(dev);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a->ownership(), Context::Ownership::Primary);
    EXPECT_FALSE(a->is_current());
}

TEST(Context, NoCurrentContextIsInvalidContext) {
    PYCUDA_REQUIRE_GPU();
    std::thread([] {
        EXPECT_EQ(Context::current(), nullptr);
        try {
            pycuda::Stream s;
            ADD_FAILURE() << "a stream was made without a context";
        } catch (const pycuda::CudaError& e) {
            EXPECT_EQ(e.code(), CUDA_ERROR_INVALID_CONTEXT);
        }
    }).join();
}

TEST(Context, ResourcesFreeInTheirContextFromAnotherThread) {
    PYCUDA_REQUIRE_GPU();
    auto ctx = Context::create(pycuda::Device::from_ordinal(0));
    auto stream = std::make_unique<pycuda::Stream>();
    auto event = std::make_unique<pycuda::Event>();
    event->record(stream->handle());
    stream->synchronize();
    EXPECT_TRUE(event->query());
    Context::pop();
    std::thread([&] {
        // No context is current here: the destructors must activate theirs.
        event.reset();
        stream.reset();
        EXPECT_EQ(Context::current(), nullptr);
    }).join();
}

TEST(Context, CurrentHandleIsNullWithoutAContext) {
    // No GPU needed: without a driver, before cuInit, or in a fresh thread there is none.
    std::thread([] { EXPECT_EQ(Context::current_handle(), nullptr); }).join();
}

TEST(Context, CurrentHandleIsTheCurrentContexts) {
    PYCUDA_REQUIRE_GPU();
    auto ctx = Context::create(pycuda::Device::from_ordinal(0));
    EXPECT_EQ(Context::current_handle(), ctx->handle());
    Context::pop();
    EXPECT_NE(Context::current_handle(), ctx->handle());
}
