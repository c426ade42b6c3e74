import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import { noDelaySocketFactory } from './kafka-client';

describe('noDelaySocketFactory', () => {
  let server: Server;
  beforeAll(async () => {
    server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('connects as kafkajs does, with Nagle’s algorithm turned off', async () => {
    const setNoDelay = jest.spyOn(Socket.prototype, 'setNoDelay');
    try {
      const { port } = server.address() as AddressInfo;
      const connected = new Promise<void>((resolve) => {
        const socket = noDelaySocketFactory({ host: '127.0.0.1', port, ssl: null as never, onConnect: () => resolve() }) as Socket;
        expect(setNoDelay.mock.contexts).toContain(socket);
        socket.on('close', () => undefined);
      });
      await connected;
      expect(setNoDelay).toHaveBeenCalledWith(true);
    } finally {
      setNoDelay.mockRestore();
    }
  });
});
