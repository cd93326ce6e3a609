#ifndef MRTD_CLIBCRYPTO_SHIM_H
#define MRTD_CLIBCRYPTO_SHIM_H
#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/dh.h>
#include <openssl/dsa.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/cms.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/provider.h>
#include "authentication_shim.h"

/* MRTDCrypto: wrappers for macros Swift cannot import. */
static inline unsigned long mrtd_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }
static inline long mrtd_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline void mrtd_OPENSSL_free(void *ptr) { OPENSSL_free(ptr); }
static inline STACK_OF(X509) *mrtd_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int mrtd_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline void mrtd_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
static inline int mrtd_sk_CMS_SignerInfo_num(STACK_OF(CMS_SignerInfo) *stack) { return sk_CMS_SignerInfo_num(stack); }
static inline CMS_SignerInfo *mrtd_sk_CMS_SignerInfo_value(STACK_OF(CMS_SignerInfo) *stack, int index) { return sk_CMS_SignerInfo_value(stack, index); }
#endif
