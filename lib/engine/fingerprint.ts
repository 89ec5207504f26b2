// Failure fingerprints: what makes two failures "the same" on the Failed & poison page. The error number and
// the message with what varies from task to task taken out (uuids, quoted values, hex, numbers) are hashed
// into a short stable key, computed when an attempt fails and stored on its task. The page groups dead
// tasks by (fingerprint, command, queue): the same failure of another command is another group.

/** How long a normalised message may be before it is cut (what is hashed and shown). */
export const MAX_NORMALISED = 1000;

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const SINGLE_QUOTED = /'(?:[^']|'')*'/g;
const DOUBLE_QUOTED = /"(?:[^"\\]|\\.)*"/g;
const HEX = /\b0x[0-9a-f]+\b/gi;
/** a number standing alone (with an optional sign, decimals or exponent) */
const NUMBER = /(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])/gi;
/** a long run of digits inside a word (ids glued to a name: order12345) */
const DIGIT_RUN = /\d{4,}/g;
const SPACE = /\s+/g;

/** The message with what varies between occurrences of the same failure replaced by placeholders. */
export function normaliseMessage(message: string | null | undefined): string {
  if (!message) return '';
  return message
    .replace(UUID, '<uuid>')
    .replace(SINGLE_QUOTED, "'?'")
    .replace(DOUBLE_QUOTED, '"?"')
    .replace(HEX, '0x?')
    .replace(NUMBER, '<n>')
    .replace(DIGIT_RUN, '<n>')
    .replace(SPACE, ' ')
    .trim()
    .slice(0, MAX_NORMALISED);
}

/** FNV-1a, 64 bits, over the UTF-16 code units; 16 hex digits. */
function fnv1a64(text: string): string {
  let h = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * prime) & mask;
  }
  return h.toString(16).padStart(16, '0');
}

/** The fingerprint of a failure: 16 hex digits, the same for the same error number and normalised message. */
export function fingerprint(errorNumber: number | null | undefined, message: string | null | undefined): string {
  return fnv1a64(`${errorNumber ?? ''}\u0000${normaliseMessage(message)}`);
}

/** Length of a fingerprint (the column width in both stores). */
export const FINGERPRINT_LENGTH = 16;
