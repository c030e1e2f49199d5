/** A bad setting: the process stops with this message, which names the variable. */
export class ConfigError extends Error {}
