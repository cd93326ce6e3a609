#define _GNU_SOURCE
#include "clibcshims.h"
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
