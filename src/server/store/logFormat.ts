/**
 * One line of the server's mutation log: `{"crc":"<crc32 hex of payload>","m":<payload>}`.
 * The checksum covers the exact payload bytes, so a torn or bit-flipped line is detected
 * without re-serialising anything.
 */
import { crc32 } from 'node:zlib';

const PREFIX = '{"crc":"';
const MIDDLE = '","m":';
const CRC_LEN = 8;
const PAYLOAD_START = PREFIX.length + CRC_LEN + MIDDLE.length;

const crcHex = (text: string): string => crc32(text).toString(16).padStart(CRC_LEN, '0');

/**
 * The one writer of a log line, as the bytes the log writes: the payload is encoded to UTF-8
 * once, in place, and its checksum taken on those bytes (`crc32` of a string would encode it
 * again, and a line string would be encoded a third time by the write).
 */
export const encodeLineBytes = (value: unknown): Buffer => {
  const payload = JSON.stringify(value);
  const size = Buffer.byteLength(payload, 'utf8');
  const line = Buffer.allocUnsafe(PAYLOAD_START + size + 2);
  line.write(payload, PAYLOAD_START, size, 'utf8');
  line.write(PREFIX, 0, 'latin1');
  line.write(crc32(line.subarray(PAYLOAD_START, PAYLOAD_START + size)).toString(16).padStart(CRC_LEN, '0'), PREFIX.length, 'latin1');
  line.write(MIDDLE, PREFIX.length + CRC_LEN, 'latin1');
  line[PAYLOAD_START + size] = 0x7d; // '}'
  line[PAYLOAD_START + size + 1] = 0x0a; // '\n'
  return line;
};

export type LineCheck = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/** Verifies one line (without its newline) and parses its payload. */
export const decodeLine = (line: string): LineCheck => {
  if (!line.startsWith(PREFIX) || line.slice(PREFIX.length + CRC_LEN, PAYLOAD_START) !== MIDDLE || !line.endsWith('}')) {
    return { ok: false, reason: 'not a log line' };
  }
  const crc = line.slice(PREFIX.length, PREFIX.length + CRC_LEN);
  const payload = line.slice(PAYLOAD_START, -1);
  if (crcHex(payload) !== crc) return { ok: false, reason: 'checksum mismatch' };
  try {
    const value: unknown = JSON.parse(payload);
    return { ok: true, value };
  } catch {
    return { ok: false, reason: 'payload is not JSON' };
  }
};

const PREFIX_BYTES = Buffer.from(PREFIX);
const MIDDLE_BYTES = Buffer.from(MIDDLE);
const CLOSE = 0x7d; // '}'

/**
 * `decodeLine` over bytes `[start, end)` of a buffer (no newline): the checksum is taken on
 * the bytes in place, so a large file is never turned into one string.
 */
export const decodeLineBytes = (buf: Buffer, start: number, end: number): LineCheck => {
  const crcStart = start + PREFIX_BYTES.length;
  const payloadStart = crcStart + CRC_LEN + MIDDLE_BYTES.length;
  if (
    end - start < PAYLOAD_START + 1 ||
    buf.compare(PREFIX_BYTES, 0, PREFIX_BYTES.length, start, crcStart) !== 0 ||
    buf.compare(MIDDLE_BYTES, 0, MIDDLE_BYTES.length, crcStart + CRC_LEN, payloadStart) !== 0 ||
    buf[end - 1] !== CLOSE
  ) {
    return { ok: false, reason: 'not a log line' };
  }
  const crc = buf.toString('latin1', crcStart, crcStart + CRC_LEN);
  if (crc32(buf.subarray(payloadStart, end - 1)).toString(16).padStart(CRC_LEN, '0') !== crc) return { ok: false, reason: 'checksum mismatch' };
  try {
    const value: unknown = JSON.parse(buf.toString('utf8', payloadStart, end - 1));
    return { ok: true, value };
  } catch {
    return { ok: false, reason: 'payload is not JSON' };
  }
};
