#define _GNU_SOURCE
#include "clibcshims.h"

int cspawn_addclosefrom(posix_spawn_file_actions_t *actions, int lowfd) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowfd);
}

int cmalloc_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

int cmalloc_trim(void) {
    return malloc_trim(0);
}
