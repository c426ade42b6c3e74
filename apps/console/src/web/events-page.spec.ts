import { API_VERSION, type PublicEventEnvelope } from '#platform/contracts';
import { eventsHref, eventsPage, eventTypeFilter } from './events-page';

const NOW = new Date('2026-10-14T12:00:00.000Z');
const event: PublicEventEnvelope = {
  id: 'evt_01JD3QD6K9M2P5S8V1Y4B7E0GJ',
  type: 'message.received',
  apiVersion: API_VERSION,
  created: Math.floor(NOW.getTime() / 1000) - 120,
  appId: 'app_1',
  data: { id: 'msg_1', from: 'u_1', type: 'text', text: '<script>alert(1)</script>', media: [], timestamp: '2026-10-14T11:58:00.000Z' },
};

describe('the events page', () => {
  it('reads a type it knows, and anything else as any', () => {
    expect(eventTypeFilter('consent.updated')).toBe('consent.updated');
    for (const value of ['webhook.test', '', undefined, ['message.status']]) expect(eventTypeFilter(value)).toBeNull();
  });

  it('links the next page with the filter kept', () => {
    expect(eventsHref('app_1', 'message.status', 'ZXZ0')).toBe('/apps/app_1/events?type=message.status&cursor=ZXZ0');
    expect(eventsHref('app_1', null)).toBe('/apps/app_1/events');
  });

  it('shows each event with its time and its data escaped, and the next page when there is one', () => {
    const page = eventsPage('app_1', 'message.received', [event], 'ZXZ0', NOW).value;
    expect(page).toContain(event.id);
    expect(page).toContain('<time datetime="2026-10-14T11:58:00.000Z"');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>');
    expect(page).toContain('<option value="message.received" selected');
    expect(page).toContain('href="/apps/app_1/events?type=message.received&amp;cursor=ZXZ0"');
  });

  it('says when there is nothing to show', () => {
    const page = eventsPage('app_1', 'consent.updated', [], null, NOW).value;
    expect(page).toContain('No events of type consent.updated in the last 30 days.');
    expect(page).not.toContain('Older events');
  });
});
