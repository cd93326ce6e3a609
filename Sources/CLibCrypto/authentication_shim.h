#ifndef MRTD_CLIBCRYPTO_AUTHENTICATION_SHIM_H
#define MRTD_CLIBCRYPTO_AUTHENTICATION_SHIM_H
/* Chip and Active Authentication (MRTDCrypto): wrappers for selection macros Swift cannot import. */
#include <openssl/evp.h>
#include <openssl/rsa.h>
static inline int mrtd_EVP_PKEY_KEY_PARAMETERS(void) { return EVP_PKEY_KEY_PARAMETERS; }
static inline int mrtd_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int mrtd_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }
static inline int mrtd_RSA_NO_PADDING(void) { return RSA_NO_PADDING; }
#endif
