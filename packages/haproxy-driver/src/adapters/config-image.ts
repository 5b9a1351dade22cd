import fs from 'node:fs/promises';

const NEWLINE = Buffer.from('\n');

/**
 * haproxy.cfg as this driver last wrote it: the sections it was joined from (by "\n"), each section's bytes, and the
 * file's identity right after the write. Writing the next version re-encodes only the sections that are not the
 * very strings of this one, and sends every section's bytes in one vectored write: at 10k backends an endpoint
 * change rewrites the 7 MB file without building a 7 MB string (or the garbage of one) per change.
 */
export class ConfigImage {
  readonly sections: readonly string[];
  readonly #buffers: readonly Buffer[];
  readonly #identity: FileIdentity;
  #text: string | null = null;

  private constructor(sections: readonly string[], buffers: readonly Buffer[], identity: FileIdentity) {
    this.sections = sections;
    this.#buffers = buffers;
    this.#identity = identity;
  }

  /** Writes `sections` joined by "\n" to `file` atomically (temp + rename), reusing `previous`'s bytes of unchanged sections. */
  static async write(file: string, sections: readonly string[], previous: ConfigImage | null = null): Promise<ConfigImage> {
    const before = previous?.sections;
    const buffers = sections.map((s, i) => (before !== undefined && before[i] === s ? (previous!.#buffers[i] ?? Buffer.from(s)) : Buffer.from(s)));
    const parts: Buffer[] = [];
    let total = 0;
    for (const [i, b] of buffers.entries()) {
      if (i > 0) parts.push(NEWLINE);
      parts.push(b);
      total += b.length + (i > 0 ? 1 : 0);
    }
    const temp = `${file}.${process.pid}.tmp`;
    const handle = await fs.open(temp, 'w', 0o644);
    try {
      const { bytesWritten } = await handle.writev(parts);
      if (bytesWritten !== total) throw new Error(`short write of ${file}: ${bytesWritten} of ${total} bytes`);
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
    const stat = await fs.stat(file);
    return new ConfigImage(sections, buffers, identityOf(stat));
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
    const stat = await fs.stat(file).catch(() => null);
    const held = this.#identity;
    return stat !== null && stat.ino === held.ino && stat.size === held.size && stat.mtimeMs === held.mtimeMs;
  }
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
