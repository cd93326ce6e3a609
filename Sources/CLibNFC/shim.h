#ifndef MRTD_CLIBNFC_SHIM_H
#define MRTD_CLIBNFC_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <nfc/nfc.h>
#include <nfc/nfc-types.h>
#endif
