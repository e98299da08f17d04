// Kick Off with a Trigger Payload…: try a deployed crew with what one of the organization's triggers sends. Pick a
// trigger app (connected ones first), one of its triggers, edit its sample payload (or the payload last used with
// that trigger) in the kickoff's JSON editor, then Kick Off's own review sends it as `crewai_trigger_payload`, with
// any other input the crew asks for. A bundle of its own (dist/triggerKickoff.js), loaded on first use
// (triggerCommand.ts): what holds state is handed in by the main bundle (the wizard, the value editor, the client),
// never a second copy of it.
import * as vscode from 'vscode';
import type { InputSpec } from '../api/types';
import { type Inputs, MAX_INPUT_VALUE_LENGTH, parseInputValue } from '../api/inputValues';
import type { Crew } from '../crews/crewConfig';
import { pickCrew } from '../crews/pickCrew';
import type { RunRecord } from '../runTracking/model';
import type { ServicesWithPlatform } from './platformServices';
import { showError, showInfo, showWarning } from '../ui/notify';
import type { StepInput } from '../ui/quickInput';
import { errorText } from '../util/errorText';
import { inertLine } from '../util/inertText';
import { isPlainObject } from '../util/objects';
import type { PlatformSignIn } from './account';
import type { PlatformErrorKind } from './platformClient';
import { fetchSamplePayload, integrationsPageUrl, listTriggerApps, type PlatformGet, type Trigger, type TriggerApp, type TriggerApps, TRIGGER_PAYLOAD_INPUT } from './triggerApps';
import { latestTrigger, rememberedPayload, rememberPayload } from './triggerPayloads';

/** What the flow is handed by the main bundle (platform/triggerCommand.ts, registerCommands.ts). */
export interface TriggerKickoffHost {
  services: ServicesWithPlatform;
  /** Kick Off's review, after the steps of inputs still missing, from `draft`; `extra` is listed with the crew's inputs. */
  kickOff(crew: Crew, draft: Inputs, extra: InputSpec[]): Promise<RunRecord | undefined>;
  /** The kickoff's JSON value editor (Use This Text / Discard): the text used, or undefined. */
  editJson(name: string, text: string): Promise<string | undefined>;
  /** A new multi-step quick input (the main bundle's class: this bundle loads no second copy of it). */
  newInput(): StepInput;
  /** The platform sign-in, asked for when there is none. */
  signedIn(): Promise<PlatformSignIn | undefined>;
  /** The platform's fault in words, with the action that fixes it. */
  describeError(error: unknown, what: string): Promise<void>;
}

/** The chosen trigger and the payload to start editing from. */
interface Chosen {
  app: TriggerApp;
  trigger: Trigger;
  payload: Inputs;
}

/** The kickoff's run id, or undefined when nothing was started. */
export async function kickOffWithTriggerPayload(host: TriggerKickoffHost, arg: unknown): Promise<string | undefined> {
  const { services } = host;
  const crew = await pickCrew(services.crews, arg, vscode.l10n.t('Kick off which crew with a trigger’s payload?'));
  const signIn = crew && (await host.signedIn());
  if (!crew || !signIn) {
    return undefined;
  }
  const input = host.newInput();
  let chosen: Chosen | undefined;
  try {
    chosen = await chooseTrigger(input, host, crew, signIn);
  } finally {
    input.dispose();
  }
  const payload = chosen && (await editPayload(host, chosen));
  if (!chosen || !payload) {
    return undefined;
  }
  const { app, trigger } = chosen;
  // The crew's other inputs as last used; the wizard keeps only those the crew lists, and asks for what is missing.
  const others: Inputs = { ...services.presets.lastUsed(crew.url) };
  delete others[TRIGGER_PAYLOAD_INPUT];
  const spec: InputSpec = {
    name: TRIGGER_PAYLOAD_INPUT,
    type: 'object',
    required: true,
    description: vscode.l10n.t('The payload of {0} ({1}), as the trigger sends it', trigger.name, app.name),
  };
  const run = await host.kickOff(crew, { ...others, [TRIGGER_PAYLOAD_INPUT]: payload }, [spec]);
  if (run) {
    // What was sent, edited in the review or not, is what the next try of this trigger starts from.
    const sent = (await services.runs.readDetails(run.id)).inputs?.[TRIGGER_PAYLOAD_INPUT];
    if (isPlainObject(sent)) {
      await rememberPayload(services.shared, crew.url, { app: app.slug, trigger: trigger.slug }, sent as Inputs).catch((e: unknown) => services.log.warn(`[${crew.name}] Could not remember the trigger payload: ${errorText(e)}`));
    }
  }
  return run?.id;
}

function platformErrorKind(error: unknown): PlatformErrorKind | undefined {
  // Structurally: the error comes from the main bundle's client, whose class this bundle does not share.
  return error instanceof Error && error.name === 'PlatformError' ? (error as Error & { kind: PlatformErrorKind }).kind : undefined;
}

