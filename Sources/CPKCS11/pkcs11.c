// A narrow PKCS #11 client: one signature with one private key, for EAC Terminal Authentication
// keys kept in an HSM. The module is named by the RFC 7512 URI's module-path and dlopen'ed.
#include "mrtdd_pkcs11.h"
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <p11-kit-1/p11-kit/pkcs11.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char loaded_path[4096];
static CK_FUNCTION_LIST_PTR functions = NULL;

static int load(const char *module_path, CK_RV *rv) {
    if (functions && strcmp(loaded_path, module_path) == 0) return MRTDD_P11_OK;
    if (functions) return MRTDD_P11_MODULE; /* one module per process */
    void *handle = dlopen(module_path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) return MRTDD_P11_MODULE;
    CK_C_GetFunctionList get = (CK_C_GetFunctionList)dlsym(handle, "C_GetFunctionList");
    CK_FUNCTION_LIST_PTR list = NULL;
    if (!get || (*rv = get(&list)) != CKR_OK || !list) { dlclose(handle); return MRTDD_P11_MODULE; }
    *rv = list->C_Initialize(NULL);
    if (*rv != CKR_OK && *rv != CKR_CRYPTOKI_ALREADY_INITIALIZED) { dlclose(handle); return MRTDD_P11_INITIALIZE; }
    functions = list;
    strncpy(loaded_path, module_path, sizeof loaded_path - 1);
    return MRTDD_P11_OK;
}

static int label_matches(const unsigned char *padded, size_t size, const char *label) {
    size_t n = strlen(label), end = size;
    while (end > 0 && padded[end - 1] == ' ') end--;
    return n == end && memcmp(padded, label, n) == 0;
}

static int sign_locked(const char *module_path, const char *token, const char *object_label,
                       const unsigned char *id, size_t id_len, const char *pin, unsigned long mechanism,
                       unsigned long pss_hash, unsigned long pss_mgf, unsigned long pss_salt,
                       const unsigned char *data, size_t data_len, unsigned char *out, size_t *out_len, CK_RV *rv) {
    int step = load(module_path, rv);
    if (step) return step;
    CK_SLOT_ID slots[64];
    CK_ULONG count = 64;
    if ((*rv = functions->C_GetSlotList(CK_TRUE, slots, &count)) != CKR_OK) return MRTDD_P11_TOKEN;
    CK_SLOT_ID slot = 0;
    int found = 0;
    for (CK_ULONG i = 0; i < count && !found; i++) {
        CK_TOKEN_INFO info;
        if (functions->C_GetTokenInfo(slots[i], &info) != CKR_OK) continue;
        if (!token || label_matches(info.label, sizeof info.label, token)) { slot = slots[i]; found = 1; }
    }
    if (!found) return MRTDD_P11_TOKEN;
    CK_SESSION_HANDLE session;
    if ((*rv = functions->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &session)) != CKR_OK) return MRTDD_P11_SESSION;
    step = MRTDD_P11_OK;
    if (pin) {
        *rv = functions->C_Login(session, CKU_USER, (CK_UTF8CHAR_PTR)pin, strlen(pin));
        if (*rv != CKR_OK && *rv != CKR_USER_ALREADY_LOGGED_IN) { step = MRTDD_P11_LOGIN; goto close; }
    }
    CK_OBJECT_CLASS class = CKO_PRIVATE_KEY;
    CK_ATTRIBUTE template[3];
    CK_ULONG n = 0;
    template[n].type = CKA_CLASS; template[n].pValue = &class; template[n].ulValueLen = sizeof class; n++;
    if (object_label) { template[n].type = CKA_LABEL; template[n].pValue = (void *)object_label; template[n].ulValueLen = strlen(object_label); n++; }
    if (id && id_len) { template[n].type = CKA_ID; template[n].pValue = (void *)id; template[n].ulValueLen = id_len; n++; }
    CK_OBJECT_HANDLE key, extra;
    CK_ULONG keys = 0;
    if ((*rv = functions->C_FindObjectsInit(session, template, n)) != CKR_OK) { step = MRTDD_P11_KEY; goto logout; }
    *rv = functions->C_FindObjects(session, &key, 1, &keys);
    CK_ULONG more = 0;
    if (*rv == CKR_OK && keys == 1) functions->C_FindObjects(session, &extra, 1, &more);
    functions->C_FindObjectsFinal(session);
    if (*rv != CKR_OK || keys != 1 || more != 0) { step = MRTDD_P11_KEY; goto logout; }  /* none, or ambiguous */
    CK_RSA_PKCS_PSS_PARAMS pss = { pss_hash, pss_mgf, pss_salt };
    CK_MECHANISM m = { mechanism, NULL, 0 };
    if (pss_hash) { m.pParameter = &pss; m.ulParameterLen = sizeof pss; }
    if ((*rv = functions->C_SignInit(session, &m, key)) != CKR_OK) { step = MRTDD_P11_SIGN; goto logout; }
    CK_ULONG length = *out_len;
    *rv = functions->C_Sign(session, (CK_BYTE_PTR)data, data_len, out, &length);
    if (*rv == CKR_BUFFER_TOO_SMALL) step = MRTDD_P11_BUFFER;
    else if (*rv != CKR_OK) step = MRTDD_P11_SIGN;
    *out_len = length;
logout:
    if (pin) functions->C_Logout(session);
close:
    functions->C_CloseSession(session);
    return step;
}

int mrtdd_pkcs11_sign(const char *module_path, const char *token, const char *object_label,
                      const unsigned char *id, size_t id_len, const char *pin,
                      unsigned long mechanism, unsigned long pss_hash, unsigned long pss_mgf, unsigned long pss_salt,
                      const unsigned char *data, size_t data_len,
                      unsigned char *out, size_t *out_len, unsigned long *rv) {
    CK_RV result = CKR_OK;
    pthread_mutex_lock(&lock);
    int step = sign_locked(module_path, token, object_label, id, id_len, pin, mechanism, pss_hash, pss_mgf, pss_salt,
                           data, data_len, out, out_len, &result);
    pthread_mutex_unlock(&lock);
    *rv = result;
    return step;
}
