import { SCOPES, type KeyEnvironment, type Scope } from '../scopes';
import { arrayOf, int, nullableStr, oneOf, record, str, type JsonSchema } from './schema-builders';

/** Events of the gateway, published on `gateway.events`. Every gateway replica consumes them to keep its caches true. */
export interface ApiKeyCreated {
  type: 'ApiKeyCreated';
  data: { keyId: string; appId: string; environment: KeyEnvironment; scopes: Scope[]; expiresAt: string | null };
}
export interface ApiKeyRevoked {
  type: 'ApiKeyRevoked';
  data: { keyId: string; appId: string };
}
/** The test clock moved (CLOCK_MODE=test only); offsetMs is the total offset from the system clock. */
export interface TestClockAdvanced {
  type: 'TestClockAdvanced';
  data: { offsetMs: number; now: string };
}
export type GatewayEvent = ApiKeyCreated | ApiKeyRevoked | TestClockAdvanced;

export const GATEWAY_EVENT_SCHEMAS: Record<GatewayEvent['type'], JsonSchema> = {
  ApiKeyCreated: record({
    keyId: str('The key (`key_…`); the secret itself never leaves the gateway.'),
    appId: str('The app the key belongs to.'),
    environment: oneOf('sandbox or live.', ['sandbox', 'live']),
    scopes: arrayOf('Scopes granted to the key.', oneOf('A scope name.', SCOPES)),
    expiresAt: nullableStr('When the key stops working, if ever.', { format: 'date-time' }),
  }),
  ApiKeyRevoked: record({
    keyId: str('The revoked key.'),
    appId: str('The app it belonged to.'),
  }),
  TestClockAdvanced: record({
    offsetMs: int('Total offset of the platform clock from the system clock, in milliseconds.', { minimum: 0 }),
    now: str('Platform time right after the move.', { format: 'date-time' }),
  }),
};
