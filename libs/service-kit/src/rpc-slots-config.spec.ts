import { ConfigError, loadBaseConfig } from './config';

const load = (env: NodeJS.ProcessEnv) => {
  const config = loadBaseConfig('messaging', 'messaging', 3010, env);
  return { inFlight: config.rpcMaxInFlight, perApp: config.rpcMaxInFlightPerApp, waitingPerApp: config.rpcMaxWaitingPerApp };
};

// A service's RPC slots shared between apps (ADR 0206).
describe('RPC_MAX_IN_FLIGHT_PER_APP and RPC_MAX_WAITING_PER_APP', () => {
  it('default to half the slots per app and four times as many waiting per app as there are slots', () => {
    expect(load({})).toEqual({ inFlight: 64, perApp: 32, waitingPerApp: 256 });
    expect(load({ RPC_MAX_IN_FLIGHT: '10' })).toEqual({ inFlight: 10, perApp: 5, waitingPerApp: 40 });
    expect(load({ RPC_MAX_IN_FLIGHT: '1' })).toEqual({ inFlight: 1, perApp: 1, waitingPerApp: 4 });
  });

  it('take a share up to every slot, and any waiting list', () => {
    expect(load({ RPC_MAX_IN_FLIGHT_PER_APP: '48', RPC_MAX_WAITING_PER_APP: '200' })).toEqual({ inFlight: 64, perApp: 48, waitingPerApp: 200 });
    expect(load({ RPC_MAX_IN_FLIGHT: '16', RPC_MAX_IN_FLIGHT_PER_APP: '64' })).toEqual({ inFlight: 16, perApp: 16, waitingPerApp: 64 });
  });

  it('refuse what is not a positive whole number', () => {
    for (const value of ['0', '-1', 'half', '1.5']) {
      expect(() => load({ RPC_MAX_IN_FLIGHT_PER_APP: value })).toThrow(ConfigError);
      expect(() => load({ RPC_MAX_WAITING_PER_APP: value })).toThrow(ConfigError);
    }
  });
});
