// What a request to the simulator meets, in order: redirect, cold start and latency, rate limit, read
// faults, then routing (method, auth) to an endpoint module.

import type { IncomingMessage, ServerResponse } from 'node:http';
import * as dialects from './dialects';
import type { Reply } from './types';
import { DEFAULT_IDLE_AFTER_MS, DEFAULT_RETRY_AFTER_SECONDS, DEFAULT_STALL_MS, faultReply, pickReadFault } from './faults';
import { echoAuthorization, readBody, send, sendTruncated } from './http';
import { handleChat, isChatRequest } from './chatFlow';
import { resume } from './resumeEndpoint';
import { kickoff, status, stop } from './runEndpoints';
import type { FaultOptions } from './types';
import { type CrewState, dialectOf, type SimWorld } from './world';

import type { Pipeline, RequestContext } from './pipelineTypes';

export type { Pipeline, RequestContext };

async function route(world: SimWorld, req: IncomingMessage, ctx: RequestContext & { crew: CrewState }): Promise<Reply> {
  const dialect = dialectOf(world, ctx.crew);
  if (ctx.endpoint === 'other') {
    return dialects.routeNotFound(dialect);
  }
  if (ctx.endpoint === 'stop' && !dialects.hasStopRoute(dialect, ctx.crew.config)) {
    // A deployment without the route (self-hosted ones by default): what such a server answers, before any auth.
    return ctx.crew.config.stopAnswers405 ? dialects.methodNotAllowed(dialect, 'GET') : dialects.routeNotFound(dialect);
  }
  const allowed = ctx.endpoint === 'inputs' || ctx.endpoint === 'status' ? 'GET' : 'POST';
  if (ctx.method !== allowed) {
    return dialects.methodNotAllowed(dialect, allowed);
  }
  if (ctx.tokenKind !== 'org' && ctx.tokenKind !== 'user') {
    return dialects.unauthorized(dialect);
  }
  switch (ctx.endpoint) {
    case 'inputs':
      return dialects.inputsReply(dialect, ctx.crew.config);
    case 'status':
      return status(world, ctx.crew, decodeURIComponent(ctx.rest[1]));
    case 'stop':
      return stop(world, ctx.crew, decodeURIComponent(ctx.rest[1]));
    case 'kickoff':
    case 'resume': {
      if (ctx.endpoint === 'resume' && ctx.tokenKind === 'user' && ctx.crew.config.userTokenCanResume === false) {
        return dialects.forbidden(dialect);
      }
      const text = await readBody(req);
      if (text === undefined) {
        return dialects.bodyTooLarge(dialect);
      }
      return ctx.endpoint === 'kickoff' ? kickoff(world, ctx.crew, text) : resume(world, ctx.crew, text);
    }
  }
}

export async function handle(pipeline: Pipeline, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
  const { world } = pipeline;
  const crew = ctx.crew;
  if (!crew) {
    return send(res, dialects.routeNotFound(world.defaultDialect));
  }
  const { config } = crew;
  if (config.redirectTo) {
    ctx.fault = 'redirect';
    const target = config.redirectTo.replace(/\/+$/, '') + '/' + ctx.rest.join('/');
    return send(res, { status: 302, headers: { Location: target }, body: '' });
  }
  if (isChatRequest(crew, ctx.rest)) {
    return handleChat(pipeline, req, res, ctx, crew);
  }
  const effective: FaultOptions = { ...pipeline.faults(), ...config.faults };
  const idleAfter = effective.idleAfterMs ?? DEFAULT_IDLE_AFTER_MS;
  const isCold = crew.lastRequestAt === undefined || ctx.started - crew.lastRequestAt >= idleAfter;
  crew.lastRequestAt = ctx.started;
  if (isCold && effective.coldStartMs) {
    ctx.coldStart = true;
  }
  await pipeline.sleep((isCold ? (effective.coldStartMs ?? 0) : 0) + (effective.latencyMs ?? 0));
  if (pipeline.closed()) {
    return;
  }
  const retryAfter = effective.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  if (config.rateLimitPerSecond !== undefined) {
    const wait = crew.limiter.take(config.rateLimitPerSecond, Date.now());
    if (wait > 0) {
      ctx.fault = 'rateLimit';
      return send(res, dialects.tooManyRequests(dialectOf(world, crew), Math.max(wait, retryAfter)));
    }
  }
  const isRead = ctx.method === 'GET' && (ctx.endpoint === 'inputs' || ctx.endpoint === 'status');
  const fault = isRead ? pickReadFault(effective, pipeline.random) : undefined;
  ctx.fault = fault;
  switch (fault) {
    case 'reset':
      req.socket.destroy();
      return;
    case 'stall':
      await pipeline.sleep(effective.stallMs ?? DEFAULT_STALL_MS);
      if (pipeline.closed()) {
        return;
      }
      break;
    case '500':
    case '502html':
    case '503':
    case '429':
    case 'malformed':
      return send(res, faultReply(fault, retryAfter));
  }
  const route_ = await route(world, req, { ...ctx, crew });
  const reply = config.echoToken && ctx.endpoint === 'status' ? echoAuthorization(route_, req.headers.authorization ?? '') : route_;
  if (fault === 'truncated') {
    return sendTruncated(res, reply);
  }
  send(res, reply);
}
