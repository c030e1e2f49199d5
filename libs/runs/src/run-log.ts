/** Where a run's life logs: the apps hand in their logger (Nest's `Logger` fits), so this library needs no framework. */
export interface RunLog {
  log(message: unknown): void;
  warn(message: unknown): void;
  error(message: unknown): void;
}
