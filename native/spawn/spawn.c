// posix_spawn for tenexd's agent programs (adapters/spawn/native-spawn.ts).
//
// Why: Node's child_process (libuv 1.46) starts a program with fork(), which copies the page
// tables of the whole daemon (1.8-2.1 ms at ~100 MB resident here) and stalls its other threads
// while it does (a worker's fdatasync posted just before began ~1 ms late). glibc's posix_spawn
// clones without copying the address space (CLONE_VM | CLONE_VFORK): 0.5 ms for the same call.
//
// One function: spawn(path, argv, envp, cwd, onExit) -> [pid, stdin, stdout, stderr] (the
// daemon's ends of three pipes), or a negative errno when the program could not be started
// (exec's error comes back from posix_spawn itself). The program gets its own session (so its
// whole group can be signalled), every signal at its default and none blocked (Node ignores
// SIGPIPE, and an ignored signal stays ignored across exec), and (glibc 2.34 or newer) no
// descriptor but its three pipes. A thread per program waits for its end and calls
// onExit(code, signal) on the JS thread.

#define _GNU_SOURCE
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
  pid_t pid;
  int status;  // waitpid's status, or -1 if waitpid failed
  napi_threadsafe_function on_exit;
} watch_t;

static void *wait_for_exit(void *arg) {
  watch_t *w = arg;
  int status = 0;
  pid_t r;
  do r = waitpid(w->pid, &status, 0); while (r < 0 && errno == EINTR);
  w->status = r < 0 ? -1 : status;
  napi_threadsafe_function fn = w->on_exit;
  napi_call_threadsafe_function(fn, w, napi_tsfn_blocking);
  napi_release_threadsafe_function(fn, napi_tsfn_release);
  return NULL;
}

static void call_on_exit(napi_env env, napi_value cb, void *context, void *data) {
  (void)context;
  watch_t *w = data;
  int status = w->status;
  free(w);
  if (env == NULL) return;  // the environment is being torn down
  napi_value args[2], undef;
  napi_get_null(env, &args[0]);
  napi_get_null(env, &args[1]);
  if (status >= 0 && WIFEXITED(status)) napi_create_int32(env, WEXITSTATUS(status), &args[0]);
  else if (status >= 0 && WIFSIGNALED(status)) napi_create_int32(env, WTERMSIG(status), &args[1]);
  napi_get_undefined(env, &undef);
  napi_call_function(env, undef, cb, 2, args, NULL);
}

static char *copy_string(napi_env env, napi_value v) {
  size_t n = 0;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &n) != napi_ok) return NULL;
  char *s = malloc(n + 1);
  if (s != NULL) napi_get_value_string_utf8(env, v, s, n + 1, &n);
  return s;
}

static void free_strings(char **list) {
  if (list == NULL) return;
  for (char **p = list; *p != NULL; p++) free(*p);
  free(list);
}

// A NULL-terminated copy of a JS array of strings; NULL if it is not one.
static char **copy_strings(napi_env env, napi_value arr) {
  uint32_t n = 0;
  if (napi_get_array_length(env, arr, &n) != napi_ok) return NULL;
  char **out = calloc(n + 1, sizeof(char *));
  if (out == NULL) return NULL;
  for (uint32_t i = 0; i < n; i++) {
    napi_value e;
    napi_get_element(env, arr, i, &e);
    if ((out[i] = copy_string(env, e)) == NULL) { free_strings(out); return NULL; }
  }
  return out;
}

static int start(const char *path, char **argv, char **envp, const char *cwd, pid_t *pid, int pipes[3][2]) {
  for (int i = 0; i < 3; i++)
    if (pipe2(pipes[i], O_CLOEXEC) < 0) return errno;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  // dup2 clears close-on-exec on the copies (on the fd itself when a daemon that had closed 0
  // got it back as stdin's read end); the originals close at exec. No dup2 below overwrites a
  // later one's source: pipe2 hands out the lowest free fds and stdin's pipe is made first, so
  // stdout's and stderr's write ends are never below the targets dup'd before them.
  posix_spawn_file_actions_adddup2(&actions, pipes[0][0], 0);
  posix_spawn_file_actions_adddup2(&actions, pipes[1][1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipes[2][1], 2);
  posix_spawn_file_actions_addchdir_np(&actions, cwd);
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
  // Nothing else: not even a descriptor the daemon itself inherited without close-on-exec.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  int err = posix_spawn(pid, path, &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return err;
}

static napi_value number(napi_env env, int n) {
  napi_value v;
  napi_create_int32(env, n, &v);
  return v;
}

static napi_value spawn_program(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value a[5];
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  napi_valuetype cb_type = napi_undefined;
  if (argc == 5) napi_typeof(env, a[4], &cb_type);
  if (cb_type != napi_function) {
    napi_throw_type_error(env, NULL, "spawn(path, argv, envp, cwd, onExit)");
    return NULL;
  }
  char *path = copy_string(env, a[0]), *cwd = copy_string(env, a[3]);
  char **argv = copy_strings(env, a[1]), **envp = copy_strings(env, a[2]);
  int pipes[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
  pid_t pid = -1;
  int err = (path && cwd && argv && envp) ? start(path, argv, envp, cwd, &pid, pipes) : EINVAL;
  int started = err == 0;
  free(path); free(cwd); free_strings(argv); free_strings(envp);
  // The program's ends are its own now (or nobody's): the daemon keeps the other three.
  int ours[3] = {pipes[0][1], pipes[1][0], pipes[2][0]};
  int theirs[3] = {pipes[0][0], pipes[1][1], pipes[2][1]};
  for (int i = 0; i < 3; i++) if (theirs[i] >= 0) close(theirs[i]);
  watch_t *w = err == 0 ? malloc(sizeof(watch_t)) : NULL;
  if (w != NULL) {
    w->pid = pid;
    w->status = -1;
    napi_value name;
    napi_create_string_utf8(env, "tenexd-agent-exit", NAPI_AUTO_LENGTH, &name);
    if (napi_create_threadsafe_function(env, a[4], NULL, name, 0, 1, NULL, NULL, NULL, call_on_exit, &w->on_exit) != napi_ok) {
      err = EAGAIN;
    } else {
      pthread_t thread;
      pthread_attr_t attr;
      pthread_attr_init(&attr);
      pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
      pthread_attr_setstacksize(&attr, 64 * 1024);
      err = pthread_create(&thread, &attr, wait_for_exit, w);
      pthread_attr_destroy(&attr);
      if (err != 0) napi_release_threadsafe_function(w->on_exit, napi_tsfn_abort);
    }
    if (err != 0) free(w);
  } else if (err == 0) {
    err = ENOMEM;
  }
  if (err != 0) {
    // Nothing would watch it: a program started without its watcher is stopped and reaped here.
    if (started) {
      kill(pid, SIGKILL);
      while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    for (int i = 0; i < 3; i++) if (ours[i] >= 0) close(ours[i]);
    return number(env, -err);
  }
  napi_value out;
  napi_create_array_with_length(env, 4, &out);
  napi_set_element(env, out, 0, number(env, pid));
  for (int i = 0; i < 3; i++) napi_set_element(env, out, i + 1, number(env, ours[i]));
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "spawn", NAPI_AUTO_LENGTH, spawn_program, NULL, &fn);
  napi_set_named_property(env, exports, "spawn", fn);
  return exports;
}
