// The crews the simulator serves when given none: enough variety to try every feature of the
// extension (Markdown and JSON outputs, human feedback, a flow with open-ended progress, a self-hosted
// server's bodies).
// A run takes about 15–30 s at time scale 1. Tokens are left out so every start draws new ones.

import type { CrewConfig } from './types';

const researchCrew: CrewConfig = {
  id: 'research-crew',
  name: 'Research Crew',
  kind: 'crew',
  inputs: ['topic', 'audience'],
  // The demo's way to see a slow step in a run's event log (live) or a slow run (every dialect).
  slowToolWhenInputContains: '#slowtool',
  tasks: [
    {
      name: 'research_task',
      agent: 'Senior Research Analyst',
      description: 'Research the latest developments on {topic} that matter to {audience}.',
      expectedOutput: 'A bullet list of the ten most relevant findings.',
      durationMs: 8000,
      output: [
        '# Research notes: {topic}',
        '',
        'Findings collected for **{audience}**:',
        '',
        '1. **Adoption is accelerating.** Teams report moving {topic} from pilots to production within two quarters.',
        '2. **Tooling has consolidated.** Three open-source projects now account for most new deployments.',
        '3. **Costs are falling.** Typical running costs dropped by roughly 40% year over year.',
        '4. **Skills are the bottleneck.** Hiring managers name experience with {topic} as the hardest gap to fill.',
        '5. **Regulation is arriving.** New guidance asks for audit trails and human review of critical decisions.',
        '',
        '> Sources: vendor reports, public case studies and conference talks from the last 12 months.',
      ].join('\n'),
    },
    {
      name: 'analysis_task',
      agent: 'Data Analyst',
      description: 'Score the findings on {topic} by impact and confidence for {audience}.',
      expectedOutput: 'A JSON object with scored findings.',
      durationMs: 6000,
      output: {
        json: {
          topic: '{topic}',
          audience: '{audience}',
          findings: [
            { title: 'Adoption is accelerating', impact: 'high', confidence: 0.86 },
            { title: 'Tooling has consolidated', impact: 'medium', confidence: 0.74 },
            { title: 'Costs are falling', impact: 'high', confidence: 0.69 },
            { title: 'Skills are the bottleneck', impact: 'high', confidence: 0.81 },
            { title: 'Regulation is arriving', impact: 'medium', confidence: 0.63 },
          ],
          recommendation: 'Start a small, well-measured pilot this quarter.',
        },
      },
    },
    {
      name: 'reporting_task',
      agent: 'Reporting Analyst',
      description: 'Write a short report on {topic} for {audience} from the scored findings.',
      expectedOutput: 'A Markdown report with an executive summary and next steps.',
      durationMs: 9000,
      output: [
        '# {topic}: what {audience} should know',
        '',
        '## Executive summary',
        '',
        '{topic} has moved from experiment to everyday practice. The strongest signals are **fast adoption**,',
        '**falling costs** and a **shortage of experienced people** — so the winners will be the teams that',
        'learn fastest, not the ones that spend most.',
        '',
        '## Key findings',
        '',
        '| Finding | Impact | Confidence |',
        '| --- | --- | --- |',
        '| Adoption is accelerating | High | 86% |',
        '| Skills are the bottleneck | High | 81% |',
        '| Tooling has consolidated | Medium | 74% |',
        '| Costs are falling | High | 69% |',
        '| Regulation is arriving | Medium | 63% |',
        '',
        '## Next steps',
        '',
        '- [ ] Pick one workflow and run a four-week pilot.',
        '- [ ] Define the success metric *before* the pilot starts.',
        '- [ ] Plan for audit trails and human review from day one.',
        '',
        '```text',
        'Prepared by the Research Crew simulator — no real research was harmed.',
        '```',
      ].join('\n'),
    },
  ],
};

