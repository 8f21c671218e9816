/* ZLUDA-J host runtime: virtual memory management for the host backend (cuMemCreate, cuMemAddressReserve, cuMemMap,
 * cuMemSetAccess ...), with the kernel's own mechanisms: a reserved range is an inaccessible anonymous mapping, a
 * physical allocation is a memfd, mapping places the memfd's pages into the range (shared: one allocation may be
 * mapped at several addresses and all see the same bytes), access flags are page protections. Unmapping puts the
 * reservation back. Results: 0 or an errno value (negative for the functions that return a value). */
#define _GNU_SOURCE
#include <errno.h>
#include <jni.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define JN(name) Java_org_zludaj_nativ_HostRuntime_##name
#define PTR(x) ((void *)(uintptr_t)(x))

static void *reserve(void *at, size_t size, int fixed) {
    return mmap(at, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (fixed ? MAP_FIXED : 0), -1, 0);
}

/* A reserved range of size bytes aligned to alignment (a power of two), at hint when that address is free. */
JNIEXPORT jlong JNICALL JN(vaReserve)(JNIEnv *e, jclass c, jlong size, jlong alignment, jlong hint) {
    (void)e; (void)c;
    size_t n = (size_t)size, a = (size_t)alignment;
    if (hint) {
        void *p = mmap(PTR(hint), n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
        if (p != MAP_FAILED) return (jlong)(uintptr_t)p;
    }
    uint8_t *p = reserve(NULL, n + a, 0);  /* over-reserve, then trim both ends to the alignment */
    if (p == MAP_FAILED) return -errno;
    uintptr_t start = ((uintptr_t)p + a - 1) & ~(uintptr_t)(a - 1);
    if (start > (uintptr_t)p) munmap(p, start - (uintptr_t)p);
    uintptr_t end = start + n, mapped_end = (uintptr_t)p + n + a;
    if (mapped_end > end) munmap(PTR(end), mapped_end - end);
    return (jlong)start;
}

JNIEXPORT jint JNICALL JN(vaFree)(JNIEnv *e, jclass c, jlong address, jlong size) {
    (void)e; (void)c;
    return munmap(PTR(address), (size_t)size) ? errno : 0;
}

/* A physical allocation of size bytes: a file descriptor, or -errno. */
JNIEXPORT jint JNICALL JN(physicalCreate)(JNIEnv *e, jclass c, jlong size) {
    (void)e; (void)c;
    int fd = memfd_create("zluda-cuMemCreate", MFD_CLOEXEC);
    if (fd < 0) return -errno;
    if (ftruncate(fd, (off_t)size)) {
        int err = errno;
        close(fd);
        return -err;
    }
    return fd;
}

/* Pages stay alive while mapped: closing only drops the allocation's own reference, as cuMemRelease does. */
JNIEXPORT void JNICALL JN(physicalClose)(JNIEnv *e, jclass c, jint fd) {
    (void)e; (void)c;
    close(fd);
}

/* Maps [offset, offset + size) of a physical allocation at address, inaccessible until vaProtect. */
JNIEXPORT jint JNICALL JN(vaMap)(JNIEnv *e, jclass c, jlong address, jlong size, jint fd, jlong offset) {
    (void)e; (void)c;
    void *p = mmap(PTR(address), (size_t)size, PROT_NONE, MAP_SHARED | MAP_FIXED, fd, (off_t)offset);
    return p == MAP_FAILED ? errno : 0;
}

JNIEXPORT jint JNICALL JN(vaUnmap)(JNIEnv *e, jclass c, jlong address, jlong size) {
    (void)e; (void)c;
    return reserve(PTR(address), (size_t)size, 1) == MAP_FAILED ? errno : 0;
}

/* flags: CUmemAccess_flags (0 none, 1 read, 3 read and write). */
JNIEXPORT jint JNICALL JN(vaProtect)(JNIEnv *e, jclass c, jlong address, jlong size, jint flags) {
    (void)e; (void)c;
    int prot = flags == 3 ? PROT_READ | PROT_WRITE : flags == 1 ? PROT_READ : PROT_NONE;
    return mprotect(PTR(address), (size_t)size, prot) ? errno : 0;
}
