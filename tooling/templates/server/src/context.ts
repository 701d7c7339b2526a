/** What every tool of this server receives as `ctx`: its configuration and shared state, never module globals. */
export interface $PASCAL$Context {
  /** Longest message `echo` accepts (`--max-message-length`). */
  maxMessageLength: number;
}
