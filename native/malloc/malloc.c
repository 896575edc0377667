// glibc's malloc_trim for tenexd (adapters/malloc/memory-trim.ts).
//
// Why: glibc keeps what a thread's arena freed, and gives it back to the system only from the
// top of the main thread's heap. The daemon's start (listing 20,000 logs, checking the index)
// left 1-5 MB freed but resident in one thread's arena or another, a different amount at every
// start, and the back-fill after it more: on the 1,000,000-event store 96.4-101.2 MB resident
// once caught up, against 94.9-96.0 with the freed pages handed back before the ready line and
// after the back-fill (docs/performance.md, session 29). malloc_trim(0) walks every arena and returns the whole
// pages of its free chunks (madvise), keeping what is in use.
//
// trim() -> 1 if memory was returned, 0 if there was none to return, -1 where this is not
// glibc; `glibc`: whether it is (so a caller can tell without trimming).

#include <node_api.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  int32_t released = -1;
#ifdef __GLIBC__
  released = malloc_trim(0);
#endif
  napi_value result;
  napi_create_int32(env, released, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &fn);
  napi_set_named_property(env, exports, "trim", fn);
  napi_value glibc;
#ifdef __GLIBC__
  napi_get_boolean(env, true, &glibc);
#else
  napi_get_boolean(env, false, &glibc);
#endif
  napi_set_named_property(env, exports, "glibc", glibc);
  return exports;
}
