#ifndef MRTD_CLIBNFC_SHIM_H
#define MRTD_CLIBNFC_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <pthread.h>
#include <nfc/nfc.h>
#include <nfc/nfc-types.h>

/* Helpers so Swift never walks libnfc's unions, char-array typedefs or 0-terminated enum lists. */

/// Size of one nfc_connstring (NFC_BUFSIZE_CONNSTRING).
static inline size_t mrtd_nfc_connstring_size(void) { return NFC_BUFSIZE_CONNSTRING; }

/// nfc_list_devices into a flat buffer of `count` connstrings.
static inline size_t mrtd_nfc_list_devices(nfc_context *context, char *buffer, size_t count) {
    return nfc_list_devices(context, (nfc_connstring *)buffer, count);
}

/// nfc_initiator_select_passive_target with libnfc's default initiator data (type B: AFI 00,
/// every application family).
static inline int mrtd_nfc_select_passive(nfc_device *device, nfc_modulation_type type, nfc_baud_rate rate,
                                          nfc_target *target) {
    nfc_modulation modulation;
    modulation.nmt = type;
    modulation.nbr = rate;
    return nfc_initiator_select_passive_target(device, modulation, NULL, 0, target);
}

/// The baud rates the device supports as initiator for `type`, fastest first; returns the count
/// (negative: a libnfc error).
static inline int mrtd_nfc_baud_rates(nfc_device *device, nfc_modulation_type type, int *out, size_t capacity) {
    const nfc_baud_rate *rates = NULL;
    int res = nfc_device_get_supported_baud_rate(device, type, &rates);
    if (res < 0) return res;
    size_t n = 0;
    while (rates != NULL && rates[n] != NBR_UNDEFINED && n < capacity) {
        out[n] = (int)rates[n];
        n++;
    }
    return (int)n;
}

static inline int mrtd_nfc_target_type(const nfc_target *target) { return (int)target->nm.nmt; }
static inline int mrtd_nfc_target_baud_rate(const nfc_target *target) { return (int)target->nm.nbr; }
static inline uint8_t mrtd_nfc_target_a_sak(const nfc_target *target) { return target->nti.nai.btSak; }

/// The ATS of a type A target without its length byte TL (T0 first); returns its length.
static inline size_t mrtd_nfc_target_a_ats(const nfc_target *target, uint8_t *out, size_t capacity) {
    size_t n = target->nti.nai.szAtsLen;
    if (n > sizeof(target->nti.nai.abtAts)) n = sizeof(target->nti.nai.abtAts);
    if (n > capacity) n = capacity;
    memcpy(out, target->nti.nai.abtAts, n);
    return n;
}

/// Type B: Application Data (4), Protocol Info (3) of the ATQB, then the first ATTRIB response
/// byte (MBLI | CID): 8 bytes into `out`.
static inline void mrtd_nfc_target_b_info(const nfc_target *target, uint8_t *out) {
    memcpy(out, target->nti.nbi.abtApplicationData, 4);
    memcpy(out + 4, target->nti.nbi.abtProtocolInfo, 3);
    out[7] = target->nti.nbi.ui8CardIdentifier;
}

/// Zeroes the stack below the caller before a libnfc call that may be aborted.
///
/// libnfc's pn532_uart driver answers an aborted receive with success and no data, and the chip
/// layer then reads the status byte of its (uninitialised) receive buffer; a stale 0x80 there
/// makes it call abort(). Zeroing the region its frames occupy makes that byte 0x00 ("no error,
/// no data"), which the callers turn into an error instead of a crash.
static __attribute__((noinline)) void mrtd_scrub_stack(void) {
    uint8_t area[16384];
    memset(area, 0, sizeof area);
    __asm__ __volatile__("" : : "r"(area) : "memory");
}

/* glibc declares it only with _GNU_SOURCE, which the Swift Glibc module is built without. */
extern int pthread_setname_np(pthread_t thread, const char *name);

/// Names the calling thread for ps, top and /proc (the kernel keeps 15 bytes).
static inline void mrtd_name_current_thread(const char *name) {
    char shortName[16];
    strncpy(shortName, name, sizeof shortName - 1);
    shortName[sizeof shortName - 1] = '\0';
    (void)pthread_setname_np(pthread_self(), shortName);
}

#endif
