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

/// mallopt(M_PERTURB, byte): glibc fills every block with ~byte when it hands it out and with byte
/// when it is freed (except blocks it keeps in its per-thread cache, tcache); 1 when glibc took it.
int cmalloc_perturb(int byte);

/// malloc_trim(0): returns the free pages of every arena to the system; 1 when memory was released.
int cmalloc_trim(void);

/// prctl(PR_SET_DUMPABLE, 0): no core dump of this process, and its /proc/PID files (mem, environ,
/// maps) owned by root, so neither a crash nor a ptrace-capable process of the same uid gets at the
/// secrets it holds. 0 on success, -1 with errno set.
int cprocess_set_undumpable(void);

/// prctl(PR_SET_NAME, name): names the calling thread (what pthread_setname_np does for the
/// calling thread; the kernel keeps 15 bytes). Unlike a write to /proc/thread-self/comm it works in
/// a process that is not dumpable, whose /proc files belong to root. 0 on success, -1 on error.
int cthread_set_name(const char *name);

#endif
