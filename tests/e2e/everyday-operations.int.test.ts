// Everyday operation of a cluster, on one long-lived pipeline (kubectl → simulator → watcher → planner → applier →
// HAProxy and the vTM emulator), the way a real cluster lives: teams come and go, Services scale to zero and back,
// Ingresses are deleted and re-created, certificates rotate, an Ingress changes class, an environment is torn down
// and rebuilt, a team ships a canary through a Gateway, and a relist that loses objects is held while everything
// else keeps flowing. Every step is checked
// by traffic through HAProxy or by the vTM emulator's read-back, within STEP_MS.
//
// The steps are one day on one pipeline, in order, each building on the state the previous ones left. They live in
// four modules under everyday/, imported below in order: importing registers their tests in that order, in this
// one test file, on the pipeline started here.
import { after, before } from 'node:test';
import { PODS, p, startDay } from './everyday-day.ts';
import { ingressClass } from './manifests.ts';
import { recordGoldenIfAsked } from './golden-recorder.ts';
import './everyday/teams.ts';
import './everyday/tls-and-classes.ts';
import './everyday/gateway.ts';
import './everyday/held-removals.ts';

before(async () => {
  await startDay({
    appliances: [
      {
        name: 'edge',
        driver: 'haproxy',
        ingressControllers: ['portolan.dev/ingress-controller'],
        replicas: ['edge-a', 'edge-b'],
      },
      {
        name: 'vtm',
        driver: 'vtm',
        ingressControllers: ['pulsesecure.net/vtm-ingress-controller'],
        // The day's Gateway is HAProxy's: the vTM answers a GatewayClass controller of its own.
        gatewayControllers: ['portolan.dev/vtm-gateway'],
        replicas: ['vtm-a'],
      },
    ],
    echoAddresses: PODS,
    // With the console come its tokens: step 28's approve presents the operator token kept beside the fleet config.
    console: true,
  });
  await p.apply(
    ingressClass('portolan', 'portolan.dev/ingress-controller') +
      ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller'),
  );
});
after(async () => {
  if (p !== undefined) await recordGoldenIfAsked(p, 'everyday-operations');
  await p?.stop();
});
