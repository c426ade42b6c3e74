import { appWithTester, expectStatus, sendMessage, simSendText, spawnApp, stackPid, unique, waitForExit } from '#platform/testing';

const PORT = Number(process.env.TEST_BASE_PORT ?? 4000) + 10;

describe('messaging restarted after kill -9 (e2e)', () => {
  /**
   * Bounded by the groups' session (KAFKA_SESSION_TIMEOUT_MS, 3 s): the dead member keeps its partitions
   * until it lapses (kafkajs has no static membership), while the replacement starts its consumers.
   */
  it('serves sends again within 5 s of the kill: the dead member does not hold its groups for a long session', async () => {
    const { app, userId, appUserId } = await appWithTester();
    // An open window: the sends are not business-initiated (capped at 3 a day).
    await simSendText(userId, app.appId);
    const send = (text: string) => sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text }, unique('idem-restart-'));
    expectStatus(await send('before the kill'), 202);

    const pid = stackPid('messaging');
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    await waitForExit(pid);
    // As Kubernetes would: a new process at once, with a new member id in every group.
    const replacement = spawnApp('messaging', PORT, { logName: 'test-messaging-after-kill', replaces: true });

    let servedAt = 0;
    let last: unknown = null;
    while (Date.now() - killedAt < 30_000 && servedAt === 0) {
      if (replacement.exitCode !== null) throw new Error(`the replacement exited with ${replacement.exitCode}`);
      const res = await send('after the kill');
      last = [res.status, res.body];
      if (res.status === 202) servedAt = Date.now();
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (servedAt - killedAt) / 1000;
    process.stdout.write(`messaging served a send ${seconds.toFixed(1)} s after kill -9 (last refusal ${JSON.stringify(last)})\n`);
    expect(servedAt).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(5);
  });
});
