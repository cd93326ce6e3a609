#define _GNU_SOURCE
#include "clibcshims.h"
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

int cspawn_addclosefrom(posix_spawn_file_actions_t *actions, int lowfd) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowfd);
}

int cmalloc_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

int cmalloc_fix_thresholds(int mmap, int trim) {
    return mallopt(M_MMAP_THRESHOLD, mmap) == 1 && mallopt(M_TRIM_THRESHOLD, trim) == 1;
}

int cprocess_set_undumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int cthread_set_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

int cmalloc_perturb(int byte) {
    return mallopt(M_PERTURB, byte);
}

int cmalloc_trim(void) {
    return malloc_trim(0);
}

struct release_state {
    uintptr_t page;
    long bytes;
    int failed;
};

/// True when the object's dynamic section asks for text relocations.
static int has_text_relocations(const struct dl_phdr_info *info) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_DYNAMIC) continue;
        const ElfW(Dyn) *dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        for (; dyn->d_tag != DT_NULL; dyn++) {
            if (dyn->d_tag == DT_TEXTREL) return 1;
            if (dyn->d_tag == DT_FLAGS && (dyn->d_un.d_val & DF_TEXTREL)) return 1;
        }
    }
    return 0;
}

static int release_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct release_state *state = data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (strncmp(name, "linux-vdso", 10) == 0 || strncmp(name, "linux-gate", 10) == 0) return 0;
    if (has_text_relocations(info)) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) || ph->p_memsz == 0) continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        uintptr_t end = start + ph->p_memsz;
        // Whole pages only: a page shared with a neighbouring segment is left alone.
        start = (start + state->page - 1) & ~(state->page - 1);
        end &= ~(state->page - 1);
        if (end <= start) continue;
        if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) {
            state->bytes += (long)(end - start);
        } else {
            state->failed = errno;
        }
    }
    return 0;
}

long crelease_readonly_mappings(void) {
    long page = sysconf(_SC_PAGESIZE);
    struct release_state state = { .page = (uintptr_t)(page > 0 ? page : 4096), .bytes = 0, .failed = 0 };
    dl_iterate_phdr(release_object, &state);
    if (state.failed) {
        errno = state.failed;
        return -1;
    }
    return state.bytes;
}
