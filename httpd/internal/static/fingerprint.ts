/**
 * Recognises fingerprinted file names, such as `app.3f9a1c2e.js` or Vite's
 * `index-D4wQ1x9Z.js`, whose content never changes under the same name.
 *
 * @module
 */

/** `Cache-Control` for fingerprinted files: a year (the RFC 9111 section
 * 5.2.2.1 practical maximum) and `immutable` (RFC 8246), so browsers do not
 * even revalidate on reload. */
export const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable";

// A hash segment before the extension, after `.` or `-`: 8 or more
// base64url characters mixing letters and digits. Dates (digits only) and
// words (letters only) do not qualify.
const HASH = /[.-]([A-Za-z0-9_]{8,64})\.[A-Za-z0-9]+$/;

/**
 * Tells whether a path's file name carries a content fingerprint.
 *
 * @param path A URL path.
 * @returns `true` for names such as `app.3f9a1c2e.js`.
 */
export function isFingerprinted(path: string): boolean {
  const m = HASH.exec(path.slice(path.lastIndexOf("/") + 1));
  if (m === null) return false;
  const hash = m[1]!;
  return /\d/.test(hash) && /[A-Za-z]/.test(hash);
}
