// What a client call can fail with: the API's own answer (status, stable code, message) or no
// answer at all (the daemon is not running, or not reachable).

export class ApiClientError extends Error {
  override name = "ApiClientError";
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

export class DaemonUnreachableError extends Error {
  override name = "DaemonUnreachableError";
  readonly code = "daemon_unreachable";
}
