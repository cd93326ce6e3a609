#ifndef MRTD_CPCSCLITE_SHIM_H
#define MRTD_CPCSCLITE_SHIM_H
#include <PCSC/winscard.h>
#include <PCSC/wintypes.h>
#include <PCSC/pcsclite.h>
#include <PCSC/reader.h>
#endif
