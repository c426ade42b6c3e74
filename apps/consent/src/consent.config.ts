import { secretFromEnv, type BaseConfig } from '#platform/service-kit';

/** Settings of the consent service beyond the base ones (`.env.example` documents them). */
export interface ConsentConfig {
  appUserIdSecret: string;
  /** HMAC key of opt-in link tokens (D16). */
  optInLinkSecret: string;
  /** Base of the chat product's business-profile pages: links are `{base}/{handle}?optin={token}`. */
  profileBaseUrl: string;
}

export const CONSENT_CONFIG = Symbol('ConsentConfig');

export function loadConsentConfig(base: BaseConfig): ConsentConfig {
  const env = base.env;
  const optInLinkSecret = secretFromEnv(env, 'OPTIN_LINK_SECRET', base.production);
  return {
    appUserIdSecret: base.appUserIdSecret,
    optInLinkSecret,
    profileBaseUrl: (env.PROFILE_BASE_URL ?? 'https://chat.example.com/b').replace(/\/+$/, ''),
  };
}
