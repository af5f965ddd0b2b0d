#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
/* The gcc type-checking macros wrap curl_easy_setopt; the typed helpers below do that job. */
#define CURL_DISABLE_TYPECHECK 1
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
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

/// CURLOPT_OPENSOCKETFUNCTION: opens a socket only to the address `context` names (text, as
/// inet_pton reads it; an IPv6 zone after '%' is not compared) and refuses any other, and any
/// when `context` is NULL.
static inline curl_socket_t ccurl_open_pinned_socket(void *context, curlsocktype purpose, struct curl_sockaddr *target) {
    (void)purpose;
    const char *pinned = context;
    if (pinned == NULL || target == NULL) return CURL_SOCKET_BAD;
    char text[INET6_ADDRSTRLEN + 1];
    size_t length = strcspn(pinned, "%");
    if (length >= sizeof text) return CURL_SOCKET_BAD;
    memcpy(text, pinned, length);
    text[length] = 0;
    const void *sockaddr = &target->addr;
    int same = 0;
    if (target->family == AF_INET && target->addrlen >= sizeof(struct sockaddr_in)) {
        struct in_addr wanted;
        same = inet_pton(AF_INET, text, &wanted) == 1
            && memcmp(&wanted, &((const struct sockaddr_in *)sockaddr)->sin_addr, sizeof wanted) == 0;
    } else if (target->family == AF_INET6 && target->addrlen >= sizeof(struct sockaddr_in6)) {
        struct in6_addr wanted;
        same = inet_pton(AF_INET6, text, &wanted) == 1
            && memcmp(&wanted, &((const struct sockaddr_in6 *)sockaddr)->sin6_addr, sizeof wanted) == 0;
    }
    if (!same) return CURL_SOCKET_BAD;
    return socket(target->family, target->socktype, target->protocol);
}

/// Every socket the handle opens from now on goes to `address` (NUL-terminated text, valid
/// while the handle may connect) or is refused; NULL refuses every one.
static inline CURLcode ccurl_pin_connections(CURL *handle, const char *address) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, ccurl_open_pinned_socket);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, (void *)address);
}

/// curl_easy_getinfo is variadic too.
static inline CURLcode ccurl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
#endif
