import { RpcDispatcher } from './rpc-dispatcher';

describe('RpcDispatcher', () => {
  it('knows which ops it handles, and refuses the others', async () => {
    const dispatcher = new RpcDispatcher().register('messages.get', async () => ({ found: true }));
    expect(dispatcher.handles('messages.get')).toBe(true);
    expect(dispatcher.handles('messages.delete')).toBe(false);
    expect(dispatcher.handles('__proto__')).toBe(false);
    expect(await dispatcher.dispatch({ op: 'messages.get', caller: { requestId: 'req_1' }, payload: {} })).toEqual({ ok: true, result: { found: true } });
    expect((await dispatcher.dispatch({ op: 'messages.delete', caller: { requestId: 'req_1' }, payload: {} })).ok).toBe(false);
  });
});
