/** What the engine logs through: protocol-core's Logger fits it (the server passes its own); stderr only. */
export interface EngineLogger {
  debug(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}