function withProgress<T>(title: string, work: (signal: AbortSignal) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: inertLine(title), cancellable: true }, (_p, cancellation) => {
    const abort = new AbortController();
    cancellation.onCancellationRequested(() => abort.abort());
    return work(abort.signal);
  });
}

async function openIntegrationsPage(signIn: PlatformSignIn, message: string): Promise<void> {
  const open = vscode.l10n.t('Open Integrations Page');
  if ((await showInfo(message, open)) === open) {
    await vscode.env.openExternal(vscode.Uri.parse(integrationsPageUrl(signIn.baseUrl)));
  }
}

/** The organization's trigger apps; undefined after saying why there are none to offer. */
async function readApps(host: TriggerKickoffHost, signIn: PlatformSignIn, where: string): Promise<TriggerApps | undefined> {
  const { services } = host;
  const get: PlatformGet = (path, signal, limits) => services.platform.client.getJson(signIn, path, signal, limits);
  try {
    const read = await withProgress(vscode.l10n.t('Reading the trigger apps of {0}…', where), (signal) => listTriggerApps(get, signal));
    if (read.skipped > 0) {
      services.log.warn(`The platform listed ${read.skipped} trigger apps that could not be used (no usable slug, or one listed twice); they are not offered.`);
    }
    return read;
  } catch (error) {
    services.log.warn(`Listing the trigger apps of ${where} failed: ${errorText(error)}`);
    if (platformErrorKind(error) === 'notFound') {
      // A platform (or organization) without automation triggers: said once, and nothing else is offered.
      void showWarning(vscode.l10n.t('{0} lists no trigger apps (404): this platform or organization has no automation triggers to try a crew with.', where));
      return undefined;
    }
    await host.describeError(error, vscode.l10n.t('Could not list the trigger apps of {0}', where));
    return undefined;
  }
}

async function chooseTrigger(input: StepInput, host: TriggerKickoffHost, crew: Crew, signIn: PlatformSignIn): Promise<Chosen | undefined> {
  const store = host.services.shared;
  const where = signIn.organizationName ?? new URL(signIn.baseUrl).host;
  const read = await readApps(host, signIn, where);
  if (!read) {
    return undefined;
  }
  if (read.apps.length === 0) {
    await openIntegrationsPage(signIn, vscode.l10n.t('{0} has no trigger apps yet: connect one (Gmail, Slack, HubSpot…) on the platform’s Integrations page.', where));
    return undefined;
  }
  const title = vscode.l10n.t('Kick Off {0} with a Trigger Payload', crew.name);
  const last = latestTrigger(store, crew.url);
  let app: TriggerApp | undefined;
  for (;;) {
    if (!app) {
      app = await pickApp(input, title, read, last?.app);
      if (!app) {
        return undefined;
      }
      if (!app.connected) {
        await input.hide();
        await openIntegrationsPage(signIn, vscode.l10n.t('{0} is not connected to {1}, so its triggers send nothing yet. Connect it on the platform’s Integrations page, then try again.', app.name, where));
        return undefined;
      }
      if (app.triggers.length === 0) {
        await input.hide();
        void showInfo(vscode.l10n.t('{0} lists no triggers.', app.name));
        return undefined;
      }
    }
    type Item = vscode.QuickPickItem & { trigger: Trigger };
    const items: Item[] = app.triggers.map((trigger) => ({
      label: `$(zap) ${inertLine(trigger.name)}`,
      description: rememberedPayload(store, crew.url, { app: app!.slug, trigger: trigger.slug }) ? vscode.l10n.t('used before') : undefined,
      detail: trigger.description,
      trigger,
    }));
    const picked = await input.choose({
      title,
      step: 2,
      totalSteps: 3,
      placeholder: vscode.l10n.t('Which trigger of {0}? Its payload opens in an editor next.', app.name),
      items,
      activeItem: items.find((item) => last?.app === app!.slug && item.trigger.slug === last.trigger),
      canGoBack: true,
    });
    if (picked.kind === 'back') {
      app = undefined;
      continue;
    }
    if (picked.kind !== 'value') {
      return undefined;
    }
    const trigger = picked.value.trigger;
    const payload = await startingPayload(input, host, crew, signIn, app, trigger, title);
    if (payload === 'back') {
      continue;
    }
    return payload && { app, trigger, payload };
  }
}

