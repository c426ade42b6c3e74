import type { BaseConfig } from '#platform/service-kit';

/** Settings of the messaging service beyond the base ones. */
export interface MessagingConfig {
  appUserIdSecret: string;
}

export const MESSAGING_CONFIG = Symbol('MessagingConfig');

export function loadMessagingConfig(base: BaseConfig): MessagingConfig {
  return { appUserIdSecret: base.appUserIdSecret };
}
