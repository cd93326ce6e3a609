#ifndef MRTD_CPSEUDOTERMINAL_H
#define MRTD_CPSEUDOTERMINAL_H
#include <stddef.h>

/// Opens a pseudo-terminal master (posix_openpt, grantpt, unlockpt) and writes the slave's path
/// into `path`. Returns the master descriptor, or -1 with errno set.
int mrtd_pty_open(char *path, size_t capacity);

#endif
