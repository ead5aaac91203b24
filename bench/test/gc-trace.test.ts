import { summarizeGcTrace } from '../lib/gc-trace';

// Lines as Node 24 writes them with --trace-gc-nvp (cut short: each has some 60 fields), beside
// the API's JSON log lines.
const scavenge = (ms: number, pause: number, promoted: number, survived: number, isolate = 0) =>
  `[21359:0x210f7000:${isolate}]    ${ms} ms: pause=${pause} mutator=367.9 gc=s reduce_memory=0 scavenge=20.08 scavenge.roots=0.28 allocated=48706464 promoted=${promoted} new_space_survived=${survived} nodes_died_in_new=1690 promotion_rate=99.3%`;
const markCompact = (ms: number, pause: number, isolate = 0) =>
  `[21359:0x210f7000:${isolate}]    ${ms} ms: pause=${pause} mutator=18.7 gc=mc reduce_memory=0 time_to_safepoint=0.00 promoted=3927848 new_space_survived=0`;

describe('summarizeGcTrace', () => {
  it("counts the main isolate's scavenges and mark-compacts, with their pauses and what they promoted", () => {
    const log = [
      '{"level":30,"msg":"request","route":"/api/auth/refresh","status":200}',
      scavenge(16050, 12.5, 6_578_480, 6_028_760),
      scavenge(16603, 10.6, 0, 5_586_088),
      scavenge(17000, 22.2, 6_712_608, 6_005_240),
      markCompact(17210, 9.4),
      // A worker thread's isolate (the bcrypt threads): not the event loop's pauses.
      scavenge(17300, 80, 99_000_000, 99_000_000, 1),
      markCompact(8238, 140, 1),
    ].join('\n');
    expect(summarizeGcTrace(log)).toEqual({
      scavenges: 3,
      scavengePauseMs: { median: 12.5, max: 22.2 },
      promotedMbPerScavenge: 6.27,
      survivedMbPerScavenge: 5.73,
      markCompacts: 1,
      markCompactPauseMsMax: 9.4,
    });
  });

  it('reads the prefix Node 20 writes (no isolate index) and answers zeros for a log without collections', () => {
    const node20 = '[4242:0x5a1b2c0]     2201 ms: pause=1.7 mutator=240.1 gc=s reduce_memory=0 promoted=4336 new_space_survived=44352';
    expect(summarizeGcTrace(node20)).toMatchObject({ scavenges: 1, scavengePauseMs: { median: 1.7, max: 1.7 }, promotedMbPerScavenge: 0 });
    expect(summarizeGcTrace('{"msg":"listening"}\n')).toEqual({
      scavenges: 0,
      scavengePauseMs: { median: 0, max: 0 },
      promotedMbPerScavenge: 0,
      survivedMbPerScavenge: 0,
      markCompacts: 0,
      markCompactPauseMsMax: 0,
    });
  });
});
