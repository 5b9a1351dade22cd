import type { TrimmedIngress, TrimmedIngressClass } from '@portolan/kube-model';
import type { ApplianceProfile } from './appliance-profile.ts';
import { creationOrderKey } from './creation-order.ts';
import { issue, type Issue } from './issue.ts';

/** The legacy class annotation (deprecated by `spec.ingressClassName`, still honoured). */
export const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
/** Marks an IngressClass as the cluster's default. */
export const DEFAULT_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';

/** Which class an Ingress asks for: a class name, a legacy annotation value, or none (the default class applies). */
export type ClassRequest = { readonly by: 'field' | 'annotation'; readonly name: string } | { readonly by: 'default' };

/** Reads the class an Ingress asks for; the field wins over the annotation, as Kubernetes documents. */
export function classRequestOf(ingress: TrimmedIngress): ClassRequest {
  const field = ingress.spec.ingressClassName;
  if (field !== undefined && field !== '') return { by: 'field', name: field };
  const legacy = ingress.metadata.annotations?.[LEGACY_CLASS_ANNOTATION];
  if (legacy !== undefined && legacy !== '') return { by: 'annotation', name: legacy };
  return { by: 'default' };
}

/** Whether an IngressClass is marked as the default. */
export function isDefaultClass(c: TrimmedIngressClass): boolean {
  return c.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION]?.toLowerCase() === 'true';
}

/** The cluster's default IngressClass: when several claim it (admission would refuse new Ingresses), the oldest. */
export function defaultClassOf(classes: Iterable<TrimmedIngressClass>): TrimmedIngressClass | null {
  let best: TrimmedIngressClass | null = null;
  let bestKey = '';
  for (const c of classes) {
    if (!isDefaultClass(c)) continue;
    const key = creationOrderKey(c.metadata.creationTimestamp, '', c.metadata.name, '');
    if (best === null || key < bestKey) {
      best = c;
      bestKey = key;
    }
  }
  return best;
}

/** Whether this appliance serves an Ingress (namespace scope is checked by the caller), and any warning about how. */
export type Selection = { readonly selected: false } | { readonly selected: true; readonly warning: Issue | null };

/**
 * The select stage: an Ingress is this appliance's when its class (by name, by the legacy annotation — also the
 * profile's literal legacy values such as vTM's "vtm" — or the cluster default) has a controller the appliance
 * answers. A class that does not exist selects nothing: it may belong to another controller.
 */
export function selectIngress(
  ingress: TrimmedIngress,
  classes: ReadonlyMap<string, TrimmedIngressClass>,
  profile: ApplianceProfile,
): Selection {
  const request = classRequestOf(ingress);
  const answers = (c: TrimmedIngressClass | null | undefined): boolean =>
    c !== null && c !== undefined && c.spec.controller !== undefined && profile.controllers.includes(c.spec.controller);
  let selected: boolean;
  if (request.by === 'field') selected = answers(classes.get(request.name));
  else if (request.by === 'annotation')
    selected = profile.legacyClassValues.includes(request.name) || answers(classes.get(request.name));
  else selected = answers(defaultClassOf(classes.values()));
  if (!selected) return { selected: false };
  const both = request.by === 'field' && (ingress.metadata.annotations?.[LEGACY_CLASS_ANNOTATION] ?? '') !== '';
  return {
    selected: true,
    warning: both
      ? issue(
          'ClassAnnotationIgnored',
          `both spec.ingressClassName and ${LEGACY_CLASS_ANNOTATION} are set; the field wins`,
        )
      : null,
  };
}
