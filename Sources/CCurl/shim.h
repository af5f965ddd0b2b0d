#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
/* The gcc type-checking macros wrap curl_easy_setopt; the typed helpers below do that job. */
#define CURL_DISABLE_TYPECHECK 1
#include <stddef.h>
#include <curl/curl.h>

/// A write or header callback: libcurl hands over `size * count` bytes.
typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);

/// curl_easy_setopt is variadic, which Swift cannot call: one helper per argument type.
static inline CURLcode ccurl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_set_headers(CURL *handle, struct curl_slist *headers) {
    return curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
}
static inline CURLcode ccurl_set_callback(CURL *handle, CURLoption option, ccurl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
/// A POST body, copied by libcurl (CURLOPT_POSTFIELDSIZE must come first).
static inline CURLcode ccurl_set_post_body(CURL *handle, const char *bytes, long length) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, length);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, bytes);
}

/// curl_easy_getinfo is variadic too.
static inline CURLcode ccurl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
#endif
