// Counts heap allocations for scripts/bench (docs/performance.md, "Allocations per read"): loaded
// with LD_PRELOAD into the process measured, it wraps glibc's allocator and adds one to a counter
// for each allocation (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc,
// pvalloc) and for each free of a non-null pointer. The counters live in the file named by
// MRTD_ALLOC_COUNTER (two little-endian uint64: allocations, frees), mapped shared, so that the
// bench reads them from outside while the process runs. Without the variable the shim counts into
// memory nobody reads. Build: cc -O2 -shared -fPIC -o libmrtd-alloc-count.so alloc-count.c
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);
extern void __libc_free(void *);

static uint64_t unmapped[2];
static uint64_t *counters = unmapped;

__attribute__((constructor)) static void map_counters(void) {
    const char *path = getenv("MRTD_ALLOC_COUNTER");
    if (!path || !*path) return;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (ftruncate(fd, 4096) == 0) {
        void *mapped = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (mapped != MAP_FAILED) counters = mapped;
    }
    close(fd);
}

static inline void allocated(void) { __atomic_fetch_add(&counters[0], 1, __ATOMIC_RELAXED); }
static inline void freed(void *pointer) {
    if (pointer) __atomic_fetch_add(&counters[1], 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size) {
    allocated();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocated();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    // A realloc is an allocation (it may move the block); realloc(p, 0) is a free.
    if (pointer && size == 0) {
        freed(pointer);
    } else {
        allocated();
    }
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    freed(pointer);
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    allocated();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocated();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    allocated();
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    allocated();
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    allocated();
    return __libc_pvalloc(size);
}
