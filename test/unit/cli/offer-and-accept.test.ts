import { describe, expect, it } from 'vitest';
import { AnswerNotApplied, offerAndAccept } from '../../../src/main/cli/voice-peer';

/**
 * offerAndAccept (the CLI's WebRTC calls): libdatachannel's own race when its peer applies a well-formed
 * answer ("Got a remote candidate without ICE transport", seen under load) is not blamed on the agent: the
 * call is made once more and says so; anything else is not retried. The race cannot be provoked on demand
 * with real peers, so the offerers here are stand-ins whose accept() throws what libdatachannel throws.
 */

const race = 'Got a remote candidate without ICE transport';

function offerers(failures: (string | undefined)[]) {
  const made: { offer: string; closed: boolean; accepted?: string }[] = [];
  const make = async () => {
    const failure = failures[made.length];
    const offerer = {
      offer: `v=0 offer ${made.length + 1}`,
      closed: false,
      accepted: undefined as string | undefined,
      accept(answer: string) {
        if (failure !== undefined) throw new Error(failure);
        offerer.accepted = answer;
      },
      close() {
        offerer.closed = true;
      },
    };
    made.push(offerer);
    return offerer;
  };
  return { made, make };
}

describe('offerAndAccept', () => {
  it("makes the call again, once, when the own peer meets libdatachannel's race, and says so", async () => {
    const { made, make } = offerers([race, undefined]);
    const posted: string[] = [];
    const placed = await offerAndAccept(make, async (offerer) => (posted.push(offerer.offer), `answer to ${offerer.offer}`));
    expect(posted).toEqual(['v=0 offer 1', 'v=0 offer 2']);
    expect(placed).toMatchObject({ answer: 'answer to v=0 offer 2', retried: race });
    expect(made.map((offerer) => offerer.closed)).toEqual([true, false]);
  });

  it('does not retry another failure to apply the answer, nor the race a second time', async () => {
    for (const failures of [['Invalid SDP'], [race, race]]) {
      const { made, make } = offerers(failures);
      const error = await offerAndAccept(make, async () => 'v=0 answer').catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(AnswerNotApplied);
      expect((error as Error).message).toBe(`AgentDesk's node-datachannel peer could not apply the agent's answer: ${failures.at(-1)}`);
      expect(made).toHaveLength(failures.length);
      expect(made.every((offerer) => offerer.closed)).toBe(true);
    }
  });

  it("throws the agent's refusal as it is, without a retry", async () => {
    const { made, make } = offerers([]);
    const refusal = new Error('redirected');
    await expect(offerAndAccept(make, async () => Promise.reject(refusal))).rejects.toBe(refusal);
    expect(made).toHaveLength(1);
    expect(made[0]!.closed).toBe(true);
  });
});
