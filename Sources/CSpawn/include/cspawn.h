#ifndef CSPAWN_H
#define CSPAWN_H
#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34+), which Swift's Glibc module does not
/// export: the child closes every descriptor from `lowfd` up before exec.
int cspawn_addclosefrom(posix_spawn_file_actions_t *actions, int lowfd);

#endif
