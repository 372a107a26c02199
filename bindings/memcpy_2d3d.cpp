// bindings/memcpy_2d3d.cpp: Memcpy2D, Memcpy3D and Memcpy3DPeer of pycuda._driver. The Python
// object holds the host buffers (and the size of device memory, where known) given to it, so a
// copy never reads or writes past them and the buffers live as long as the descriptor does.
#include "bindings/context.hpp"
#include "bindings/memory.hpp"
#include "bindings/stream.hpp"

#include "core/memcpy_2d3d.hpp"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace pycuda::bindings {

namespace {

/// What the binding keeps for one side: the host buffer, or the known size of device memory.
struct SideKeep {
    std::unique_ptr<HostBuffer> buffer;
    size_t size = SIZE_MAX; // bytes reachable from the pointer (SIZE_MAX: unknown, arrays)
};

/// A core copier plus the Python-side state of its two sides.
template <typename Core>
struct PyCopy : Core {
    SideKeep src, dst;
};

/// Bytes a side spans: rows `row_pitch` apart, `rows_per_slice` rows per slice.
size_t extent(size_t x, size_t y, size_t z, size_t pitch, size_t rows_per_slice, size_t width,
              size_t height, size_t depth) {
    if (width == 0 || height == 0 || depth == 0)
        return 0;
    size_t row_pitch = pitch ? pitch : width;
    size_t last_row = (z + depth - 1) * rows_per_slice + y + height - 1;
    return last_row * row_pitch + x + width;
}

void check_extent(const SideKeep& side, size_t needed, const char* what, const char* which) {
    if (needed > side.size)
        throw nb::value_error((std::string(what) + ": the copy reaches " + std::to_string(needed) +
                               " bytes into the " + which + ", which has only " +
                               std::to_string(side.size) + " (check pitch, offsets and sizes)")
                                  .c_str());
}

/// The setters shared by all three copiers; `Src` picks the side.
template <typename T, bool Src>
void def_side(nb::class_<T>& cls, const char* prefix) {
    std::string p = prefix;
    cls.def((p + "host").c_str(),
            [](T& self, nb::handle buf) {
                auto keep =
                    std::make_unique<HostBuffer>(buf, !Src, Src ? "set_src_host" : "set_dst_host");
                SideKeep& side = Src ? self.src : self.dst;
                if constexpr (Src)
                    self.set_src_host(keep->data());
                else
                    self.set_dst_host(keep->data());
                side.size = keep->size();
                side.buffer = std::move(keep);
            },
            nb::arg("buffer"), "Host memory (a buffer, held by this object).");
    cls.def((p + "device").c_str(),
            [](T& self, nb::handle ptr) {
                DeviceSpan s = device_span(ptr, Src ? "set_src_device" : "set_dst_device");
                SideKeep& side = Src ? self.src : self.dst;
                if constexpr (Src)
                    self.set_src_device(s.ptr);
                else
                    self.set_dst_device(s.ptr);
                side = SideKeep{nullptr, s.size};
            },
            nb::arg("ptr"),
            "Device memory: a DeviceAllocation, a GPUArray's gpudata or an address.");
    cls.def((p + "unified").c_str(),
            [](T& self, nb::handle ptr) {
                DeviceSpan s = device_span(ptr, Src ? "set_src_unified" : "set_dst_unified");
                SideKeep& side = Src ? self.src : self.dst;
                if constexpr (Src)
                    self.set_src_unified(s.ptr);
                else
                    self.set_dst_unified(s.ptr);
                side = SideKeep{nullptr, s.size};
            },
            nb::arg("ptr"), "Managed (unified) memory, by its address.");
    cls.def((p + "array").c_str(),
            [](T& self, ArrayPtr ary) {
                SideKeep& side = Src ? self.src : self.dst;
                if constexpr (Src)
                    self.set_src_array(std::move(ary));
                else
                    self.set_dst_array(std::move(ary));
                side = SideKeep{};
            },
            nb::arg("ary"), "A CUDA Array (pycuda.driver.Array).");
}

/// src_device / dst_device, read-write as in the original (whose copies exposed the descriptor's
/// srcDevice/dstDevice): assigning an address makes that side device memory there, as
/// set_*_device does, keeping a side set as unified memory unified.
template <typename T, bool Src>
void def_device_field(nb::class_<T>& cls) {
    cls.def_prop_rw(
        Src ? "src_device" : "dst_device",
        [](const T& t) { return Src ? t.src_device() : t.dst_device(); },
        [](T& t, nb::handle ptr) {
            const char* what = Src ? "src_device" : "dst_device";
            DeviceSpan s = device_span(ptr, what);
            bool unified =
                (Src ? t.src_memory_type() : t.dst_memory_type()) == CU_MEMORYTYPE_UNIFIED;
            if constexpr (Src) {
                if (unified)
                    t.set_src_unified(s.ptr);
                else
                    t.set_src_device(s.ptr);
            } else {
                if (unified)
                    t.set_dst_unified(s.ptr);
                else
                    t.set_dst_device(s.ptr);
            }
            (Src ? t.src : t.dst) = SideKeep{nullptr, s.size};
        },
        "The device address of this side; assigning one copies from (to) device memory there.");
}

/// A read-write property over one size_t field of the copy's CUDA descriptor.
template <typename T, typename Desc>
void def_size_field(nb::class_<T>& cls, const char* name, size_t Desc::*member, const char* doc) {
    cls.def_prop_rw(
        name, [member](const T& t) { return t.desc.*member; },
        [member](T& t, size_t v) { t.desc.*member = v; }, doc);
}

/// The descriptor fields' docstrings, by field name (the same in 2D and 3D copies).
const char* field_doc(std::string_view name) {
    static const std::pair<std::string_view, const char*> docs[] = {
        {"src_x_in_bytes", "Where the copy starts in a source row, in bytes."},
        {"src_y", "The first source row copied."},
        {"src_z", "The first source slice copied."},
        {"src_lod", "The source array's level of detail (mipmap level); 0."},
        {"src_pitch", "Bytes from one source row to the next."},
        {"src_height", "Rows from one source slice to the next."},
        {"dst_x_in_bytes", "Where the copy starts in a destination row, in bytes."},
        {"dst_y", "The first destination row written."},
        {"dst_z", "The first destination slice written."},
        {"dst_lod", "The destination array's level of detail (mipmap level); 0."},
        {"dst_pitch", "Bytes from one destination row to the next."},
        {"dst_height", "Rows from one destination slice to the next."},
        {"width_in_bytes", "Bytes copied from each row."},
        {"height", "Rows copied (per slice)."},
        {"depth", "Slices copied."},
    };
    for (const auto& [field, doc] : docs)
        if (field == name)
            return doc;
    return nullptr;
}

void bind_memcpy2d(nb::module_& m) {
    using T = PyCopy<Memcpy2D>;
    nb::class_<T> cls(m, "Memcpy2D",
                      "A 2D copy between host memory, device memory and arrays.\n\n"
                      "    copy = pycuda.driver.Memcpy2D()\n"
                      "    copy.set_src_host(a)  # a C-contiguous (rows, cols) numpy array\n"
                      "    copy.set_dst_device(dev); copy.dst_pitch = pitch\n"
                      "    copy.src_pitch = copy.width_in_bytes = a.strides[0]\n"
                      "    copy.height = a.shape[0]\n"
                      "    copy(aligned=True)  # or copy(stream)");
    cls.def(nb::init<>());
    auto field = [&](const char* name, size_t CUDA_MEMCPY2D::*member) {
        def_size_field(cls, name, member, field_doc(name));
    };
    field("src_x_in_bytes", &CUDA_MEMCPY2D::srcXInBytes);
    field("src_y", &CUDA_MEMCPY2D::srcY);
    field("src_pitch", &CUDA_MEMCPY2D::srcPitch);
    field("dst_x_in_bytes", &CUDA_MEMCPY2D::dstXInBytes);
    field("dst_y", &CUDA_MEMCPY2D::dstY);
    field("dst_pitch", &CUDA_MEMCPY2D::dstPitch);
    field("width_in_bytes", &CUDA_MEMCPY2D::WidthInBytes);
    field("height", &CUDA_MEMCPY2D::Height);
    def_side<T, true>(cls, "set_src_");
    def_side<T, false>(cls, "set_dst_");
    def_device_field<T, true>(cls);
    def_device_field<T, false>(cls);
    cls.def_prop_ro(
        "src_memory_type", [](const T& t) { return static_cast<int>(t.src_memory_type()); },
        "The kind of memory the source is, a CUmemorytype value (1 host, 2 device, 3 array, 4 "
        "unified).");
    cls.def_prop_ro(
        "dst_memory_type", [](const T& t) { return static_cast<int>(t.dst_memory_type()); },
        "The kind of memory the destination is, a CUmemorytype value (1 host, 2 device, 3 array, 4 "
        "unified).");
    auto check = [](const T& t) {
        const CUDA_MEMCPY2D& d = t.desc;
        check_extent(t.src,
                     extent(d.srcXInBytes, d.srcY, 0, d.srcPitch, 0, d.WidthInBytes, d.Height, 1),
                     "Memcpy2D", "source");
        check_extent(t.dst,
                     extent(d.dstXInBytes, d.dstY, 0, d.dstPitch, 0, d.WidthInBytes, d.Height, 1),
                     "Memcpy2D", "destination");
    };
    cls.def(
        "__call__",
        [check](const T& t, bool aligned) {
            check(t);
            nb::gil_scoped_release release;
            t.copy(aligned);
        },
        nb::arg("aligned") = false, "Copy now: cuMemcpy2D when aligned, else cuMemcpy2DUnaligned.");
    cls.def(
        "__call__",
        [check](const T& t, nb::handle stream) {
            check(t);
            t.copy_async(stream_handle(stream));
        },
        nb::arg("stream"),
        "Copy on `stream`. From page-locked memory the copy runs later: this object holds "
        "the buffer, so keep it alive until the stream has reached the copy.");
}

template <bool Peer>
void bind_memcpy3d(nb::module_& m, const char* name) {
    using T = PyCopy<Memcpy3DBase<Peer>>;
    using D = typename Memcpy3DBase<Peer>::Desc;
    nb::class_<T> cls(m, name,
                      "A 3D copy between host memory, device memory and arrays: as Memcpy2D, "
                      "plus src_z, src_lod, src_height (rows per slice), the same for dst, and "
                      "depth.");
    cls.def(nb::init<>());
    auto field = [&](const char* field_name, size_t D::*member) {
        def_size_field(cls, field_name, member, field_doc(field_name));
    };
    field("src_x_in_bytes", &D::srcXInBytes);
    field("src_y", &D::srcY);
    field("src_z", &D::srcZ);
    field("src_lod", &D::srcLOD);
    field("src_pitch", &D::srcPitch);
    field("src_height", &D::srcHeight);
    field("dst_x_in_bytes", &D::dstXInBytes);
    field("dst_y", &D::dstY);
    field("dst_z", &D::dstZ);
    field("dst_lod", &D::dstLOD);
    field("dst_pitch", &D::dstPitch);
    field("dst_height", &D::dstHeight);
    field("width_in_bytes", &D::WidthInBytes);
    field("height", &D::Height);
    field("depth", &D::Depth);
    def_side<T, true>(cls, "set_src_");
    def_side<T, false>(cls, "set_dst_");
    def_device_field<T, true>(cls);
    def_device_field<T, false>(cls);
    cls.def_prop_ro(
        "src_memory_type", [](const T& t) { return static_cast<int>(t.src_memory_type()); },
        "The kind of memory the source is, a CUmemorytype value (1 host, 2 device, 3 array, 4 "
        "unified).");
    cls.def_prop_ro(
        "dst_memory_type", [](const T& t) { return static_cast<int>(t.dst_memory_type()); },
        "The kind of memory the destination is, a CUmemorytype value (1 host, 2 device, 3 array, 4 "
        "unified).");
    if constexpr (Peer) {
        cls.def(
            "set_src_context", [](T& t, const ContextRef& ctx) { t.set_src_context(ctx.get()); },
            nb::arg("ctx"), "The context the source memory belongs to.");
        cls.def(
            "set_dst_context", [](T& t, const ContextRef& ctx) { t.set_dst_context(ctx.get()); },
            nb::arg("ctx"), "The context the destination memory belongs to.");
    }
    cls.def(
        "__call__",
        [](const T& t, nb::handle stream) {
            const D& d = t.desc;
            size_t src_rows = d.srcHeight ? d.srcHeight : d.Height;
            size_t dst_rows = d.dstHeight ? d.dstHeight : d.Height;
            check_extent(t.src,
                         extent(d.srcXInBytes, d.srcY, d.srcZ, d.srcPitch, src_rows, d.WidthInBytes,
                                d.Height, d.Depth),
                         "Memcpy3D", "source");
            check_extent(t.dst,
                         extent(d.dstXInBytes, d.dstY, d.dstZ, d.dstPitch, dst_rows, d.WidthInBytes,
                                d.Height, d.Depth),
                         "Memcpy3D", "destination");
            if (stream.is_none()) {
                nb::gil_scoped_release release;
                t.copy();
            } else {
                t.copy_async(stream_handle(stream));
            }
        },
        nb::arg("stream").none() = nb::none(), "Copy now, or on `stream`.");
}

} // namespace

void bind_memcpy_2d3d(nb::module_& m) {
    bind_memcpy2d(m);
    bind_memcpy3d<false>(m, "Memcpy3D");
    bind_memcpy3d<true>(m, "Memcpy3DPeer");
}

} // namespace pycuda::bindings
