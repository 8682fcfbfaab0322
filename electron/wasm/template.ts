/**
 * Line shapes: a flood repeats one shape of message with other values — every response of a
 * burst is `{"jsonrpc":"2.0","id":<n>,"result":{"content":[{"type":"text","text":"<s>"}]}}`. A
 * template is such a shape learned from a line the machine (json-scan.ts) found valid: its bytes
 * outside value strings and numbers (structure, keys, literals, whitespace) kept as literals,
 * its value strings and numbers as slots between them, and where its captured members lie.
 *
 * A later line matches when every literal is there byte for byte and every slot holds a valid
 * string body or number. It then has the same tokens in the same order as the template's line,
 * so it is valid and its results are the template's, each capture moved by the slots' lengths
 * — what the machine would have found, for a fraction of its work (a few compares and the
 * string skips, instead of a state step per token). Any miss goes to the machine, which gives
 * the exact results and errors; so a template only has to be right when it matches.
 *
 * Memory: TPL (layout.ts) holds TEMPLATES templates; LSTARTS where a match found each literal.
 */

import { isHex, isWs, skip } from './bytes';
import { capMax, capSlot, LSTARTS, R_PRESENT, R_TOP, slot, TPL, TPL_SIZE } from './layout';

const TEMPLATES: u32 = 4;
const MAX_SLOTS: u32 = 64;
// A template's header (byte offsets), then its literals' bytes at LITS.
const H_SLOTS: u32 = 0; // u32: slot count k (k + 1 literals)
const H_TOP: u32 = 4;
const H_PRESENT: u32 = 8;
const H_CAPS: u32 = 16; // per member f (1..6) at H_CAPS + 16 (f - 1): start literal, offset; end literal, offset
const H_KINDS: u32 = 128; // u8 per slot: 0 string body, 1 number
const H_LENS: u32 = 192; // u32 per literal: its length
const LITS: u32 = 512;
const LIT_MAX: u32 = TPL_SIZE - LITS;

let count: u32 = 0; // templates learned (at most TEMPLATES)
let mru: u32 = 0; // the one that matched last
/**
 * Templates are paid for by matches. Trying them: each match earns two credits (up to
 * CREDIT_MAX), each line no template matched costs one. Learning: a shape costs LEARN_COST
 * learning credits, and earns twice that back the first time a line matches it. Out of either
 * credit, templates are tried — or shapes learned — on one line in 64 drawn at random (a fixed
 * period could lock onto the same kind of line in a regular mix). So lines whose shapes never
 * repeat (arrays of any length, a new key each time) cost little more than the machine, even
 * between lines that do repeat, and a flood that starts repeating is caught within a few
 * hundred lines.
 */
const CREDIT_MAX: u32 = 64;
const LEARN_COST: u32 = 4;
const LEARN_MAX: u32 = 16;
let credit: u32 = CREDIT_MAX;
let learnCredit: u32 = LEARN_MAX;
/** Bit t: template t has not been matched since it was learned (its learning not paid back). */
let unpaid: u32 = 0;
let seed: u32 = 0x9e3779b9;
/** A template being written, or whose learning failed: never matched. */
const INVALID: u32 = 0xffffffff;

/** True on one call in 64, at random (xorshift32). */
function oneIn64(): bool {
  let x = seed;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  seed = x;
  return (x & 63) === 0;
}

let enabled: bool = true;
let matched: u32 = 0; // lines answered since setTemplates
let matchedNewline: u32 = 0; // the \n after the line matched last

/** Tests compare runs with and without templates (the machine alone is the reference), and
 *  count the lines a template answered (`templateLines`). */
export function setTemplates(on: bool): void {
  enabled = on;
  matched = 0;
  count = 0;
  mru = 0;
  credit = CREDIT_MAX;
  learnCredit = LEARN_MAX;
  unpaid = 0;
  seed = 0x9e3779b9;
}

function at(t: u32): u32 {
  return TPL + t * TPL_SIZE;
}

function same(a: u32, b: u32, n: u32): bool {
  while (n >= 16) {
    if (v128.any_true(v128.xor(v128.load(a), v128.load(b)))) return false;
    a += 16;
    b += 16;
    n -= 16;
  }
  while (n >= 4) {
    if (load<u32>(a) !== load<u32>(b)) return false;
    a += 4;
    b += 4;
    n -= 4;
  }
  while (n > 0) {
    if (load<u8>(a) !== load<u8>(b)) return false;
    a++;
    b++;
    n--;
  }
  return true;
}

/** A string's body from p (after its opening quote): where its closing quote is, or 0 when the
 *  body is not valid JSON (a control byte, a bad escape) or does not end before `end`. */
