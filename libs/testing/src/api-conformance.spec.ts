import { readFileSync } from 'node:fs';
import path from 'node:path';
import { API_VERSION, PUBLIC_RESOURCE_SCHEMAS, publicEventSchema } from '#platform/contracts';
import { ApiConformance } from './api-conformance';

const conformance = new ApiConformance(JSON.parse(readFileSync(path.resolve(__dirname, '../../../docs/openapi.json'), 'utf8')));
const headers = new Headers({ 'svc-request-id': 'req_01JD3QE3H6K9N2Q5T8W1Z4C7', 'svc-version': API_VERSION });
const example = (name: string) => structuredClone((PUBLIC_RESOURCE_SCHEMAS[name].examples as Record<string, unknown>[])[0]);
const envelope = (code: string) => ({
  error: { code, message: 'm', type: 'permission_error', requestId: 'req_1', docUrl: 'https://docs.example.com/platform/errors#' + code },
});

describe('ApiConformance (the e2e suite’s check of answers against docs/openapi.json)', () => {
  it('passes an answer the document describes', () => {
    expect(conformance.checkResponse('GET', '/messages/msg_1', 200, headers, example('Message'))).toEqual([]);
    expect(conformance.checkResponse('DELETE', '/webhooks/we_1', 204, headers, undefined)).toEqual([]);
  });

  it('fails a field added, renamed, made nullable or of another type', () => {
    expect(conformance.checkResponse('GET', '/messages/msg_1', 200, headers, { ...example('Message'), region: 'eu' })).toHaveLength(1);
    const { readAt, ...renamed } = example('Message');
    expect(conformance.checkResponse('GET', '/messages/msg_1', 200, headers, { ...renamed, readOn: readAt })).toHaveLength(1);
    expect(conformance.checkResponse('GET', '/messages/msg_1', 200, headers, { ...example('Message'), createdAt: null })).toHaveLength(1);
    expect(conformance.checkResponse('GET', '/consents', 200, headers, { data: [{ ...example('Consent'), status: 'paused' }], nextCursor: null })).toHaveLength(
      1,
    );
  });

  it('fails a status the operation does not declare, and a code not declared for that status', () => {
    expect(conformance.checkResponse('GET', '/messages/msg_1', 202, headers, example('Message'))[0]).toMatch(/does not declare/);
    expect(conformance.checkResponse('GET', '/messages/msg_1', 403, headers, envelope('consent_required'))[0]).toMatch(/consent_required is not among/);
    expect(conformance.checkResponse('POST', '/messages', 403, headers, envelope('consent_required'))).toEqual([]);
  });

  it('fails missing common headers and unknown routes answered with anything but route_not_found', () => {
    expect(conformance.checkResponse('GET', '/ping', 200, new Headers(), example('PingResult'))).toHaveLength(2);
    expect(conformance.checkResponse('GET', '/nope', 404, headers, envelope('route_not_found'))).toEqual([]);
    expect(conformance.checkResponse('GET', '/nope', 404, headers, envelope('not_found'))).toHaveLength(1);
  });

  it('checks webhook bodies against the webhooks section', () => {
    const event = publicEventSchema('message.status').examples as Record<string, unknown>[];
    expect(conformance.checkWebhookBody(JSON.stringify(event[0]))).toEqual([]);
    const data = { ...(event[0].data as object), state: 'sent' };
    expect(conformance.checkWebhookBody(JSON.stringify({ ...event[0], data }))).toHaveLength(1);
    expect(conformance.checkWebhookBody('{"type":"message.deleted"}')).toHaveLength(1);
  });
});
