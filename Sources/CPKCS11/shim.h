#ifndef CPKCS11_SHIM_H
#define CPKCS11_SHIM_H
// The PKCS#11 (Cryptoki 2.40) C API as Debian's p11-kit headers declare it (libp11-kit-dev),
// in the standard names (CK_ATTRIBUTE, pValue …). Nothing is linked: the module named in the
// keys file is loaded with dlopen and called through its C_GetFunctionList table only.
#include <p11-kit-1/p11-kit/pkcs11.h>
#include <dlfcn.h>

/// The module's C_GetFunctionList, found with dlsym; CKR_FUNCTION_NOT_SUPPORTED if `symbol` is NULL.
static inline CK_RV cpkcs11_get_function_list(void *symbol, CK_FUNCTION_LIST_PTR *list) {
    if (symbol == NULL) return CKR_FUNCTION_NOT_SUPPORTED;
    return ((CK_C_GetFunctionList)symbol)(list);
}
#endif
