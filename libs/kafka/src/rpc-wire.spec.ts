import { KafkaHeaders, KafkaParser } from '@nestjs/microservices';
import { KafkaResponseDeserializer } from '@nestjs/microservices/deserializers/kafka-response.deserializer';
import { KafkaRequestSerializer } from '@nestjs/microservices/serializers/kafka-request.serializer';
import type { KafkaMessage } from 'kafkajs';
import type { RpcRequest } from '#platform/contracts';
import { decodeValue, readReply, requestRecord } from './rpc-wire';

/** A record as kafkajs hands it to a consumer: value and header values are Buffers. */
function received(value: string | Buffer | null, headers: Record<string, string | Buffer>): KafkaMessage {
  const bytes = (v: string | Buffer) => (Buffer.isBuffer(v) ? v : Buffer.from(v));
  return {
    key: null,
    value: value === null ? null : bytes(value),
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, bytes(v)])),
    timestamp: '0',
    attributes: 0,
    offset: '0',
  } as KafkaMessage;
}

describe('the RPC wire is Nest’s', () => {
  const request: RpcRequest = { op: 'messages.get', caller: { requestId: 'req_1', appId: 'app_1' }, payload: { messageId: 'msg_ü' }, deadline: 123 };
  const headers = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'svc-app-id': 'app_1' };

  it('writes a request record as ClientKafka.send does', async () => {
    // ClientKafka.publish: the serializer's record, then the three reply headers as text.
    const nests = await new KafkaRequestSerializer().serialize({ value: request, headers: { ...headers } });
    Object.assign(nests.headers!, {
      [KafkaHeaders.CORRELATION_ID]: 'c-1',
      [KafkaHeaders.REPLY_TOPIC]: 'ns.messaging.rpc.reply',
      [KafkaHeaders.REPLY_PARTITION]: '3',
    });
    expect(requestRecord(request, headers, { correlationId: 'c-1', topic: 'ns.messaging.rpc.reply', partition: '3' })).toEqual(nests);
  });

  it('decodes a value as Nest’s parser does', () => {
    const parser = new KafkaParser();
    const values = ['{"ok":true,"result":{"a":1}}', '[1,2]', '{not json', 'plain text', '', '42', Buffer.from([0, 1, 2]), Buffer.from('{"ü":"é"}'), null];
    for (const value of values) {
      const raw = value === null ? null : Buffer.isBuffer(value) ? value : Buffer.from(value);
      expect(decodeValue(raw)).toEqual(parser.parse({ value: raw, headers: {} } as never).value);
    }
  });

  it('reads a reply as ClientKafka delivers it, and a failure where Nest would fail the call', () => {
    const parser = new KafkaParser();
    const nest = (message: KafkaMessage) => new KafkaResponseDeserializer().deserialize(parser.parse({ ...message, headers: { ...message.headers } } as never));
    // A ServerKafka reply: the answer's JSON, the correlation id and the disposed marker (one zero byte).
    const answer = { ok: false, error: { code: 'not_found', message: 'No such message.' } };
    const reply = received(JSON.stringify(answer), { [KafkaHeaders.CORRELATION_ID]: 'c-1', [KafkaHeaders.NEST_IS_DISPOSED]: Buffer.alloc(1) });
    expect(nest(reply)).toMatchObject({ id: 'c-1', response: answer, isDisposed: true });
    expect(readReply(reply)).toEqual({ ok: true, reply: answer });
    // A handler that threw: Nest sends its error in a header, with no value; ClientKafka fails the call.
    const failed = received(null, {
      [KafkaHeaders.CORRELATION_ID]: 'c-2',
      [KafkaHeaders.NEST_ERR]: JSON.stringify({ status: 'error', message: 'Internal server error' }),
      [KafkaHeaders.NEST_IS_DISPOSED]: Buffer.alloc(1),
    });
    expect(nest(failed)).toMatchObject({ id: 'c-2', err: expect.anything() });
    expect(readReply(failed)).toEqual({ ok: false, reason: expect.stringContaining('Internal server error') });
    expect(readReply(received('not an answer', { [KafkaHeaders.CORRELATION_ID]: 'c-3' }))).toEqual({ ok: false, reason: 'the reply is not an RPC reply' });
  });
});