function stringEnd(p: u32, end: u32): u32 {
  let j = skip(p, end);
  while (j < end) {
    const c = <u32>load<u8>(j);
    if (c === 0x22) return j;
    if (c !== 0x5c || j + 1 >= end) return 0;
    const e = <u32>load<u8>(j + 1);
    if (e === 0x75) {
      if (j + 6 > end) return 0;
      for (let k: u32 = 2; k < 6; k++) if (!isHex(<u32>load<u8>(j + k))) return 0;
      j = skip(j + 6, end);
    } else if (
      e === 0x22 ||
      e === 0x5c ||
      e === 0x2f ||
      e === 0x62 ||
      e === 0x66 ||
      e === 0x6e ||
      e === 0x72 ||
      e === 0x74
    ) {
      j = skip(j + 2, end);
    } else {
      return 0;
    }
  }
  return 0;
}

function digits(p: u32, end: u32): u32 {
  while (p < end && <u32>load<u8>(p) - 0x30 < 10) p++;
  return p;
}

/** A JSON number from p: where it ends (the first byte that cannot go on it), or 0. A byte
 *  after it that cannot follow (a digit after a leading zero) fails the next literal. */
function numberEnd(p: u32, end: u32): u32 {
  if (p < end && load<u8>(p) === 0x2d) p++;
  if (p >= end) return 0;
  const c = <u32>load<u8>(p);
  if (c === 0x30) p++;
  else if (c - 0x31 < 9) p = digits(p + 1, end);
  else return 0;
  if (p < end && load<u8>(p) === 0x2e) {
    const s = p + 1;
    p = digits(s, end);
    if (p === s) return 0;
  }
  if (p < end && (<u32>load<u8>(p) | 0x20) === 0x65) {
    let s = p + 1;
    if (s < end && (load<u8>(s) === 0x2b || load<u8>(s) === 0x2d)) s++;
    p = digits(s, end);
    if (p === s) return 0;
  }
  return p;
}

/**
 * Whether a line at p has template t's shape: where it ends (one \r before its \n left out, as
 * the splitter does; the \n in matchedNewline), or 0. LSTARTS then holds where each literal is.
 */
function matches(t: u32, p: u32, end: u32): u32 {
  const base = at(t);
  const k = load<u32>(base + H_SLOTS);
  if (k === INVALID) return 0;
  let lit = base + LITS;
  for (let i: u32 = 0; ; i++) {
    const n = load<u32>(base + H_LENS + (i << 2));
    if (p + n > end || !same(p, lit, n)) return 0;
    store<u32>(LSTARTS + (i << 2), p);
    p += n;
    lit += n;
    if (i === k) break;
    p = load<u8>(base + H_KINDS + i) === 0 ? stringEnd(p, end) : numberEnd(p, end);
    if (p === 0) return 0;
  }
  // The line must end here: \n, or \r\n. (A template whose last literal ends in \r would read
  // `…\r\n` as ending after that \r, where the splitter ends it before: not a match.)
  if (p >= end) return 0;
  const c = load<u8>(p);
  if (c === 0x0a) {
    if (load<u8>(p - 1) === 0x0d) return 0; // (a template's line is never empty)
    matchedNewline = p;
    return p;
  }
  if (c === 0x0d && p + 1 < end && load<u8>(p + 1) === 0x0a) {
    matchedNewline = p + 1;
    return p;
  }
  return 0;
}

/** Writes template t's results for the line just matched, as the machine leaves them. */
function results(t: u32): void {
  const base = at(t);
  const present = load<u32>(base + H_PRESENT);
  store<i32>(slot(R_TOP), load<i32>(base + H_TOP));
  store<i32>(slot(R_PRESENT), <i32>present);
  for (let f: u32 = 1; f <= 6; f++) {
    if (((present >> f) & 1) === 0) continue;
    const c = base + H_CAPS + ((f - 1) << 4);
    const s = load<u32>(LSTARTS + (load<u32>(c) << 2)) + load<u32>(c + 4);
    store<i32>(capSlot(f, 0), <i32>s);
    store<i32>(capSlot(f, 1), 0);
    store<i32>(capSlot(f, 2), 0);
    store<i32>(capSlot(f, 3), 0);
    const max = capMax(f);
    if (max === 0) continue;
    const n = load<u32>(LSTARTS + (load<u32>(c + 8) << 2)) + load<u32>(c + 12) - s;
    if (n > max) store<i32>(capSlot(f, 2), 1);
    else store<i32>(capSlot(f, 1), <i32>n);
  }
}

/** The newline after the line `lineFromTemplate` matched last. */
export function templateNewline(): u32 {
  return matchedNewline;
}

/**
 * The line at p (its bytes before `end`) from a template it matches: its results written where
 * the machine writes them (RES) and where it ends, one \r before its \n left out (its \n:
 * templateNewline()); 0 when no template matches or the line is over `maxLen` (the caller
 * splits and scans it, or reports it over the limit).
 */
