// Runs in a second window's extension host instead of the suite (runner/windows.ts writes the
// entry that calls runPeerAgent). It activates the extension as the first window does, records
// the notifications the extension asks for, and answers the test's requests (windows.ts) from
// files: <peer dir>/requests/<id>.json → <peer dir>/replies/<id>.json. It never settles: the
// window closes with it.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { PEER_READY_FILE, SHOWN_FILE, type PeerReady, type PeerReply, type PeerRequest } from '../../helpers/uiBridgeProtocol';
import { answerModal, type Api, runSummaries, testApi, treeRows } from './kit';
import { MessageSpy } from './monitoring';

/** Results cross as JSON: undefined becomes null, URIs their string. */
function toJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null, (_key, inner: unknown) => (inner instanceof vscode.Uri ? inner.toString() : inner)) ?? 'null');
}

let modals: { dispose(): void } | undefined;

async function answer(api: Api, request: PeerRequest): Promise<unknown> {
  switch (request.type) {
    case 'answerModals':
      modals?.dispose();
      modals = answerModal(request.answer ?? undefined);
      return null;
    case 'command':
      return toJson(await vscode.commands.executeCommand(request.command, ...request.args));
    case 'kickOff':
      return (await api.kickOff({ crew: request.crew, inputs: request.inputs })) ?? null;
    case 'runs':
      return runSummaries(api);
    case 'tree':
      return treeRows(api);
    case 'batches':
      if (request.refresh) {
        await api.batches.refresh();
      }
      return toJson(api.batches.store.list());
  }
}

function writeAtomically(file: string, content: unknown): void {
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(content));
  fs.renameSync(`${file}.tmp`, file);
}

export async function runPeerAgent(name: string, dir: string): Promise<void> {
  console.log(`[peer ${name}] agent started in extension host ${process.pid}`);
  // Before activation: every notification of this window counts. Each is written down as it is shown, so the
  // test reads them all, even those shown while the window was closing (windows.ts messages()).
  new MessageSpy((message) => fs.appendFileSync(path.join(dir, SHOWN_FILE), `${JSON.stringify(message)}\n`));
  const api = await testApi();
  const ready: PeerReady = { pid: process.pid };
  writeAtomically(path.join(dir, PEER_READY_FILE), ready);
  const requests = path.join(dir, 'requests');
  const seen = new Set<string>();
  for (;;) {
    for (const file of fs.readdirSync(requests).filter((entry) => entry.endsWith('.json') && !seen.has(entry))) {
      seen.add(file);
      const request = JSON.parse(fs.readFileSync(path.join(requests, file), 'utf8')) as PeerRequest;
      fs.rmSync(path.join(requests, file), { force: true });
      // Not awaited here: a command that waits for input in this window must not block reads.
      void answer(api, request).then(
        (result): PeerReply => ({ id: request.id, ok: true, result }),
        (error: unknown): PeerReply => {
          console.log(`[peer ${name}] ${request.type} failed: ${error instanceof Error ? error.message : String(error)}`);
          return { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
        },
      ).then((reply) => writeAtomically(path.join(dir, 'replies', `${request.id}.json`), reply));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
