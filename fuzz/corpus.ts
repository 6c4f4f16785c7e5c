/**
 * The vendored corpora the mutations start from: the llhttp request
 * vectors and the HPACK story files in `tests/testdata/`.
 *
 * @module
 */
import { loadCases } from "../tests/support/llhttp_vectors.ts";

const TESTDATA = new URL("../tests/testdata/", import.meta.url);

/** Every llhttp request case's input bytes (the whole corpus). */
export async function llhttpRequests(): Promise<Uint8Array[]> {
  const files = await sortedNames(new URL("llhttp/request/", TESTDATA), ".md");
  const out: Uint8Array[] = [];
  for (const file of files) {
    for (const c of await loadCases(file)) out.push(c.input);
  }
  return out;
}

/** Names in a folder ending with `suffix`, sorted: the seeds stay reproducible. */
async function sortedNames(dir: URL, suffix: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.endsWith(suffix)) names.push(entry.name);
  }
  return names.sort();
}

/** One HPACK story: header lists and, when the story has them, their wire blocks. */
export interface HpackStory {
  /** Header lists as `[name, value, ...]`. */
  lists: string[][];
  /** The encoded blocks (empty for raw-data stories). */
  wires: Uint8Array[];
}

interface StoryFile {
  cases: { wire?: string; headers: Record<string, string>[] }[];
}

function hex(text: string): Uint8Array {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) {
    out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  }
  return out;
}

/**
 * The HPACK stories of every implementation folder (a few files per folder,
 * which holds the corpus under a few MiB in memory).
 *
 * @param perFolder Story files read from each folder.
 */
export async function hpackStories(perFolder = 6): Promise<HpackStory[]> {
  const root = new URL("hpack/", TESTDATA);
  const stories: HpackStory[] = [];
  const folders: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    if (entry.isDirectory) folders.push(entry.name);
  }
  for (const folder of folders.sort()) {
    const dir = new URL(`${folder}/`, root);
    const names = await sortedNames(dir, ".json");
    for (const name of names.slice(0, perFolder)) {
      const file = JSON.parse(
        await Deno.readTextFile(new URL(name, dir)),
      ) as StoryFile;
      const story: HpackStory = { lists: [], wires: [] };
      for (const c of file.cases) {
        story.lists.push(c.headers.flatMap((h) => Object.entries(h)[0]!));
        if (c.wire !== undefined) story.wires.push(hex(c.wire));
      }
      stories.push(story);
    }
  }
  return stories;
}
