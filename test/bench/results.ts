/** The shape of `.bench/results.json`: one bench run, section by section. */
import type { AuthResult } from './auth.ts';
import type { ColdStartResult } from './bundles.ts';
import type { CliBenchResult } from './cli.ts';
import type { CostResult } from './cost.ts';
import type { CrashResult, CrashRunningResult } from './crash.ts';
import type { DeliveryBenchResult } from './deliveries.ts';
import type { Goal } from './goals.ts';
import type { HeartbeatCost } from './heartbeat.ts';
import type { HostileBenchResult } from './hostile.ts';
import type { InspectorBenchResult } from './inspector.ts';
import type { LatencyResult } from './latency.ts';
import type { RaceResult } from './races.ts';
import type { RegistryBenchResult } from './registry.ts';
import type { ScaleResult } from './scale.ts';
import type { StartupResult } from './startup.ts';
import type { StoreBenchResult } from './store.ts';
import type { StreamingResult } from './streaming.ts';
import type { SynapseResult } from './synapse.ts';

export interface BenchResults {
  date: string;
  node: string;
  machine: { cpus: number; model: string };
  /** Sections measured in this run. */
  sections: string[];
  simpleTask?: CostResult['simpleTask'];
  executorTask?: CostResult['executorTask'];
  costPerMillionTasks?: CostResult['costPerMillionTasks'];
  costPerMillionExecutorTasks?: CostResult['costPerMillionExecutorTasks'];
  getTask?: CostResult['getTask'];
  retriedSend?: CostResult['retriedSend'];
  prices?: CostResult['prices'];
  store?: StoreBenchResult;
  /** The agent registry: search and browse by size, publishing, precision, probing. */
  registry?: RegistryBenchResult;
  scale?: ScaleResult;
  races?: RaceResult;
  crash?: CrashResult;
  /** SIGKILL while tasks run (executing, silent), restart: the heartbeat watches resolve them. */
  crashRunning?: CrashRunningResult;
  heartbeats?: HeartbeatCost;
  deliveries?: DeliveryBenchResult;
  /** One normal-flow Synapse task between two hubs, on each side (requester and executor). */
  synapse?: SynapseResult;
  /** What authentication costs per request: the authorizer's verdict, and a request with and without it. */
  auth?: AuthResult;
  streaming?: StreamingResult;
  latency?: LatencyResult;
  coldStart?: ColdStartResult;
  startup?: StartupResult;
  /** The synapse CLI's start-up: --version and card get against the local hub. */
  cli?: CliBenchResult;
  /** The request parser's time on the worst 1 MiB requests fuzzing found. */
  hostile?: HostileBenchResult;
  /** The inspector page: its weight, first paint, and a task of 10,000 events scrolled. */
  inspector?: InspectorBenchResult;
  goals?: Goal[];
}
