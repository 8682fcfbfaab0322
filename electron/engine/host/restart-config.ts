/**
 * What Restart and Edit & retry need of a session's start config, pure: the view the renderer
 * may see (environment values stay on the host) and the config an edit makes (the values of
 * the variables it keeps come from the old config).
 */
import type { ChannelPayload, SessionConfigView } from '../../../shared/host-api.js';

type StartPayload = ChannelPayload<'session:start'>;

/** The start config without environment values (only their names). */
export function configView(p: StartPayload): SessionConfigView {
  if ('demo' in p) {
    const { demo, ...options } = p;
    return { ...options, demo: { id: demo.id, knobs: { ...demo.knobs } } };
  }
  const { server, ...options } = p;
  const { env, ...rest } = server;
  return { ...options, server: { ...rest, args: [...rest.args], envNames: Object.keys(env) } };
}

/**
 * The config an edit starts: `edited` as given, plus, for each name in `keepEnv` that it does
 * not set itself, the old config's value (a custom server edited into a custom server only; a
 * name the old config did not have is left out).
 */
export function withKeptEnv(
  edited: StartPayload,
  old: StartPayload,
  keepEnv: readonly string[],
): StartPayload {
  if (!('server' in edited) || !('server' in old) || keepEnv.length === 0) return edited;
  const env = { ...edited.server.env };
  for (const name of keepEnv) {
    if (!Object.hasOwn(env, name) && Object.hasOwn(old.server.env, name))
      env[name] = old.server.env[name];
  }
  return { ...edited, server: { ...edited.server, env } };
}