export function lineFromTemplate(p: u32, end: u32, maxLen: u32): u32 {
  if (!enabled || count === 0) return 0;
  if (credit === 0 && !oneIn64()) return 0;
  let t = mru;
  let e = matches(t, p, end);
  if (e === 0) {
    for (t = 0; t < count; t++) {
      if (t === mru) continue;
      e = matches(t, p, end);
      if (e !== 0) break;
    }
    if (t === count) {
      if (credit > 0) credit--;
      return 0;
    }
    mru = t;
  }
  if (e - p > maxLen) return 0; // over the limit: the caller's to report
  credit = min(CREDIT_MAX, credit + 2);
  if ((unpaid >> t) & 1) {
    unpaid &= ~(1 << t);
    learnCredit = min(LEARN_MAX, learnCredit + 2 * LEARN_COST);
  }
  results(t);
  matched++;
  return e;
}

export function templateLines(): u32 {
  return matched;
}

// --- learning ---------------------------------------------------------------------------------

let learnK: u32 = 0;
let learnLit: u32 = 0; // bytes of literals so far
let learnFrom: u32 = 0; // where the literal being learned starts (in the line)

/** The literal being learned ends at `end`. False when the literals would not fit. */
function literal(base: u32, end: u32): bool {
  const n = end - learnFrom;
  if (learnLit + n > LIT_MAX) return false;
  memory.copy(base + LITS + learnLit, learnFrom, n);
  store<u32>(base + H_LENS + (learnK << 2), n);
  learnLit += n;
  return true;
}

/** A slot of `kind` at [start, end): ends the literal before it. False over a cap. */
function slotOf(base: u32, start: u32, kind: u32, end: u32): bool {
  if (learnK === MAX_SLOTS || !literal(base, start)) return false;
  store<u8>(base + H_KINDS + learnK, <u8>kind);
  learnK++;
  learnFrom = end;
  store<u32>(LSTARTS + (learnK << 2), end);
  return true;
}

/** Literal i and the offset in it of line position x (the first literal that holds it), from
 *  where learning found each literal (LSTARTS). */
function locate(base: u32, x: u32, out: u32): bool {
  for (let i: u32 = 0; i <= learnK; i++) {
    const s = load<u32>(LSTARTS + (i << 2));
    if (x >= s && x <= s + load<u32>(base + H_LENS + (i << 2))) {
      store<u32>(out, i);
      store<u32>(out + 4, x - s);
      return true;
    }
  }
  return false; // never: a value's first and last bytes lie in literals
}

function tryLearn(base: u32, from: u32, end: u32): bool {
  // A member over its cap or kept in its own area has no end in the line to learn.
  const present = <u32>load<i32>(slot(R_PRESENT));
  for (let f: u32 = 1; f <= 6; f++) {
    if (((present >> f) & 1) === 0) continue;
    if (load<i32>(capSlot(f, 2)) !== 0 || load<i32>(capSlot(f, 3)) !== 0) return false;
  }
  // From here the template is rewritten: unusable until whole (a learning that fails part-way
  // leaves it so, never half the old shape and half the new).
  store<u32>(base + H_SLOTS, INVALID);
  learnK = 0;
  learnLit = 0;
  learnFrom = from;
  store<u32>(LSTARTS, from);
  let p = from;
  while (p < end) {
    const c = <u32>load<u8>(p);
    if (c === 0x22) {
      const close = stringEnd(p + 1, end);
      if (close === 0) return false; // never: the machine found the line valid
      let q = close + 1;
      while (q < end && isWs(<u32>load<u8>(q))) q++;
      if (q < end && load<u8>(q) === 0x3a) {
        p = close + 1; // a key: part of the literal
        continue;
      }
      if (!slotOf(base, p + 1, 0, close)) return false;
      p = close + 1;
    } else if (c === 0x2d || c - 0x30 < 10) {
      const e = numberEnd(p, end);
      if (!slotOf(base, p, 1, e)) return false;
      p = e;
    } else {
      p++;
    }
  }
  if (!literal(base, end)) return false;
  store<u32>(base + H_TOP, <u32>load<i32>(slot(R_TOP)));
  store<u32>(base + H_PRESENT, present);
  for (let f: u32 = 1; f <= 6; f++) {
    if (((present >> f) & 1) === 0) continue;
    const c = base + H_CAPS + ((f - 1) << 4);
    const s = <u32>load<i32>(capSlot(f, 0));
    if (!locate(base, s, c) || !locate(base, s + <u32>load<i32>(capSlot(f, 1)), c + 8)) {
      return false;
    }
  }
  store<u32>(base + H_SLOTS, learnK);
  return true;
}

/** The machine found [from, end) valid (its results are in RES): learns its shape, when
 *  there is learning credit for it (see CREDIT_MAX). */
export function learn(from: u32, end: u32): void {
  if (!enabled) return;
  if (learnCredit >= LEARN_COST) learnCredit -= LEARN_COST;
  else if (!oneIn64()) return;
  // A free place, else any but the one that matched last, at random (a fixed order would
  // evict, in a cycle of five shapes, always the one needed next).
  let t = count;
  const fresh = t < TEMPLATES;
  if (!fresh) {
    t = (mru + 1 + (seed % (TEMPLATES - 1))) % TEMPLATES;
    oneIn64(); // next draw
  }
  if (!tryLearn(at(t), from, end)) return;
  unpaid |= 1 << t;
  mru = t;
  if (fresh) count++;
}
