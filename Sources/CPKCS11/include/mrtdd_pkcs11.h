#ifndef MRTDD_PKCS11_H
#define MRTDD_PKCS11_H
#include <stddef.h>

/// Which step of a PKCS #11 signature failed (0: none).
enum mrtdd_pkcs11_step {
    MRTDD_P11_OK = 0,
    MRTDD_P11_MODULE = 1,      /* dlopen / C_GetFunctionList */
    MRTDD_P11_INITIALIZE = 2,
    MRTDD_P11_TOKEN = 3,       /* no slot with a token of that label */
    MRTDD_P11_SESSION = 4,
    MRTDD_P11_LOGIN = 5,
    MRTDD_P11_KEY = 6,         /* no private key with that label / id */
    MRTDD_P11_SIGN = 7,
    MRTDD_P11_BUFFER = 8,
};

/// Signs `data` with the private key `object_label` (and/or `id`) on the token labelled `token`
/// of the PKCS #11 module `module_path`, logging in with `pin` (may be NULL). `mechanism` is a
/// CKM_* value; for the RSA-PSS mechanisms `pss_hash`, `pss_mgf`, `pss_salt` give the parameters.
/// The module is loaded and initialised once per process. Returns a step (0 on success) and puts
/// the CK_RV in `*rv`; `*out_len` is the signature length.
int mrtdd_pkcs11_sign(const char *module_path, const char *token, const char *object_label,
                      const unsigned char *id, size_t id_len, const char *pin,
                      unsigned long mechanism, unsigned long pss_hash, unsigned long pss_mgf, unsigned long pss_salt,
                      const unsigned char *data, size_t data_len,
                      unsigned char *out, size_t *out_len, unsigned long *rv);

#endif
