// Issue #51: what Import Crews shows of the platform's words. A deployment named as the platform names one made from
// a project folder (`idea-flow`) becomes a crew named as Add Crew would name it ("Idea Flow"); the platform's status
// words keep their words, in sentence case ("Crew is online").
import * as assert from 'node:assert/strict';
import type * as ImportModule from '../../src/platform/importCommand';
import { readableName } from '../../src/api/url';
import { parseDeployments } from '../../src/platform/parse';
import { sentenceCase } from '../../src/util/sentenceCase';
import { requireWithFakeVscode } from './helpers/fakeVscode';

describe('The platform’s words in Import Crews (#51)', () => {
  it('a slug reads as a name, as Add Crew suggests one; a name with spaces stays as written', () => {
    assert.equal(readableName('idea-flow'), 'Idea Flow');
    assert.equal(readableName('  support_chat_flow '), 'Support Chat Flow');
    assert.equal(readableName('inbox-triage-crew'), 'Inbox Triage Crew');
    assert.equal(readableName('research'), 'Research');
    assert.equal(readableName('MyCrew'), 'MyCrew');
    assert.equal(readableName('Research deployment'), 'Research deployment');
    assert.equal(readableName('Sales\u200b Crew'), 'Sales\u200b Crew');
  });

  it('status words in sentence case: later Capitalised words down, acronyms and mixed case as written', () => {
    assert.equal(sentenceCase('Crew is Online'), 'Crew is online');
    assert.equal(sentenceCase('Provisioning Failed, try again.'), 'Provisioning failed, try again.');
    assert.equal(sentenceCase('Deploy Enqueued'), 'Deploy enqueued');
    assert.equal(sentenceCase('crew is online'), 'Crew is online');
    assert.equal(sentenceCase('API Error: CrewAI Token Expired'), 'API error: CrewAI token expired');
    assert.equal(sentenceCase('Building Image (Step 2/5)'), 'Building image (step 2/5)');
    assert.equal(sentenceCase('Über Fehler Äußerst'), 'Über fehler äußerst');
    assert.equal(sentenceCase('Online\u2060'), 'Online\u2060');
    assert.equal(sentenceCase(''), '');
  });

  it('the picker names each deployment as its crew will be named, its status in sentence case', () => {
    const { deploymentItems } = requireWithFakeVscode<typeof ImportModule>(require.resolve('../../src/platform/importCommand'));
    const { deployments } = parseDeployments([
      { uuid: 'd-1', name: 'idea-flow', status: 'Crew is Online', public_url: 'https://idea.example' },
      { uuid: 'd-2', name: 'Broken deployment', status: 'Provisioning Failed, try again.' },
    ]);
    const items = deploymentItems(deployments, (d) => d.uuid === 'd-1');
    assert.deepEqual(
      items.map((i) => [i.label, i.description, i.picked]),
      [
        ['Idea Flow', 'imported · Crew is online', false],
        ['Broken deployment', 'Provisioning failed, try again.', true],
      ],
    );
  });
});
