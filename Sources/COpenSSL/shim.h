#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>

/// EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen.
static inline EVP_PKEY *copenssl_ec_generate(const char *curve) { return EVP_EC_gen(curve); }

/// BIO_get_mem_data is a macro over BIO_ctrl.
static inline long copenssl_bio_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

/// OPENSSL_free is a macro.
static inline void copenssl_free(void *pointer) { OPENSSL_free(pointer); }

/// sk_X509_* are macros over the generic stack functions.
static inline STACK_OF(X509) *copenssl_x509_stack_new(void) { return sk_X509_new_null(); }
static inline int copenssl_x509_stack_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline void copenssl_x509_stack_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }

/// An HMAC context of `mac` (EVP_MAC "HMAC") over SHA-256 keyed with `key`, to duplicate per
/// message (EVP_MAC_CTX_dup); NULL on failure. The digest's parameter array is built in C.
static inline EVP_MAC_CTX *copenssl_hmac_sha256_keyed(EVP_MAC *mac, const unsigned char *key, size_t length) {
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    if (context == NULL) return NULL;
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_end();
    if (EVP_MAC_init(context, key, length, params) != 1) { EVP_MAC_CTX_free(context); return NULL; }
    return context;
}

/* App Store signed-data verification */
/// sk_X509_num and sk_X509_value are macros over the generic stack functions.
static inline int copenssl_x509_stack_count(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *copenssl_x509_stack_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
#endif