async function pickApp(input: StepInput, title: string, read: TriggerApps, lastApp: string | undefined): Promise<TriggerApp | undefined> {
  type Item = vscode.QuickPickItem & { app?: TriggerApp };
  const entry = (app: TriggerApp): Item => ({
    label: `${app.connected ? '$(plug)' : '$(debug-disconnect)'} ${inertLine(app.name)}`,
    description: app.connected
      ? app.triggers.length === 1
        ? vscode.l10n.t('1 trigger')
        : vscode.l10n.t('{0} triggers', app.triggers.length)
      : vscode.l10n.t('not connected'),
    detail: app.description,
    app,
  });
  const connected = read.apps.filter((a) => a.connected);
  const others = read.apps.filter((a) => !a.connected);
  const items: Item[] = [
    ...(connected.length ? [{ label: vscode.l10n.t('Connected'), kind: vscode.QuickPickItemKind.Separator }, ...connected.map(entry)] : []),
    ...(others.length ? [{ label: vscode.l10n.t('Not connected'), kind: vscode.QuickPickItemKind.Separator }, ...others.map(entry)] : []),
  ];
  const picked = await input.choose({
    title,
    step: 1,
    totalSteps: 3,
    placeholder: read.overCap
      ? vscode.l10n.t('Pick a trigger app (the first {0}: the platform lists more)', read.apps.length)
      : vscode.l10n.t('Pick a trigger app: the crew is kicked off with what one of its triggers sends'),
    items,
    activeItem: items.find((item) => item.app?.connected && item.app.slug === lastApp),
  });
  return picked.kind === 'value' ? picked.value.app : undefined;
}

/** The payload last used with this trigger (when there is one, the user chooses) or the trigger's sample payload. */
async function startingPayload(
  input: StepInput,
  host: TriggerKickoffHost,
  crew: Crew,
  signIn: PlatformSignIn,
  app: TriggerApp,
  trigger: Trigger,
  title: string,
): Promise<Inputs | 'back' | undefined> {
  const remembered = rememberedPayload(host.services.shared, crew.url, { app: app.slug, trigger: trigger.slug });
  if (remembered) {
    type Item = vscode.QuickPickItem & { use: 'last' | 'sample' };
    const picked = await input.choose<Item>({
      title,
      step: 3,
      totalSteps: 3,
      placeholder: vscode.l10n.t('Start from which payload of {0}?', trigger.name),
      items: [
        { label: `$(history) ${vscode.l10n.t('The payload {0} was last kicked off with', crew.name)}`, use: 'last' },
        { label: `$(cloud-download) ${vscode.l10n.t('The trigger’s sample payload, from the platform')}`, use: 'sample' },
      ],
      canGoBack: true,
    });
    if (picked.kind === 'back') {
      return 'back';
    }
    if (picked.kind !== 'value') {
      return undefined;
    }
    if (picked.value.use === 'last') {
      return remembered;
    }
  }
  await input.hide();
  const { services } = host;
  const get: PlatformGet = (path, signal, limits) => services.platform.client.getJson(signIn, path, signal, limits);
  try {
    const read = await withProgress(vscode.l10n.t('Reading the sample payload of {0}…', trigger.name), (signal) => fetchSamplePayload(get, app.slug, trigger, signal));
    if (read.ok) {
      return read.payload;
    }
    services.log.warn(`The sample payload of ${app.slug}/${trigger.slug} was not used: ${read.message}`);
    void showError(read.message);
    return undefined;
  } catch (error) {
    services.log.warn(`Reading the sample payload of ${app.slug}/${trigger.slug} failed: ${errorText(error)}`);
    if (platformErrorKind(error) === 'badResponse') {
      // The transport refused a reply larger than it reads (64 MB).
      void showError(vscode.l10n.t('The sample payload of {0} is too large to read: the platform sent more than Crew Runs reads.', trigger.name));
      return undefined;
    }
    await host.describeError(error, vscode.l10n.t('Could not read the sample payload of {0}', trigger.name));
    return undefined;
  }
}

/** The payload in the JSON editor until it is a JSON object the crew can take; undefined when the user gives up. */
async function editPayload(host: TriggerKickoffHost, chosen: Chosen): Promise<Inputs | undefined> {
  // Indented, unless that makes it longer than an input may be.
  const indented = JSON.stringify(chosen.payload, undefined, 2);
  let text = indented.length <= MAX_INPUT_VALUE_LENGTH ? indented : JSON.stringify(chosen.payload);
  for (;;) {
    const edited = await host.editJson(TRIGGER_PAYLOAD_INPUT, text);
    if (edited === undefined) {
      return undefined; // Discarded, or closed unchanged: nothing goes on.
    }
    const parsed = parseInputValue(TRIGGER_PAYLOAD_INPUT, edited);
    const problem = !parsed.ok
      ? parsed.message
      : !isPlainObject(parsed.value)
        ? vscode.l10n.t('{0} must be a JSON object ({…}): a crew receives the trigger’s payload as one.', TRIGGER_PAYLOAD_INPUT)
        : undefined;
    if (parsed.ok && problem === undefined) {
      return parsed.value as Inputs;
    }
    const again = vscode.l10n.t('Edit Again');
    if ((await showError(problem ?? '', again)) !== again) {
      return undefined;
    }
    text = edited;
  }
}
