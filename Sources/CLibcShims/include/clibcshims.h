#ifndef CLIBCSHIMS_H
#define CLIBCSHIMS_H
#include <spawn.h>
#include <malloc.h>

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34+), which Swift's Glibc module does not
/// export: the child closes every descriptor from `lowfd` up before exec.
int cspawn_addclosefrom(posix_spawn_file_actions_t *actions, int lowfd);

/// mallopt(M_ARENA_MAX, count): the most malloc arenas glibc may open.
int cmalloc_limit_arenas(int count);

/// mallopt(M_MMAP_THRESHOLD, mmap) and mallopt(M_TRIM_THRESHOLD, trim): fixed values, which also
/// turn off glibc's dynamic raising of both; 1 when glibc took both.
int cmalloc_fix_thresholds(int mmap, int trim);

/// malloc_trim(0): returns the free pages of every arena to the system; 1 when memory was released.
int cmalloc_trim(void);

#endif
