import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson } from './canonical-json.ts';
import { ValueTreeEncoder } from './value-tree.ts';
import { JoinedText } from './joined-text.ts';
import { decodeValueTree, treeReferences } from './value-tree-decode.ts';

function store(): { pieces: Map<string, string>; put(e: { pieces: Map<string, string> }): number } {
  const pieces = new Map<string, string>();
  return {
    pieces,
    put: (e) => {
      let bytes = 0;
      for (const [id, t] of e.pieces)
        if (!pieces.has(id)) {
          pieces.set(id, t);
          bytes += t.length;
        }
      return bytes;
    },
  };
}

test('property: any JSON value decodes back to itself (long strings, long arrays, $-keys included)', () => {
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 100 }),
      fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('$ref', '$cat', '$obj', '$tree')), tie('value'), {
        maxKeys: 4,
      }),
      fc
        .array(fc.constantFrom('backend a\n', '    server s1 1.2.3.4:80\n', 'x'.repeat(700)), {
          minLength: 0,
          maxLength: 60,
        })
        .map((parts) => parts.join('')),
    ),
  })).value;
  fc.assert(
    fc.property(json, (value) => {
      const s = store();
      const e = new ValueTreeEncoder().encode(value);
      s.put(e);
      assert.equal(
        canonicalJson(decodeValueTree(s.pieces.get(e.root)!, (id) => s.pieces.get(id))),
        canonicalJson(value),
      );
    }),
    { numRuns: 300 },
  );
});

test('a value sharing most objects with one stored before stores only the changed pieces, and references are listed for level-by-level fetches', () => {
  const backends = Array.from({ length: 5000 }, (_, i) => ({
    name: `b${i}`,
    slots: [{ name: 's1', address: `10.0.${i >> 8}.${i & 255}`, port: 80 }],
  }));
  const config = backends.map((b) => `backend ${b.name}\n    server s1 ${b.slots[0]!.address}:80\n`).join('');
  const enc = new ValueTreeEncoder();
  const s = store();
  const first = enc.encode({ files: [{ path: 'haproxy.cfg', content: config }], backends });
  const full = s.put(first);
  enc.confirm(first.gen);
  const moved = backends.map((b, i) =>
    i === 1234 ? { name: b.name, slots: [{ name: 's1', address: '10.9.9.9', port: 80 }] } : b,
  );
  const second = enc.encode({
    files: [{ path: 'haproxy.cfg', content: config.replace('10.0.4.210:80', '10.9.9.9:80') }],
    backends: moved,
  });
  const delta = s.put(second);
  assert.ok(full > 300_000 && delta < 16_000, `first ${full} bytes, then ${delta} bytes`);
  const decoded = decodeValueTree(s.pieces.get(second.root)!, (id) => s.pieces.get(id)) as { backends: unknown[] };
  assert.equal(
    canonicalJson(decoded),
    canonicalJson({
      files: [{ path: 'haproxy.cfg', content: config.replace('10.0.4.210:80', '10.9.9.9:80') }],
      backends: moved,
    }),
  );
  const reachable = new Set<string>();
  for (let level = [second.root]; level.length > 0;) {
    const next: string[] = [];
    for (const id of level)
      if (!reachable.has(id)) {
        reachable.add(id);
        next.push(...treeReferences(s.pieces.get(id)!));
      }
    level = next;
  }
  assert.ok(
    [...reachable].every((id) => s.pieces.has(id)) && reachable.size > 100,
    `${reachable.size} pieces reachable`,
  );
});

test('pieces of an encode that was never confirmed (its transaction failed) are emitted again', () => {
  const enc = new ValueTreeEncoder();
  const value = { list: Array.from({ length: 200 }, (_, i) => ({ i, pad: 'p'.repeat(40) })) };
  const lost = enc.encode(value);
  const again = enc.encode(value);
  assert.equal(again.root, lost.root);
  assert.deepEqual([...again.pieces.keys()].sort(), [...lost.pieces.keys()].sort(), 'everything is emitted again');
  enc.confirm(again.gen);
  assert.deepEqual([...enc.encode(value).pieces.keys()], [again.root], 'once stored, only the root is new');
});

test('a plain JSON piece (records written before trees) decodes as itself', () => {
  assert.deepEqual(
    decodeValueTree('{"files":[],"backends":[]}', () => undefined),
    { files: [], backends: [] },
  );
});

