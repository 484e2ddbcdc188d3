import { type Random, stream } from './random.js';
import type { Scenario } from './scenario.js';

const FIRST = [
  'MARIA',
  'JAMES',
  'AISHA',
  'WEI',
  'SOFIA',
  'DMITRI',
  'PRIYA',
  'KOFI',
  'LUCIA',
  'HIRO',
  'FATIMA',
  'OWEN',
];
const LAST = [
  'GARCIA',
  'OKAFOR',
  'NGUYEN',
  'SMIRNOV',
  'PATEL',
  'KOWALSKI',
  'MENDES',
  'TANAKA',
  'HASSAN',
  'BRENNAN',
];

export interface GeneratedClaim {
  /** Index of the claim in the run (a resubmission has its own index). */
  readonly index: number;
  readonly lane: 'pos' | 'batch';
  readonly segment: string;
  /** The wire-form claim, keyed by NCPDP field codes. */
  readonly raw: Record<string, unknown>;
  /** The PHI values in it, for the no-PHI invariant. */
  readonly phi: readonly string[];
  /** Index of the claim it resubmits, if it is a resubmission. */
  readonly resubmitOf?: number;
  /** What it is in the claim's life, when not a first billing. */
  readonly life?: 'correction' | 'reversal' | 'rebill';
  /** The B1 a reversal undoes. */
  readonly reverses?: GeneratedClaim;
}

const REVERSAL_FIELDS = ['101-A1', '104-A4', '201-B1', '402-D2', '403-D3', '401-D1', '407-D7'] as const;

