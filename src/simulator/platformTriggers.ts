// The platform's automation triggers in the simulator (platform-api.md, "Automation triggers"): the organization's
// trigger apps under `GET …/integrations/apps`, and each trigger's sample payload under
// `GET …/integrations/{app}/{trigger}/payload`. The demo's apps: Gmail and Google Calendar connected, Slack not, each
// trigger with a payload shaped as the service sends it (made-up people and ids).

import type { PlatformTriggerAppConfig, Reply } from './types';

const EMAIL_TEXT = 'Hi team,\r\n\r\nSince 08:40 the checkout page times out for customers paying by card. Three customers wrote to us already.\r\nCan someone take a look?\r\n\r\nDana';

const newEmail = {
  result: {
    id: '18d2c4f7a91e3b05',
    threadId: '18d2c4f7a91e3b05',
    labelIds: ['UNREAD', 'IMPORTANT', 'CATEGORY_PERSONAL', 'INBOX'],
    snippet: 'Hi team, Since 08:40 the checkout page times out for customers paying by card. Three customers wrote to us already.',
    payload: {
      partId: '',
      mimeType: 'multipart/alternative',
      filename: '',
      headers: [
        { name: 'Delivered-To', value: 'support@example.com' },
        { name: 'From', value: 'Dana Whitfield <dana.whitfield@example.com>' },
        { name: 'To', value: 'Support <support@example.com>' },
        { name: 'Subject', value: 'Checkout times out for card payments' },
        { name: 'Date', value: 'Tue, 14 Jan 2025 09:12:44 +0000' },
        { name: 'Message-ID', value: '<CAF3k2x9Qm1@mail.example.com>' },
        { name: 'Content-Type', value: 'multipart/alternative; boundary="000000000000a1b2c3"' },
      ],
      body: { size: 0 },
      parts: [
        {
          partId: '0',
          mimeType: 'text/plain',
          filename: '',
          headers: [{ name: 'Content-Type', value: 'text/plain; charset="UTF-8"' }],
          body: { size: EMAIL_TEXT.length, data: Buffer.from(EMAIL_TEXT).toString('base64url') },
        },
      ],
    },
    sizeEstimate: 5342,
    historyId: '482913',
    internalDate: '1736845964000',
  },
};

const threadUpdated = {
  result: {
    id: '18d2c4f7a91e3b05',
    historyId: '482977',
    messages: [
      { id: '18d2c4f7a91e3b05', threadId: '18d2c4f7a91e3b05', labelIds: ['INBOX'], snippet: 'Since 08:40 the checkout page times out for customers paying by card.' },
      { id: '18d2c6109b0f4e21', threadId: '18d2c4f7a91e3b05', labelIds: ['UNREAD', 'INBOX'], snippet: 'Rolled back the payment gateway update at 09:31; card payments go through again.' },
    ],
  },
};

const eventStarted = {
  result: {
    kind: 'calendar#event',
    id: '5n7q2kq0v1c8d3e9f4g6h1j2k3',
    status: 'confirmed',
    htmlLink: 'https://www.google.com/calendar/event?eid=NW43cTJrcTB2MWM4ZDNlOWY0ZzZoMWoyazM',
    summary: 'Weekly planning',
    description: 'Review last week, pick this week’s three goals.',
    location: 'Room 4B',
    organizer: { email: 'lee.park@example.com', displayName: 'Lee Park' },
    start: { dateTime: '2025-01-14T10:00:00+01:00', timeZone: 'Europe/Berlin' },
    end: { dateTime: '2025-01-14T10:45:00+01:00', timeZone: 'Europe/Berlin' },
    attendees: [
      { email: 'lee.park@example.com', organizer: true, responseStatus: 'accepted' },
      { email: 'dana.whitfield@example.com', responseStatus: 'accepted' },
      { email: 'sam.okafor@example.com', responseStatus: 'tentative' },
    ],
  },
};

const slackMessage = {
  result: {
    type: 'message',
    channel: 'C05QX1T7Z9A',
    user: 'U04MN2B8K1P',
    text: 'Is anyone else seeing checkout timeouts? :eyes:',
    ts: '1736845990.000200',
    team: 'T02HF5R3S6D',
    channel_type: 'channel',
  },
};

/** The demo's trigger apps, as the platform lists them (not connected first: the client puts connected ones first). */
export function demoTriggerApps(): PlatformTriggerAppConfig[] {
  return structuredClone([
    {
      slug: 'slack',
      name: 'Slack',
      description: 'Start a crew when a message is posted in a channel.',
      connected: false,
      triggers: [{ slug: 'new_message', name: 'New Message', description: 'A message is posted in a channel the app is in.', samplePayload: slackMessage }],
    },
    {
      slug: 'gmail',
      name: 'Gmail',
      description: 'Start a crew when an email arrives or a thread changes.',
      connected: true,
      triggers: [
        { slug: 'new_email_received', name: 'New Email Received', description: 'An email arrives in the inbox.', samplePayload: newEmail },
        { slug: 'thread_updated', name: 'Thread Updated', description: 'A reply is added to a thread.', samplePayload: threadUpdated },
      ],
    },
    {
      slug: 'google_calendar',
      name: 'Google Calendar',
      description: 'Start a crew when an event starts, ends or changes.',
      connected: true,
      triggers: [{ slug: 'event_started', name: 'Event Started', description: 'An event on the calendar begins.', samplePayload: eventStarted }],
    },
  ]);
}

/** An answer to `route` (after `api/v1/`) starting with `integrations`. */
export function triggerReply(apps: readonly PlatformTriggerAppConfig[] | false, route: readonly string[], method: string): Reply {
  if (apps === false) {
    return { status: 404, body: { error: 'Not Found' } };
  }
  if (method !== 'GET') {
    return { status: 405, body: { error: 'Method Not Allowed' } };
  }
  if (route.length === 2 && route[1] === 'apps') {
    return {
      status: 200,
      body: {
        apps: apps.map((app) => ({
          name: app.name,
          slug: app.slug,
          is_connected: app.connected,
          description: app.description,
          triggers: app.triggers.map((t) => ({ slug: t.slug, name: t.name, description: t.description })),
        })),
      },
    };
  }
  const trigger = route.length === 4 && route[3] === 'payload' ? apps.find((a) => a.slug === route[1])?.triggers.find((t) => t.slug === route[2]) : undefined;
  if (!trigger) {
    return { status: 404, body: { error: 'trigger_not_found', message: 'Trigger not found' } };
  }
  return trigger.payloadBody === undefined
    ? { status: 200, body: { sample_payload: trigger.samplePayload } }
    : { status: 200, headers: { 'Content-Type': 'application/json' }, body: trigger.payloadBody };
}
