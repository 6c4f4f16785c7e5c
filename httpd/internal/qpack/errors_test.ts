import assert from "node:assert/strict";
import {
  FieldSectionTooLargeError,
  QPACK_DECODER_STREAM_ERROR,
  QPACK_DECOMPRESSION_FAILED,
  QPACK_ENCODER_STREAM_ERROR,
  QpackError,
} from "./errors.ts";

Deno.test("QPACK error codes are the values of RFC 9204 6", () => {
  assert.deepEqual(
    [
      QPACK_DECOMPRESSION_FAILED,
      QPACK_ENCODER_STREAM_ERROR,
      QPACK_DECODER_STREAM_ERROR,
    ],
    [0x200, 0x201, 0x202],
  );
});

Deno.test("QpackError carries its code and offset", () => {
  const error = new QpackError("Cannot decode field section: it is empty", {
    code: QPACK_ENCODER_STREAM_ERROR,
    offset: 12,
  });
  assert.ok(error instanceof Error);
  assert.deepEqual([error.name, error.code, error.offset], [
    "QpackError",
    0x201,
    12,
  ]);
});

Deno.test("FieldSectionTooLargeError is a QpackError with QPACK_DECOMPRESSION_FAILED", () => {
  const error = new FieldSectionTooLargeError(16384, 40);
  assert.ok(error instanceof QpackError);
  assert.deepEqual(
    [error.name, error.code, error.limit, error.offset],
    ["FieldSectionTooLargeError", 0x200, 16384, 40],
  );
});
