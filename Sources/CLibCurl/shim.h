#ifndef MRTD_CLIBCURL_SHIM_H
#define MRTD_CLIBCURL_SHIM_H
#include <stddef.h>
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic: Swift cannot call them. One typed wrapper
   per argument kind. */
static inline CURLcode mrtd_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode mrtd_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode mrtd_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*mrtd_curl_write_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode mrtd_curl_set_write_function(CURL *handle, mrtd_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
static inline long mrtd_curl_response_code(CURL *handle) {
    long code = 0;
    if (curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK) return 0;
    return code;
}
#endif
