import fs from 'node:fs/promises';
import { HaproxyConfigWriteError } from '../errors.ts';
import { nullIfMissing } from './haproxy-config-files.ts';

const NEWLINE = Buffer.from('\n');

/** Sections per block: at 10k backends (20k sections, 7 MB) about 80 blocks of about 90 KB. */
export const SECTIONS_PER_BLOCK = 256;

/**
 * haproxy.cfg as this driver last wrote it: the sections it was joined from (by "\n"), their bytes in blocks of
 * SECTIONS_PER_BLOCK consecutive sections, and the file's identity right after the write. Writing the next version
 * re-encodes only the blocks holding a section that differs from this one's (unchanged sections are usually the
 * very same strings, so the comparison is a pointer check), and sends the blocks in one
 * vectored write: at 10k backends an endpoint change rewrites the 7 MB file by encoding one 90 KB block, with about
 * 160 buffers to hand to the kernel. (One buffer per section, 40k of them, kept the applier's event loop busy for
 * 3-9 ms per write: the write could hold up the next change's cycle.)
 */
export class ConfigImage {
  readonly sections: readonly string[];
  readonly #blocks: readonly Buffer[];
  readonly #identity: FileIdentity;
  #text: string | null = null;

  private constructor(sections: readonly string[], blocks: readonly Buffer[], identity: FileIdentity) {
    this.sections = sections;
    this.#blocks = blocks;
    this.#identity = identity;
  }

  /** Writes `sections` joined by "\n" to `file` atomically (temp + rename), reusing `previous`'s bytes of unchanged blocks. */
  static async write(
    file: string,
    sections: readonly string[],
    previous: ConfigImage | null = null,
  ): Promise<ConfigImage> {
    const blocks = encodeBlocks(sections, previous?.sections, previous === null ? [] : previous.#blocks);
    const parts: Buffer[] = [];
    let total = 0;
    for (const [i, b] of blocks.entries()) {
      if (i > 0) parts.push(NEWLINE);
      parts.push(b);
      total += b.length + (i > 0 ? 1 : 0);
    }
    const temp = `${file}.${process.pid}.tmp`;
    const handle = await fs.open(temp, 'w', 0o644);
    try {
      const { bytesWritten } = await handle.writev(parts);
      if (bytesWritten !== total)
        throw new HaproxyConfigWriteError(`short write of ${file}: ${bytesWritten} of ${total} bytes`);
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
    const stat = await fs.stat(file);
    return new ConfigImage(sections, blocks, identityOf(stat));
  }

  /** An image of a file just written, elsewhere, as exactly these sections joined (their bytes are encoded on the next write). */
  static adopt(sections: readonly string[], stat: FileStat): ConfigImage {
    return new ConfigImage(sections, [], identityOf(stat));
  }

  /** An image of a file written as one text by someone else's code path (no sections to reuse). */
  static ofText(text: string, stat: FileStat): ConfigImage {
    const image = new ConfigImage([text], [], identityOf(stat));
    image.#text = text;
    return image;
  }

  /** The whole text (joined on first use). */
  get text(): string {
    return (this.#text ??= this.sections.join('\n'));
  }

  /** Whether `file` is still the file this image wrote (same inode, size and modification time). */
  async isOnDisk(file: string): Promise<boolean> {
    const stat = await fs.stat(file).catch(nullIfMissing);
    const held = this.#identity;
    return stat !== null && stat.ino === held.ino && stat.size === held.size && stat.mtimeMs === held.mtimeMs;
  }
}

/**
 * The bytes of `sections` in blocks of SECTIONS_PER_BLOCK (each block its sections joined by "\n"): a block of
 * `before` whose sections are all equal to the ones at the same positions is reused from `held` (the blocks `before`
 * was written with; missing ones are encoded).
 */
export function encodeBlocks(
  sections: readonly string[],
  before: readonly string[] | undefined,
  held: readonly Buffer[],
): Buffer[] {
  const blocks: Buffer[] = [];
  for (let start = 0, k = 0; start < sections.length; start += SECTIONS_PER_BLOCK, k++) {
    const end = Math.min(start + SECTIONS_PER_BLOCK, sections.length);
    const reusable = held[k];
    let same =
      reusable !== undefined && before !== undefined && Math.min(start + SECTIONS_PER_BLOCK, before.length) === end;
    for (let i = start; same && i < end; i++) same = before![i] === sections[i];
    blocks.push(same ? reusable! : Buffer.from(sections.slice(start, end).join('\n')));
  }
  return blocks;
}

interface FileIdentity {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/** What `ofText` needs of an fs.Stats. */
export type FileStat = FileIdentity;

function identityOf(stat: FileIdentity): FileIdentity {
  return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
}