test('a string registered as parts and a separator is stored part by part and decodes to the joined text', () => {
  const sections = Array.from({ length: 3000 }, (_, i) => `backend b${i}\n    server s1 10.0.0.${i % 250}:80\n`);
  const file = { path: 'haproxy.cfg', content: new JoinedText(sections, '\n') };
  const enc = new ValueTreeEncoder();
  const s = store();
  const first = enc.encode({ files: [file] });
  s.put(first);
  enc.confirm(first.gen);
  assert.equal(
    canonicalJson(decodeValueTree(s.pieces.get(first.root)!, (id) => s.pieces.get(id))),
    canonicalJson({ files: [file] }),
  );
  const changed = sections.map((x, i) => (i === 7 ? 'backend b7\n    server s1 10.9.9.9:80\n' : x));
  const next = { path: 'haproxy.cfg', content: new JoinedText(changed, '\n') };
  const second = enc.encode({ files: [next] });
  const delta = s.put(second);
  assert.ok(delta < 10_000, `one section and the lists above it (${delta} bytes of ${String(file.content).length})`);
  assert.equal(
    (decodeValueTree(s.pieces.get(second.root)!, (id) => s.pieces.get(id)) as { files: { content: string }[] })
      .files[0]!.content,
    changed.join('\n'),
  );
});

test('a text given as parts is encoded without being joined', () => {
  const sections = Array.from({ length: 200 }, (_, i) => `backend b${i}\n    server s1 10.0.0.${i % 250}:80\n`);
  let joins = 0;
  const counted = Object.assign([...sections], {
    join: (separator?: string) => (joins++, sections.join(separator)),
  });
  const file = { path: 'haproxy.cfg', content: new JoinedText(counted, '\n') };
  const s = store();
  const e = new ValueTreeEncoder().encode({ files: [file] });
  s.put(e);
  assert.equal(joins, 0, 'encoding did not join the text');
  assert.equal(
    (decodeValueTree(s.pieces.get(e.root)!, (id) => s.pieces.get(id)) as { files: { content: string }[] }).files[0]!
      .content,
    sections.join('\n'),
  );
});

test('property: part lists encoded by difference from the previous version give the roots and pieces of a fresh encode', () => {
  // Steps on a list of 300 parts: replace some parts (same or new text), or insert/remove one; some encodes are never confirmed.
  const step = fc.record({
    edits: fc.array(
      fc.record({
        at: fc.nat(),
        text: fc.oneof(fc.constantFrom('backend a\n    server s1 10.0.0.1:80', 'same'), fc.string({ maxLength: 30 })),
      }),
      { maxLength: 6 },
    ),
    resize: fc.constantFrom(0, 0, 0, 1, -1),
    confirm: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), fc.constantFrom('\n', ''), (steps, separator) => {
      let parts = Array.from({ length: 300 }, (_, i) => `backend b${i}\n    server s1 10.0.${i >> 8}.${i & 255}:80`);
      const enc = new ValueTreeEncoder();
      const s = store();
      for (const st of steps) {
        parts = parts.slice();
        for (const e of st.edits) parts[e.at % parts.length] = e.text;
        if (st.resize === 1) parts.splice(7, 0, 'inserted');
        if (st.resize === -1) parts.splice(7, 1);
        const file = { path: 'haproxy.cfg', content: new JoinedText(parts, separator) };
        const e = enc.encode({ files: [file] });
        const freshParts = new ValueTreeEncoder();
        const again = { path: 'haproxy.cfg', content: new JoinedText(parts, separator) };
        assert.equal(
          e.root,
          freshParts.encode({ files: [again] }).root,
          'same root as an encoder that never saw a previous version',
        );
        // Every piece the root needs is stored or emitted now (nothing refers to an unconfirmed encode's pieces).
        const visible = new Map([...s.pieces, ...e.pieces]);
        assert.equal(
          canonicalJson(decodeValueTree(visible.get(e.root)!, (id) => visible.get(id))),
          canonicalJson({ files: [file] }),
        );
        if (st.confirm) {
          s.put(e);
          enc.confirm(e.gen);
        }
      }
    }),
    { numRuns: 150 },
  );
});

