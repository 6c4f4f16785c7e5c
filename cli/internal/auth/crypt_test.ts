import assert from "node:assert/strict";
import { md5Crypt, shaCrypt, shaCryptAsync } from "./crypt.ts";

// Ulrich Drepper's SHA-crypt specification, and `openssl passwd -5/-6`.
const SHA_VECTORS: [string, string, string][] = [
  [
    "$5$saltstring",
    "Hello world!",
    "$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5",
  ],
  [
    "$5$rounds=10000$saltstringsaltstring",
    "Hello world!",
    "$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA",
  ],
  [
    "$5$rounds=10$roundstoolow",
    "the minimum number is still observed",
    "$5$rounds=1000$roundstoolow$yfvwcWrQ8l/K0DAWyuPMDNHpIVlTQebY9l/gL972bIC",
  ],
  [
    "$6$saltstring",
    "Hello world!",
    "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1",
  ],
  [
    "$6$rounds=10000$saltstringsaltstring",
    "Hello world!",
    "$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.",
  ],
  [
    "$6$rounds=1400$anotherlongsaltstring",
    "a very much longer text to encrypt.  This one even stretches over morethan one line.",
    "$6$rounds=1400$anotherlongsalts$POfYwTEok97VWcjxIiSOjiykti.o/pQs.wPvMxQ6Fm7I6IoYN3CmLs66x9t0oSwbtEW7o7UmJEiDwGqd8p4ur1",
  ],
];

Deno.test("shaCrypt() matches the specification's vectors", async () => {
  for (const [setting, password, hash] of SHA_VECTORS) {
    assert.equal(shaCrypt(password, setting), hash);
    assert.equal(await shaCryptAsync(password, hash), hash);
  }
  assert.equal(shaCrypt("x", "$1$abc"), undefined);
});

Deno.test("md5Crypt() matches openssl passwd -1 and -apr1", () => {
  assert.equal(
    md5Crypt("secret", "abcdefgh", "$apr1$"),
    "$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/",
  );
  assert.equal(
    md5Crypt("hello", "saltsalt", "$1$"),
    "$1$saltsalt$fFhQNRZ9A4AYLdo7vOe8a0",
  );
  // Only eight salt characters count.
  assert.equal(
    md5Crypt("secret", "abcdefghXYZ", "$apr1$"),
    "$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/",
  );
});
