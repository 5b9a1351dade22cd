// The timeline's filter form: kinds apply at once, the object and the window when the form is submitted.
import { useId, useState } from 'preact/hooks';
import { entryKinds, noFilters, type EntryKind, type TimelineFilters } from './use-timeline.ts';

/** A labelled text input of the filter form. */
function TextField(p: {
  id: string;
  label: string;
  value: string;
  placeholder: string;
  onInput: (v: string) => void;
  testid: string;
  describedBy?: string;
}) {
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      <input
        id={p.id}
        value={p.value}
        placeholder={p.placeholder}
        onInput={(e) => p.onInput(e.currentTarget.value)}
        aria-describedby={p.describedBy}
        data-testid={p.testid}
      />
    </div>
  );
}

/** The kind checkboxes. */
function KindChecks({
  kinds,
  onToggle,
}: {
  kinds: readonly EntryKind[];
  onToggle: (k: EntryKind, on: boolean) => void;
}) {
  return (
    <fieldset class="kinds">
      <legend>Show</legend>
      {entryKinds.map((k) => (
        <label key={k} class="check">
          <input
            type="checkbox"
            checked={kinds.includes(k)}
            onChange={(e) => onToggle(k, e.currentTarget.checked)}
            data-testid={`filter-kind-${k}`}
          />
          {k}
        </label>
      ))}
    </fieldset>
  );
}

/** The text fields: which filter each edits, its label and an example. */
const textFields = [
  { key: 'object', label: 'Kubernetes object', placeholder: 'e.g. shop/web', time: false },
  { key: 'since', label: 'Since', placeholder: '-2h or 2026-11-28T08:00:00Z', time: true },
  { key: 'until', label: 'Until', placeholder: 'now', time: true },
] as const;

/** The filters; `onChange` gets the whole new set. */
export function TimelineFilterForm({
  value,
  onChange,
}: {
  value: TimelineFilters;
  onChange: (f: TimelineFilters) => void;
}) {
  const id = useId();
  const [draft, setDraft] = useState({ object: value.object, since: value.since, until: value.until });
  const toggle = (k: EntryKind, on: boolean): void =>
    onChange({ ...value, kinds: entryKinds.filter((x) => (x === k ? on : value.kinds.includes(x))) });
  const submit = (e: Event): void => {
    e.preventDefault();
    onChange({ ...value, object: draft.object.trim(), since: draft.since.trim(), until: draft.until.trim() });
  };
  const clear = (): void => {
    setDraft({ object: '', since: '', until: '' });
    onChange(noFilters);
  };
  const hint = `${id}-time-hint`;
  return (
    <form class="filters" onSubmit={submit} data-testid="timeline-filters">
      <KindChecks kinds={value.kinds} onToggle={toggle} />
      <div class="filter-fields">
        {textFields.map((f) => (
          <TextField
            key={f.key}
            id={`${id}-${f.key}`}
            label={f.label}
            value={draft[f.key]}
            placeholder={f.placeholder}
            onInput={(v) => setDraft((d) => ({ ...d, [f.key]: v }))}
            testid={`filter-${f.key}`}
            {...(f.time ? { describedBy: hint } : {})}
          />
        ))}
        <div class="filter-buttons">
          <button type="submit" data-testid="filter-apply">
            Apply filters
          </button>
          <button type="button" onClick={clear}>
            Clear
          </button>
        </div>
      </div>
      <p id={hint} class="hint">
        Times: relative (-30m, -2h, -1d) or RFC 3339. The object filter keeps snapshots a matching object caused.
      </p>
    </form>
  );
}