test('property: long arrays encoded by difference from an earlier version give the roots of a fresh encode', () => {
  // Steps on arrays of objects (kept by identity, as renders keep unchanged backends): replace, insert or remove
  // elements anywhere, or switch to another array sharing an end; some encodes are never confirmed.
  const edit = fc.record({
    kind: fc.constantFrom('replace', 'insert', 'remove'),
    at: fc.nat(),
    run: fc.integer({ min: 1, max: 40 }),
  });
  const step = fc.record({ edits: fc.array(edit, { maxLength: 4 }), other: fc.boolean(), confirm: fc.boolean() });
  let made = 0;
  const element = (): { n: number; pad: string } => ({ n: made++, pad: 'p'.repeat(made % 7) });
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 10 }), fc.integer({ min: 64, max: 400 }), (steps, size) => {
      let list = Array.from({ length: size }, element);
      const other = list.map((x, i) => (i < size / 2 ? element() : x));
      const enc = new ValueTreeEncoder();
      const s = store();
      for (const st of steps) {
        list = st.other ? other.slice() : list.slice();
        for (const e of st.edits) {
          const at = e.at % (list.length + 1);
          if (e.kind === 'replace')
            list.splice(at, e.run, ...Array.from({ length: Math.min(e.run, list.length - at) }, element));
          if (e.kind === 'insert') list.splice(at, 0, ...Array.from({ length: e.run }, element));
          if (e.kind === 'remove' && list.length - e.run >= 64) list.splice(at, e.run);
        }
        const value = { backends: list, other };
        const e = enc.encode(value);
        assert.equal(
          e.root,
          new ValueTreeEncoder().encode(value).root,
          'same root as an encoder that never saw a previous version',
        );
        const visible = new Map([...s.pieces, ...e.pieces]);
        assert.equal(
          canonicalJson(decodeValueTree(visible.get(e.root)!, (id) => visible.get(id))),
          canonicalJson(value),
        );
        if (st.confirm) {
          s.put(e);
          enc.confirm(e.gen);
        }
      }
    }),
    { numRuns: 200 },
  );
});

test('an array that changed in one element re-encodes one chunk, not every element', () => {
  const backends = Array.from({ length: 3000 }, (_, i) => ({ name: `b${i}`, address: `10.0.${i >> 8}.${i & 255}` }));
  const enc = new ValueTreeEncoder();
  const first = enc.encode({ backends });
  enc.confirm(first.gen);
  const moved = backends.slice();
  moved[1500] = { name: 'b1500', address: '10.9.9.9' };
  const second = enc.encode({ backends: moved });
  // The changed chunk, the group holding it, the root: no piece for any of the other ~90 chunks.
  assert.ok(second.pieces.size <= 4, `${second.pieces.size} pieces`);
  assert.equal(second.root, new ValueTreeEncoder().encode({ backends: moved }).root);
});

test('encodeAll: values encoded together share their pieces, and each root is the one a lone encode gives', () => {
  const sections = Array.from({ length: 300 }, (_, i) => `backend b${i}\n    server s1 10.0.${i >> 8}.${i & 255}:80`);
  const file = { path: 'haproxy.cfg', content: new JoinedText(sections, '\n') };
  const backends = Array.from({ length: 300 }, (_, i) => ({
    name: `b${i}`,
    slots: [{ name: 's1', address: `10.0.${i >> 8}.${i & 255}`, port: 80 }],
  }));
  const readBack = { files: [file], backends };
  const operations = [{ objectType: 'reload', payload: { files: [file], backends } }];
  const together = new ValueTreeEncoder().encodeAll([operations, readBack]);
  const alone = [new ValueTreeEncoder().encode(operations), new ValueTreeEncoder().encode(readBack)];
  assert.deepEqual(
    together.roots,
    alone.map((e) => e.root),
  );
  assert.deepEqual(new Set(together.pieces.keys()), new Set([...alone[0]!.pieces.keys(), ...alone[1]!.pieces.keys()]));
  // The operations' tree adds only its own root: the config and the backends are the read-back's pieces.
  assert.equal(together.pieces.size, alone[1]!.pieces.size + 1);
  for (const [i, value] of [operations, readBack].entries()) {
    assert.equal(
      canonicalJson(decodeValueTree(together.pieces.get(together.roots[i]!)!, (id) => together.pieces.get(id))),
      canonicalJson(value),
    );
  }
});
