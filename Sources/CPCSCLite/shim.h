#ifndef MRTD_CPCSCLITE_SHIM_H
#define MRTD_CPCSCLITE_SHIM_H
#include <PCSC/winscard.h>
#include <PCSC/wintypes.h>
#include <PCSC/pcsclite.h>
#include <PCSC/reader.h>

/* Macros Swift cannot import. */
static inline const SCARD_IO_REQUEST *mrtd_pci_t0(void) { return SCARD_PCI_T0; }
static inline const SCARD_IO_REQUEST *mrtd_pci_t1(void) { return SCARD_PCI_T1; }
static inline DWORD mrtd_attr_maxinput(void) { return SCARD_ATTR_MAXINPUT; }
static inline DWORD mrtd_ioctl_get_feature_request(void) { return CM_IOCTL_GET_FEATURE_REQUEST; }
static inline DWORD mrtd_infinite(void) { return INFINITE; }
static inline DWORD mrtd_max_buffer_size_extended(void) { return MAX_BUFFER_SIZE_EXTENDED; }
#endif