/** Makes claim `index` from the traffic's mix and a seeded random source. */
export function makeClaim(
  s: Scenario,
  index: number,
  random: Random,
  earlier: readonly GeneratedClaim[],
): GeneratedClaim {
  const t = s.traffic;
  if (t.resubmitRate > 0 && earlier.length > 0 && random() < t.resubmitRate) {
    const of = earlier[Math.floor(random() * earlier.length)]!;
    return { ...of, index, resubmitOf: of.resubmitOf ?? of.index };
  }
  const m = mixOf(t);
  const payer = t.payers[pickIndex(random, m.payers)]!;
  const product = t.products[pickIndex(random, m.products)]!;
  const lane = m.lanes[pickIndex(random, m.laneWeights)]!;
  const segment = m.segments[pickIndex(random, m.segmentWeights)]!;
  const cardholder = `ZX${String(Math.floor(random() * 1e7)).padStart(7, '0')}${index.toString(36).toUpperCase()}`;
  const first = FIRST[Math.floor(random() * FIRST.length)]!;
  const last = LAST[Math.floor(random() * LAST.length)]!;
  const dob = `19${String(30 + Math.floor(random() * 70)).padStart(2, '0')}${String(1 + Math.floor(random() * 12)).padStart(2, '0')}${String(1 + Math.floor(random() * 28)).padStart(2, '0')}`;
  // Money from whole cents: never through a float.
  const cents = 500 + Math.floor(random() * 50_000);
  const raw = {
    '103-A3': 'B1',
    '101-A1': payer.bin,
    '104-A4': payer.pcn,
    '301-C1': 'GRP7',
    '302-C2': cardholder,
    '310-CA': first,
    '311-CB': last,
    '304-C4': dob,
    '201-B1': '1234567890',
    '402-D2': String(100_000_000 + index),
    '403-D3': 0,
    '407-D7': product.ndc,
    '442-E7': `${1 + Math.floor(random() * 90)}.000`,
    '405-D5': 30,
    '401-D1': '20261130',
    '409-D9': `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
  };
  // A correction, reversal or rebill replaces the claim drawn, from its own stream: the
  // traffic's draws (and so the rest of the day) stay those of a scenario without them.
  const life = earlier.length > 0 ? lifeOf(s, index, earlier) : undefined;
  if (life !== undefined) return life;
  // Names are common words; the cardholder ID and the date of birth are the values to find.
  return { index, lane, segment, raw, phi: [cardholder, first, last, dob] };
}

/**
 * A correction, a reversal or a rebill of an earlier claim, as the traffic's rates draw them
 * (no draw at all when every rate is 0: scenarios without them keep their random stream).
 */
function lifeOf(s: Scenario, index: number, earlier: readonly GeneratedClaim[]): GeneratedClaim | undefined {
  const t = s.traffic;
  if (t.correctionRate === 0 && t.reversalRate === 0 && t.rebillRate === 0) return undefined;
  // Its own draws, from the seed and the claim's index: the same run, byte for byte, every time.
  const random = stream((s.seed ^ Math.imul(index, 0x9e3779b1)) >>> 0, 'claim-life');
  const x = random();
  const pick = () => earlier[Math.floor(random() * earlier.length)]!;
  if (x < t.correctionRate) {
    const of = pick();
    if (of.raw['103-A3'] !== 'B1') return undefined;
    const raw = { ...of.raw, '442-E7': `${1 + Math.floor(random() * 30)}.000` };
    return {
      index,
      lane: of.lane,
      segment: of.segment,
      raw,
      phi: of.phi,
      resubmitOf: of.resubmitOf ?? of.index,
      life: 'correction',
    };
  }
  if (x < t.correctionRate + t.reversalRate) {
    const of = pick();
    if (of.raw['103-A3'] !== 'B1') return undefined;
    const raw: Record<string, unknown> = { '103-A3': 'B2' };
    for (const f of REVERSAL_FIELDS) raw[f] = of.raw[f];
    return { index, lane: 'batch', segment: of.segment, raw, phi: [], life: 'reversal', reverses: of };
  }
  if (x < t.correctionRate + t.reversalRate + t.rebillRate) {
    // The B1 of an earlier reversal, billed again.
    for (let k = earlier.length - 1, n = 0; k >= 0 && n < 64; k--, n++) {
      const r = earlier[k]!;
      if (r.life !== 'reversal' || r.reverses === undefined) continue;
      const of = r.reverses;
      return {
        index,
        lane: of.lane,
        segment: of.segment,
        raw: of.raw,
        phi: of.phi,
        resubmitOf: of.index,
        life: 'rebill',
      };
    }
  }
  return undefined;
}

/** The traffic's weights as arrays, made once per scenario (the same picks `weighted` makes). */
interface Mix {
  readonly payers: readonly number[];
  readonly products: readonly number[];
  readonly lanes: ReadonlyArray<'pos' | 'batch'>;
  readonly laneWeights: readonly number[];
  readonly segments: readonly string[];
  readonly segmentWeights: readonly number[];
}
const mixes = new WeakMap<Scenario['traffic'], Mix>();
function mixOf(t: Scenario['traffic']): Mix {
  let m = mixes.get(t);
  if (m === undefined) {
    const lanes = Object.entries(t.lanes) as Array<['pos' | 'batch', number]>;
    const segments = Object.entries(t.segments);
    m = {
      payers: t.payers.map((p) => p.weight),
      products: t.products.map((p) => p.weight),
      lanes: lanes.map(([k]) => k),
      laneWeights: lanes.map(([, w]) => w),
      segments: segments.map(([k]) => k),
      segmentWeights: segments.map(([, w]) => w),
    };
    mixes.set(t, m);
  }
  return m;
}

function pickIndex(random: Random, weights: readonly number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let x = random() * total;
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i]!;
    if (x < 0) return i;
  }
  return weights.length - 1;
}

/** The arrival rate at simulated time `t` (ms): the base rate shaped by the peaks. */
export function rateAt(s: Scenario, t: number): number {
  let m = 1;
  for (const p of s.traffic.peaks)
    m += (p.multiplier - 1) * Math.exp(-0.5 * ((t - p.atMs) / (p.widthMs / 2)) ** 2);
  return Math.max(0.0001, s.traffic.ratePerSecond * m);
}