const reviewCrew: CrewConfig = {
  id: 'review-crew',
  name: 'Review Crew',
  kind: 'crew',
  inputs: ['topic'],
  tasks: [
    {
      name: 'draft_task',
      agent: 'Content Writer',
      description: 'Write a short announcement about {topic}.',
      expectedOutput: 'A Markdown announcement of about 100 words.',
      durationMs: 6000,
      output: [
        '## Announcing {topic}',
        '',
        'We are excited to share **{topic}** with you. It makes everyday work simpler, faster and a little',
        'more fun. Try it today and tell us what you think.',
      ].join('\n'),
    },
    {
      name: 'review_task',
      agent: 'Chief Editor',
      description: 'Polish the announcement about {topic} and ask a human to approve it before publishing.',
      expectedOutput: 'The final announcement, approved by a human.',
      durationMs: 5000,
      humanInput: true,
      output: [
        '## Announcing {topic}',
        '',
        'Meet **{topic}**: simpler, faster everyday work. Available today — we would love your feedback.',
      ].join('\n'),
    },
    {
      name: 'publish_task',
      agent: 'Publishing Coordinator',
      description: 'Prepare the approved announcement about {topic} for publishing.',
      expectedOutput: 'Publishing metadata as JSON.',
      durationMs: 4000,
      output: {
        fencedJson: {
          title: 'Announcing {topic}',
          channels: ['blog', 'newsletter'],
          scheduled: true,
        },
      },
    },
  ],
};

const ideaFlow: CrewConfig = {
  id: 'idea-flow',
  name: 'Idea Flow',
  kind: 'flow',
  // A flow lists its state fields, `id` included; none is required.
  inputs: ['id', 'topic', 'count'],
  defaults: { topic: 'developer tools', count: '3' },
  tasks: [
    {
      name: 'generate_ideas',
      agent: 'Idea Generator',
      durationMs: 5000,
      output: '- A command palette for {topic}\n- Offline mode for {topic}\n- One-click sharing of {topic} results',
    },
    { name: 'rank_ideas', agent: 'Critic', durationMs: 5000, output: 'Ranked {count} ideas on {topic}: offline mode first.' },
    {
      name: 'write_pitch',
      agent: 'Pitch Writer',
      durationMs: 7000,
      output: [
        '# Pitch: offline mode for {topic}',
        '',
        'Work keeps going when the network does not. Offline mode queues changes and syncs them later,',
        'so nobody loses an afternoon to a flaky connection.',
      ].join('\n'),
    },
  ],
};

/**
 * The research crew as a team would serve it themselves (a FastAPI app around `crew.kickoff()`): a
 * JSON Schema for /inputs with descriptions, a default and allowed values; crewai's CrewOutput as the result.
 */
const selfHostedCrew: CrewConfig = {
  ...researchCrew,
  id: 'selfhosted-crew',
  name: 'Self-hosted Crew',
  dialect: 'selfhosted',
  inputs: ['topic', 'audience', 'tone'],
  // The demo's way to see a failed run (notices, the run view, a batch's failed rows): said in the prompt.
  failWhenInputContains: '#fail',
  failureMessage:
    'litellm.RateLimitError: RateLimitError: OpenAIException - You exceeded your current quota, please check your plan and billing details.',
  inputDetails: {
    topic: { description: 'The subject to research, e.g. "AI agents in healthcare" (add #fail to see a run fail, #slowtool to make one tool call slow)' },
    audience: { description: 'Who will read the report', default: 'engineering leads' },
    tone: { description: 'How the report should sound', enum: ['neutral', 'upbeat', 'critical'], default: 'neutral' },
  },
};

/**
 * A self-hosted crew whose input is structured (an object with a list inside), as crews that evaluate
 * interviews take it: a string there is refused with FastAPI's 422, in Pydantic's words.
 */
