import { HeldBacklog } from './held-backlog';

describe('the held attempts waiting to be recorded', () => {
  it('never pass the bound, however many claims run before a recording', () => {
    const backlog = new HeldBacklog(400, 200);
    // 100 000 due deliveries of failing endpoints: every claim would hold 200 more.
    for (let claim = 0; claim < 500; claim++) backlog.claimed(Math.min(200, backlog.room()));
    expect(backlog.size).toBe(400);
    expect(backlog.room()).toBe(0);
  });

  it('make room as they are recorded, never more than one claim at a time', () => {
    const backlog = new HeldBacklog(400, 200);
    backlog.claimed(400);
    backlog.recorded(150);
    expect(backlog.room()).toBe(150);
    backlog.recorded(250);
    expect(backlog.room()).toBe(200);
  });

  it('count what was recorded only once, even when a recording reports more than was counted', () => {
    const backlog = new HeldBacklog(400, 200);
    backlog.claimed(10);
    backlog.recorded(30);
    expect(backlog.size).toBe(0);
    expect(backlog.room()).toBe(200);
  });
});
