import { RpcDispatcher } from './rpc-dispatcher';

describe('RpcDispatcher', () => {
  it('knows which ops it handles, and refuses the others', async () => {
    // Handlers here are untyped mocks: the dispatcher's job is routing, whatever the operation's types.
    const dispatcher = new RpcDispatcher<'messaging'>().register('messages.get', jest.fn().mockResolvedValue({ found: true }));
    expect(dispatcher.handles('messages.get')).toBe(true);
    expect(dispatcher.handles('messages.delete')).toBe(false);
    expect(dispatcher.handles('__proto__')).toBe(false);
    expect(await dispatcher.dispatch({ op: 'messages.get', caller: { requestId: 'req_1' }, payload: {} })).toEqual({ ok: true, result: { found: true } });
    expect((await dispatcher.dispatch({ op: 'messages.delete', caller: { requestId: 'req_1' }, payload: {} })).ok).toBe(false);
  });
});

describe('RpcDispatcher with a sealer', () => {
  // A reversible stand-in for the key ring: the dispatcher's job is to call it on the right fields.
  const sealer = {
    seal: (text: string, context: string) => `sealed(${context}:${Buffer.from(text).toString('hex')})`,
    open: (sealed: string, context: string) => {
      const match = /^sealed\(([^:]+):([0-9a-f]*)\)$/.exec(sealed);
      if (!match || match[1] !== context) throw new Error('not sealed for ' + context);
      return Buffer.from(match[2], 'hex').toString();
    },
  };

  it('opens sealed request fields for the handler and seals secret fields of the reply', async () => {
    let seen: unknown;
    const dispatcher = new RpcDispatcher<'webhooks'>(undefined, sealer).register(
      'endpoints.create',
      jest.fn().mockImplementation(async (p: unknown) => {
        seen = p;
        return { id: 'we_1', secret: 'whsec_x' };
      }),
    );
    const reply = await dispatcher.dispatch({
      op: 'endpoints.create',
      caller: { requestId: 'r' },
      payload: { appId: 'a', verifyToken: sealer.seal('tok', 'rpc.request.verifyToken') },
    });
    expect(seen).toEqual({ appId: 'a', verifyToken: 'tok' });
    expect(reply).toEqual({ ok: true, result: { id: 'we_1', secret: sealer.seal('whsec_x', 'rpc.reply.secret') } });
    expect(JSON.stringify(reply)).not.toContain('whsec_x');
  });

  it('refuses a request whose secret field arrives in plaintext, without running the handler', async () => {
    const handler = jest.fn().mockResolvedValue({});
    const onError = jest.fn();
    const dispatcher = new RpcDispatcher<'webhooks'>(onError, sealer).register('endpoints.verify', handler);
    const reply = await dispatcher.dispatch({ op: 'endpoints.verify', caller: { requestId: 'r' }, payload: { verifyToken: 'plain' } });
    expect(reply.ok).toBe(false);
    expect(handler).not.toHaveBeenCalled();
    expect(JSON.stringify(onError.mock.calls)).not.toContain('plain');
  });
});
