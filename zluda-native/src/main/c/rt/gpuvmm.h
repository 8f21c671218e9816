/* Virtual memory management forwarded to a GPU runtime: NVIDIA's driver (cuda backend) or HIP (hip backend).
 *
 * The two have the same eight functions with the same signatures and the same structures: CUmemAllocationProp and
 * hipMemAllocationProp are {type, requestedHandleTypes, location {type, id}, win32HandleMetaData, allocFlags} (32
 * bytes), CUmemAccessDesc and hipMemAccessDesc are {location {type, id}, flags} (12 bytes), with the same values
 * (PINNED = 1, DEVICE = 1, READWRITE = 3). Generic allocation handles and addresses cross as 64-bit integers (a
 * CUmemGenericAllocationHandle is one; hipMemGenericAllocationHandle_t and void * travel in the same registers).
 * So one helper serves both backends; each fills its table with what its library exports (NULL where missing). */
#ifndef ZLUDA_GPUVMM_H
#define ZLUDA_GPUVMM_H
#include <stdint.h>
#include <string.h>

struct gpu_vmm {
    int (*granularity)(size_t *, const void *prop, int option);
    int (*create)(uint64_t *handle, size_t size, const void *prop, unsigned long long flags);
    int (*release)(uint64_t handle);
    int (*reserve)(uint64_t *ptr, size_t size, size_t alignment, uint64_t addr, unsigned long long flags);
    int (*address_free)(uint64_t ptr, size_t size);
    int (*map)(uint64_t ptr, size_t size, size_t offset, uint64_t handle, unsigned long long flags);
    int (*unmap)(uint64_t ptr, size_t size);
    int (*set_access)(uint64_t ptr, size_t size, const void *desc, size_t count);
};

/* The operations, as org.zludaj.nativ's Java side numbers them. */
enum { VMM_GRANULARITY, VMM_CREATE, VMM_RELEASE, VMM_RESERVE, VMM_ADDRESS_FREE, VMM_MAP, VMM_UNMAP, VMM_SET_ACCESS };

/* Whether the runtime has all eight functions. */
static inline int gpu_vmm_complete(const struct gpu_vmm *f) {
    return f->granularity && f->create && f->release && f->reserve && f->address_free && f->map && f->unmap && f->set_access;
}

/* One operation on device `device`: GRANULARITY (a: option) -> out; CREATE (a: size) -> out; RELEASE (a: handle);
 * RESERVE (a: size, b: alignment, c: address hint) -> out; ADDRESS_FREE (a: address, b: size); MAP (a: address,
 * b: size, c: offset, d: handle); UNMAP (a: address, b: size); SET_ACCESS (a: address, b: size, c: flags).
 * Returns the runtime's error code, or `unsupported` where it lacks the function. */
static inline int gpu_vmm_call(const struct gpu_vmm *f, int unsupported, int op, int device, uint64_t a, uint64_t b,
                               uint64_t c, uint64_t d, uint64_t *out) {
    struct {
        int type, handle_types, location_type, location_id;
        void *win32;
        unsigned char compression, rdma;
        unsigned short usage;
        unsigned char reserved[4];
    } prop;
    memset(&prop, 0, sizeof prop);
    prop.type = 1;          /* PINNED */
    prop.location_type = 1; /* DEVICE */
    prop.location_id = device;
    if (!gpu_vmm_complete(f)) return unsupported;
    switch (op) {
        case VMM_GRANULARITY: {
            size_t g = 0;
            int r = f->granularity(&g, &prop, (int)a);
            *out = g;
            return r;
        }
        case VMM_CREATE: return f->create(out, (size_t)a, &prop, 0);
        case VMM_RELEASE: return f->release(a);
        case VMM_RESERVE: return f->reserve(out, (size_t)a, (size_t)b, c, 0);
        case VMM_ADDRESS_FREE: return f->address_free(a, (size_t)b);
        case VMM_MAP: return f->map(a, (size_t)b, (size_t)c, d, 0);
        case VMM_UNMAP: return f->unmap(a, (size_t)b);
        case VMM_SET_ACCESS: {
            int desc[3] = {1 /* DEVICE */, device, (int)c};
            return f->set_access(a, (size_t)b, desc, 1);
        }
        default: return unsupported;
    }
}
#endif