const interviewCrew: CrewConfig = {
  id: 'interview-crew',
  name: 'Interview Crew',
  kind: 'crew',
  dialect: 'selfhosted',
  inputs: ['interview_data', 'max_score'],
  inputDetails: {
    interview_data: {
      type: 'object',
      fields: { topic: 'string', questions_and_answers: 'array' },
      description: 'The interview: {"topic": "…", "questions_and_answers": [{"question": "…", "answer": "…"}]}',
    },
    max_score: { type: 'integer', description: 'The top of the scale', required: false },
  },
  tasks: [
    {
      name: 'evaluate_answers',
      agent: 'Interview Evaluator',
      description: 'Evaluate each answer of the interview {interview_data}.',
      durationMs: 6000,
      output: 'Evaluated the answers of {interview_data}.',
    },
    {
      name: 'write_report',
      agent: 'Report Writer',
      durationMs: 6000,
      output: { json: { summary: 'Clear answers; ownership explained well.', score: 8, scale: '{max_score}' } },
    },
  ],
  defaults: { max_score: '10' },
};

/**
 * A conversational flow (flow-chat.md): Chat with Flow talks to it. In a message, #fail makes the turn fail,
 * #drop cuts the stream half way (the client resumes it), #approve pauses the answer for approval.
 */
const supportChatFlow: CrewConfig = {
  id: 'support-chat-flow',
  name: 'Support Chat Flow',
  kind: 'flow',
  inputs: ['id', 'message'],
  tasks: [{ name: 'handle_turn', agent: 'Support Agent', durationMs: 4000, output: 'Answered: {message}' }],
  chat: { tokenIntervalMs: 60 },
};

/**
 * A crew a trigger starts (a new email), deployed on the demo's platform but not one of the demo crews: Import
 * Crews… finds it there. The platform sends the email as the input `crewai_trigger_payload`, which its /inputs does
 * not list (no task names it as a placeholder); its output quotes the email it was given.
 */
const inboxTriageCrew: CrewConfig = {
  id: 'inbox-triage-crew',
  name: 'Inbox Triage Crew',
  kind: 'crew',
  inputs: ['team'],
  tasks: [
    {
      name: 'read_email',
      agent: 'Inbox Analyst',
      description: 'Read the email in the trigger payload and find what it asks of {team}.',
      durationMs: 5000,
      output: 'Email {crewai_trigger_payload.result.id}: “{crewai_trigger_payload.result.snippet}”',
    },
    {
      name: 'route_email',
      agent: 'Triage Lead',
      description: 'Decide who in {team} answers the email, and how urgently.',
      durationMs: 5000,
      output: { json: { team: '{team}', email: '{crewai_trigger_payload.result.id}', priority: 'high', next: 'Answer within the hour.' } },
    },
  ],
};

/**
 * A quick crew whose output follows its inputs and nothing else, so a test suite of it gives the same verdicts every
 * time (the demo workspace's example suite, suites.crew-suite.yaml, runs against it): #fail in the topic fails the run.
 */
const echoCrew: CrewConfig = {
  id: 'echo-crew',
  name: 'Echo Crew',
  kind: 'crew',
  inputs: ['topic', 'tone'],
  failWhenInputContains: '#fail',
  failureMessage: 'ValueError: the topic asked the crew to fail (#fail).',
  tasks: [
    { name: 'outline_task', agent: 'Outliner', durationMs: 1500, output: 'Outline of a {tone} note about {topic}.' },
    {
      name: 'summary_task',
      agent: 'Summarizer',
      durationMs: 1500,
      output: { json: { topic: '{topic}', tone: '{tone}', summary: 'A {tone} note about {topic}.' } },
    },
  ],
};

/** A fresh copy of the crew a trigger starts (not among demoCrews(): the demo's platform deploys it). */
export function triggerDemoCrew(): CrewConfig {
  return structuredClone(inboxTriageCrew);
}

/** Fresh copies, so a caller may change them freely. */
export function demoCrews(): CrewConfig[] {
  return structuredClone([researchCrew, reviewCrew, ideaFlow, selfHostedCrew, interviewCrew, supportChatFlow, echoCrew]);
}

/** The crews the demo serves that are deployments on its platform only, not demo crews (fresh copies). */
export function demoPlatformOnlyCrews(): CrewConfig[] {
  return structuredClone([inboxTriageCrew]);
}
