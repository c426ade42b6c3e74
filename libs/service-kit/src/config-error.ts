/** A setting the process refuses to start with (its message says which and why). */
export class ConfigError extends Error {}
