import { RPC_OPERATION_NAMES } from '#platform/contracts';
import { assertEveryOperationHandled } from './bootstrap';

// A service must answer every operation its contract names (ADR 0173).
describe('assertEveryOperationHandled', () => {
  it('lets a service start that handles every operation of its contract', () => {
    const handled = new Set<string>(RPC_OPERATION_NAMES.media);
    expect(() => assertEveryOperationHandled({ handles: (op) => handled.has(op) }, 'media')).not.toThrow();
  });

  it('refuses a service that lacks one, naming it', () => {
    const handled = new Set<string>(RPC_OPERATION_NAMES.media.filter((op) => op !== 'media.prepare'));
    expect(() => assertEveryOperationHandled({ handles: (op) => handled.has(op) }, 'media')).toThrow('media has no handler for media.prepare');
  });
});
