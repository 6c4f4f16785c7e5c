/**
 * What `Request.formData()` and `Request.parts()` do: read a URL-encoded
 * or `multipart/form-data` body within the form limits.
 *
 * @module
 */
import { FormDataError } from "../../form_data_error.ts";
import {
  DEFAULT_FORM_DATA_LIMITS,
  type FormDataLimits,
  type FormDataOptions,
  FormPart,
} from "../../form_data.ts";
import { HttpHeaders } from "../../headers.ts";
import { ChunkQueue } from "../chunk_queue.ts";
import type { BodyReader } from "../../request.ts";
import { formEncoding } from "./content_type.ts";
import { MultipartReader } from "./reader.ts";

/** Takes the request's body reader (marking the body used), if it has one. */
export type TakeBody = () => BodyReader | null;

const AMPERSAND = 0x26;
const EMPTY: BodyReader = {
  length: 0,
  read: () => Promise.resolve(null),
  cancel() {},
};

/**
 * Applies form options over the defaults.
 *
 * @param options The limits to change.
 * @returns The limits.
 * @throws {RangeError} On a limit that is not a non-negative integer or
 * `Infinity`.
 */
export function formLimits(
  options: FormDataOptions | undefined,
): Readonly<FormDataLimits> {
  if (options === undefined) return DEFAULT_FORM_DATA_LIMITS;
  const limits = { ...DEFAULT_FORM_DATA_LIMITS };
  for (const key of Object.keys(limits) as (keyof FormDataLimits)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (
      typeof value !== "number" || value < 0 ||
      !(Number.isInteger(value) || value === Infinity)
    ) {
      throw new RangeError(
        `Cannot use form limit "${key}": ${value} is not a non-negative integer`,
      );
    }
    limits[key] = value;
  }
  return limits;
}

/**
 * Reads a whole form: fields as strings, file parts as `File`s.
 *
 * @param take Takes the body; called once the content type is accepted.
 * @param contentType The request's `Content-Type`.
 * @param bodyLimit The request's cap on body bytes.
 * @param options Form limits to change.
 * @returns The form.
 * @throws {FormDataError} For an unsupported type, a broken body or a limit.
 */
export async function readFormData(
  take: TakeBody,
  contentType: string | undefined,
  bodyLimit: number,
  options: FormDataOptions | undefined,
): Promise<FormData> {
  const limits = formLimits(options);
  const encoding = formEncoding(contentType);
  const source = take() ?? EMPTY;
  if (encoding.kind === "urlencoded") {
    return parseUrlEncoded(await readAll(source, bodyLimit), limits);
  }
  const reader = new MultipartReader(
    source,
    encoding.boundary,
    limits,
    bodyLimit,
  );
  const form = new FormData();
  for (let head = await reader.next(); head; head = await reader.next()) {
    const index = reader.partIndex;
    if (head.filename === undefined) {
      const decoder = new TextDecoder();
      let text = "";
      for (let c = await reader.read(index); c; c = await reader.read(index)) {
        text += decoder.decode(c, { stream: true });
      }
      form.append(head.name, text + decoder.decode());
    } else {
      // Merged as they come: an upload trickled a byte at a time costs its
      // bytes, not an array per byte.
      const chunks = new ChunkQueue();
      for (let c = await reader.read(index); c; c = await reader.read(index)) {
        chunks.push(c);
      }
      const content = chunks.take() as Uint8Array<ArrayBuffer>;
      form.append(
        head.name,
        new File([content], head.filename, { type: head.contentType ?? "" }),
      );
    }
  }
  return form;
}

/**
 * Reads a `multipart/form-data` body part by part.
 *
 * @param take Takes the body; called once the content type is accepted.
 * @param contentType The request's `Content-Type`.
 * @param bodyLimit The request's cap on body bytes.
 * @param options Form limits to change.
 * @returns The parts, read as they are iterated.
 * @throws {FormDataError} At once for an unsupported type or a declared
 * length over `bodyLimit`; while iterating for a broken body or a limit.
 */
export function readParts(
  take: TakeBody,
  contentType: string | undefined,
  bodyLimit: number,
  options: FormDataOptions | undefined,
): AsyncIterableIterator<FormPart> {
  const limits = formLimits(options);
  const encoding = formEncoding(contentType);
  if (encoding.kind !== "multipart") {
    throw new FormDataError(
      "UNSUPPORTED_MEDIA_TYPE",
      "Cannot read parts: a URL-encoded form has none, read it with formData()",
    );
  }
  const reader = new MultipartReader(
    take() ?? EMPTY,
    encoding.boundary,
    limits,
    bodyLimit,
  );
  return partsOf(reader);
}

async function* partsOf(
  reader: MultipartReader,
): AsyncGenerator<FormPart, void, undefined> {
  try {
    for (let head = await reader.next(); head; head = await reader.next()) {
      const index = reader.partIndex;
      yield new FormPart({
        name: head.name,
        filename: head.filename,
        contentType: head.contentType,
        headers: HttpHeaders.fromTrusted(head.names, head.values),
        // No high-water mark: a chunk is read from the body only when the
        // consumer asks for one.
        body: new ReadableStream<Uint8Array>({
          pull: async (controller) => {
            const chunk = await reader.read(index);
            if (chunk === null) controller.close();
            else controller.enqueue(chunk);
          },
        }, { highWaterMark: 0 }),
      });
    }
  } finally {
    reader.close();
  }
}

async function readAll(source: BodyReader, limit: number): Promise<Uint8Array> {
  if (source.length !== undefined && source.length > limit) {
    source.cancel();
    throw bodyTooLarge(limit);
  }
  const chunks = new ChunkQueue();
  for (let c = await source.read(); c !== null; c = await source.read()) {
    if (chunks.length + c.length > limit) {
      source.cancel();
      throw bodyTooLarge(limit);
    }
    chunks.push(c);
  }
  return chunks.take();
}

/** WHATWG URL standard `application/x-www-form-urlencoded` parsing. */
function parseUrlEncoded(
  bytes: Uint8Array,
  limits: Readonly<FormDataLimits>,
): FormData {
  let fields = 0;
  for (let start = 0; start <= bytes.length;) {
    let end = bytes.indexOf(AMPERSAND, start);
    if (end === -1) end = bytes.length;
    if (end > start) {
      if (++fields > limits.maxParts) {
        throw new FormDataError(
          "TOO_MANY_PARTS",
          `Cannot read form: more than ${limits.maxParts} fields`,
        );
      }
      if (end - start > limits.maxFieldBytes) {
        throw new FormDataError(
          "PART_TOO_LARGE",
          `Cannot read form: field ${fields} exceeds ${limits.maxFieldBytes} bytes`,
        );
      }
    }
    start = end + 1;
  }
  const form = new FormData();
  if (fields === 0) return form;
  const params = new URLSearchParams(new TextDecoder().decode(bytes));
  for (const [name, value] of params) form.append(name, value);
  return form;
}

function bodyTooLarge(limit: number): FormDataError {
  return new FormDataError(
    "BODY_TOO_LARGE",
    `Cannot read form: the body exceeds ${limit} bytes`,
  );
}
