import type { DirtySet } from './incremental/dirty-set.ts';
import { wholeWorld } from './plan-from-scratch.ts';
import type { PlanEngine } from './stages/plan-engine.ts';
import type { World } from './world/world.ts';

/** An appliance whose plan threw: it keeps its last snapshot; the next plans start it again from the whole world. */
export interface PlanFailure {
  readonly appliance: string;
  readonly error: unknown;
}

/** One appliance's plan of a pass. */
export interface EnginePlan {
  readonly engine: PlanEngine;
  readonly result: ReturnType<PlanEngine['plan']>;
}

/**
 * The appliances' engines, each planned in isolation. A plan that throws (a bug meeting some input) must not stop
 * the other appliances, nor the fold: the engine, whose state the throw left half-moved, is made anew and planned
 * over the whole world at once; if that throws too, the appliance keeps its last snapshot and the next pass tries
 * again. The same events fail the same way on replay, so replays still reproduce every hash.
 */
export class EngineSet {
  private readonly engines: PlanEngine[];
  private readonly make: (i: number) => PlanEngine;
  /** Engines made anew after a failed plan: their next plan is over the whole world. */
  private readonly rebuilt = new Set<PlanEngine>();
  private failures: PlanFailure[] = [];

  /** `make(i)` creates engine `i` empty (the same appliance every time). */
  constructor(count: number, make: (i: number) => PlanEngine) {
    this.make = make;
    this.engines = Array.from({ length: count }, (_, i) => make(i));
  }

  get all(): readonly PlanEngine[] {
    return this.engines;
  }

  find(appliance: string): PlanEngine | undefined {
    return this.engines.find((e) => e.profile.name === appliance);
  }

  /** Plans every engine the dirty set affects (and every rebuilt one); the ones that planned, in order. */
  plan(world: World, dirty: DirtySet): EnginePlan[] {
    const out: EnginePlan[] = [];
    for (let i = 0; i < this.engines.length; i++) {
      const engine = this.engines[i]!;
      const fresh = this.rebuilt.has(engine);
      if (!fresh && !engine.isAffected(dirty)) continue;
      const planned = this.planIsolated(i, world, fresh ? wholeWorld(world) : dirty);
      if (planned !== null) out.push(planned);
    }
    return out;
  }

  private planIsolated(i: number, world: World, dirty: DirtySet): EnginePlan | null {
    let engine = this.engines[i]!;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const result = engine.plan(world, attempt === 0 ? dirty : wholeWorld(world));
        this.rebuilt.delete(engine);
        return { engine, result };
      } catch (error) {
        this.rebuilt.delete(engine);
        if (attempt === 0) this.failures.push({ appliance: engine.profile.name, error });
        engine = this.make(i);
        this.engines[i] = engine;
        this.rebuilt.add(engine);
      }
    }
    return null;
  }

  /** Whether the appliance's last plan threw and none has succeeded since (its state here is empty, not its plan). */
  failing(appliance: string): boolean {
    const engine = this.find(appliance);
    return engine !== undefined && this.rebuilt.has(engine);
  }

  /** The plans that threw since the last call (each appliance at most once per pass), oldest first. */
  takeFailures(): readonly PlanFailure[] {
    const out = this.failures;
    this.failures = [];
    return out;
  }
}
